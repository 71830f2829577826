// Тексты страницы /ru/privacy (её ленивый чанк). Ключи те же, что в en/privacy.ts.
import type { PrivacyMessages } from '../types';

const privacy: PrivacyMessages = {};
export default privacy;
