// Тексты страницы /ru/leave (её ленивый чанк). Ключи те же, что в en/leave.ts.
import type { LeaveMessages } from '../types';

const leave: LeaveMessages = {};
export default leave;
