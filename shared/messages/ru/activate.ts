// Тексты страницы /ru/activate (её ленивый чанк). Ключи те же, что в en/activate.ts.
import type { ActivateMessages } from '../types';

const activate: ActivateMessages = {
  title_: 'Активация подписки · OrgNote',
};
export default activate;
