// The mail /privacy's form sends on request: the link that downloads what the site holds about
// the address (decision 0036). It goes only to an address that is on the list, and the form
// answers the same either way: the mail worker writes it after the answer, as it writes leave
// links (decision 0021). The token rides in the link's fragment, which no browser sends to a
// server, and stands alone below it for a page that runs no script to ask for.
import { DATA_LINK_VALID_HOURS, DATA_PATH } from '../../shared/data-requests';
import { DEFAULT_LANGUAGE, type Language } from '../../shared/i18n/languages';
import type { Config } from '../config';
import type { ComposeDataMail, DataLinkTokens } from '../store/data-requests';
import type { OutgoingMail } from '../store/mail-queue';
import { russianHours } from './confirmation';
import { mailLanguage, message, pageUrl, SIGNATURE, type Block } from './message';

/**
 * Each language's words, side by side: the link comes after `before`, the token alone after
 * `code`.
 */
const TEXTS: Record<
  Language,
  { subject: string; before: string[]; after: (hours: number) => string[]; code: string }
> = {
  en: {
    subject: 'What the OrgNote waitlist holds about you',
    before: [
      'Hello,',
      'Someone asked what the OrgNote waitlist holds about this address. ' +
        'To download it as a file, open:',
    ],
    after: (hours) => [
      `The link works once, for ${hours} hours. The file is downloaded only when you press ` +
        'the button on the page. If you did not ask, you can ignore this message.',
    ],
    code: 'If the page asks you for a code, enter this one:',
  },
  ru: {
    subject: 'Что лист ожидания OrgNote хранит о вас',
    before: [
      'Здравствуйте!',
      'Кто-то попросил показать, что лист ожидания OrgNote хранит об этом адресе. ' +
        'Скачать эти данные файлом можно по ссылке:',
    ],
    after: (hours) => [
      `Ссылка действует ${russianHours(hours)} и сработает один раз. Файл скачается, только ` +
        'когда вы нажмёте кнопку на странице. Если вы ничего не запрашивали, просто не обращайте ' +
        'внимания на это письмо.',
    ],
    code: 'Если страница попросит код, введите этот:',
  },
};

export const DATA_LINK_SUBJECT = TEXTS.en.subject;

/**
 * SITE_URL/privacy/data#<token> (/ru/privacy/data#… in Russian): the fragment never reaches a
 * server, so neither the site nor a proxy in front of it can log the token.
 */
export function dataUrl(siteUrl: string, token: string, language: Language = DEFAULT_LANGUAGE) {
  return `${pageUrl(siteUrl, language, DATA_PATH)}#${token}`;
}

export function dataLinkMail(options: {
  siteUrl: string;
  from: string;
  to: string;
  tokens: DataLinkTokens;
  language?: Language;
  date?: Date;
}): OutgoingMail {
  const { siteUrl, tokens, language = DEFAULT_LANGUAGE } = options;
  const texts = TEXTS[language];
  const paragraphs = (lines: string[]): Block[] => lines.map((text) => ({ text }));
  return message({
    ...options,
    language,
    subject: texts.subject,
    leaveToken: tokens.leave,
    blocks: [
      ...paragraphs(texts.before),
      { link: dataUrl(siteUrl, tokens.data, language) },
      ...paragraphs(texts.after(DATA_LINK_VALID_HOURS)),
      { text: texts.code },
      { key: tokens.data },
      { text: SIGNATURE[language] },
    ],
  });
}

/**
 * The data-link mail of the site's settings, in the signup's language (English when LANGUAGES no
 * longer has it); none without SITE_URL (a link needs its origin).
 */
export function dataLinkMailFor(
  config: Pick<Config, 'siteUrl' | 'mailFrom' | 'languages'>,
): ComposeDataMail | undefined {
  const { siteUrl, mailFrom: from } = config;
  if (!siteUrl) return undefined;
  return (to, tokens, language = DEFAULT_LANGUAGE) =>
    dataLinkMail({ siteUrl, from, to, tokens, language: mailLanguage(config, language) });
}
