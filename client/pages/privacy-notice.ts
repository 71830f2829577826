// Who sees the data, in the page's language: the operators, and the services their webhook
// endpoints send addresses to, by the names the operators gave them and a count of the unnamed
// ones (public config `addressRecipients`), listed as a sentence says them. Part of the lazy chunk
// only visitors of /privacy load (client/routes.tsx).
import type { Language } from '../../shared/i18n/languages';
import type { PrivacyMessages } from '../../shared/messages/types';
import type { AddressRecipients } from '../../shared/public-config';

export function whoSeesIt(
  m: PrivacyMessages,
  language: Language,
  { names, unnamed }: AddressRecipients,
): string {
  if (names.length === 0 && unnamed === 0) return m.onlyOperators_;
  const recipients = unnamed > 0 ? [...names, m.unnamed_(unnamed, names.length > 0)] : names;
  const list = new Intl.ListFormat(language, { type: 'conjunction' }).format(recipients);
  return m.operatorsAnd_(list);
}
