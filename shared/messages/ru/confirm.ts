// Тексты страницы /ru/confirm (её ленивый чанк). Ключи те же, что в en/confirm.ts.
import type { ConfirmMessages } from '../types';

const confirm: ConfirmMessages = {};
export default confirm;
