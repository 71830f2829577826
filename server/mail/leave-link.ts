// The mail /leave sends on request: the link to take the address off the waitlist. It goes only to
// an address that is on the list, and the page answers the same either way: the mail worker
// writes it after the answer (decision 0021).
import { DEFAULT_LANGUAGE, type Language } from '../../shared/i18n/languages';
import type { Config } from '../config';
import type { OutgoingMail } from '../store/mail-queue';
import { leaveUrl, mailLanguage, message, SIGNATURE } from './message';

/** Each language's words, side by side; the link comes between the second and third paragraph. */
const TEXTS: Record<Language, { subject: string; before: string[]; after: string[] }> = {
  en: {
    subject: 'Your link to leave the OrgNote waitlist',
    before: [
      'Hello,',
      'Someone asked for a link to take this address off the OrgNote waitlist. ' +
        'To leave and erase it, open:',
    ],
    after: [
      'The page asks you once more before anything is erased. ' +
        'If you did not ask, you can ignore this message.',
    ],
  },
  ru: {
    subject: 'Ссылка для выхода из листа ожидания OrgNote',
    before: [
      'Здравствуйте!',
      'Кто-то попросил ссылку, чтобы убрать этот адрес из листа ожидания OrgNote. ' +
        'Выйти из листа и удалить адрес можно здесь:',
    ],
    after: [
      'Перед удалением страница ещё раз спросит, уверены ли вы. ' +
        'Если ссылку запрашивали не вы, просто не обращайте внимания на это письмо.',
    ],
  },
};

export const LEAVE_LINK_SUBJECT = TEXTS.en.subject;

export function leaveLinkMail(options: {
  siteUrl: string;
  from: string;
  to: string;
  leaveToken: string;
  language?: Language;
  date?: Date;
}): OutgoingMail {
  const { siteUrl, leaveToken, language = DEFAULT_LANGUAGE } = options;
  const texts = TEXTS[language];
  return message({
    ...options,
    language,
    subject: texts.subject,
    blocks: [
      ...texts.before.map((text) => ({ text })),
      { link: leaveUrl(siteUrl, leaveToken, language) },
      ...texts.after.map((text) => ({ text })),
      { text: SIGNATURE[language] },
    ],
  });
}

/**
 * The leave-link mail of the site's settings, in the language the link was asked for in (English
 * when LANGUAGES no longer has it); none without SITE_URL (a link needs its origin).
 */
export function leaveLinkMailFor(
  config: Pick<Config, 'siteUrl' | 'mailFrom' | 'languages'>,
): ((to: string, leaveToken: string, language?: Language) => OutgoingMail) | undefined {
  const { siteUrl, mailFrom: from } = config;
  if (!siteUrl) return undefined;
  return (to, leaveToken, language = DEFAULT_LANGUAGE) =>
    leaveLinkMail({ siteUrl, from, to, leaveToken, language: mailLanguage(config, language) });
}
