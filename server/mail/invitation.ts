// The invitation mail: the activation key, and the activation page with the address filled in.
// The plain-text part carries the key alone on its own line, so it can be copied without picking
// at a sentence.
import { DEFAULT_LANGUAGE, type Language } from '../../shared/i18n/languages';
import type { Config } from '../config';
import type { OutgoingMail } from '../store/mail-queue';
import { leaveUrl, mailLanguage, message, pageUrl, SIGNATURE } from './message';

/** Each language's words, side by side, in the order the mail gives them. */
const TEXTS: Record<
  Language,
  {
    subject: string;
    hello: string;
    ready: string;
    open: string;
    keyIsFor: (to: string) => string;
    leave: string;
  }
> = {
  en: {
    subject: 'Your OrgNote activation key',
    hello: 'Hello,',
    ready:
      'Thank you for waiting: your free OrgNote subscription is ready. ' +
      'This is your activation key:',
    open: 'Open the activation page (your address is already filled in) and enter the key:',
    keyIsFor: (to) =>
      `The key works for ${to} only. ` +
      'If you did not join the OrgNote waitlist, you can ignore this message.',
    leave: 'To leave the waitlist and erase your address, open:',
  },
  ru: {
    subject: 'Ваш ключ активации OrgNote',
    hello: 'Здравствуйте!',
    ready: 'Спасибо, что дождались: ваша бесплатная подписка OrgNote готова. Вот ключ активации:',
    open: 'Откройте страницу активации (ваш адрес там уже указан) и введите ключ:',
    keyIsFor: (to) =>
      `Ключ подходит только для адреса ${to}. ` +
      'Если вы не записывались в лист ожидания OrgNote, просто не обращайте внимания на это письмо.',
    leave: 'Чтобы выйти из листа ожидания и удалить свой адрес, перейдите по ссылке:',
  },
};

export const INVITATION_SUBJECT = TEXTS.en.subject;

/** The activation page of the mail's language, with the address already filled in. */
export function activationPageUrl(
  siteUrl: string,
  email: string,
  language: Language = DEFAULT_LANGUAGE,
): string {
  return `${pageUrl(siteUrl, language, '/activate')}?email=${encodeURIComponent(email)}`;
}

/** The whole message for one address, its key and its leave link. */
export function invitationMail(options: {
  siteUrl: string;
  from: string;
  to: string;
  key: string;
  leaveToken: string;
  language?: Language;
  date?: Date;
}): OutgoingMail {
  const { siteUrl, to, key, leaveToken, language = DEFAULT_LANGUAGE } = options;
  const texts = TEXTS[language];
  return message({
    ...options,
    language,
    subject: texts.subject,
    blocks: [
      { text: texts.hello },
      { text: texts.ready },
      { key },
      { text: texts.open },
      { link: activationPageUrl(siteUrl, to, language) },
      { text: texts.keyIsFor(to) },
      { text: texts.leave },
      { link: leaveUrl(siteUrl, leaveToken, language) },
      { text: SIGNATURE[language] },
    ],
  });
}

/**
 * The invitation of the site's settings, in the signup's language (English when LANGUAGES no
 * longer has it); none without SITE_URL.
 */
export function invitationMailFor(
  config: Pick<Config, 'siteUrl' | 'mailFrom' | 'languages'>,
):
  ((to: string, key: string, leaveToken: string, language?: Language) => OutgoingMail) | undefined {
  const { siteUrl, mailFrom: from } = config;
  if (!siteUrl) return undefined;
  return (to, key, leaveToken, language = DEFAULT_LANGUAGE) =>
    invitationMail({
      siteUrl,
      from,
      to,
      key,
      leaveToken,
      language: mailLanguage(config, language),
    });
}
