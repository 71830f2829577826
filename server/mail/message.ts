// What every mail of the site is made of: paragraphs rendered once as plain text and once as HTML
// (multipart/alternative), a Message-ID at the site's own host, and the RFC 8058 one-click
// unsubscribe headers, whose URL leaves the waitlist. No remote images, no tracking, no links but
// the site's own pages (and the spec's Patreon link in the welcome mail). A mail is written in the
// language its person joined in: its words, its page links (/ru/confirm…) and its HTML's lang.
import { randomUUID } from 'node:crypto';
import {
  LEAVE_PATH,
  ONE_CLICK_FIELD,
  ONE_CLICK_VALUE,
  TOKEN_PARAM,
} from '../../shared/address-links';
import {
  DEFAULT_LANGUAGE,
  languageBase,
  LOCALES,
  type Language,
} from '../../shared/i18n/languages';
import { escapeMarkup } from '../../shared/markup';
import type { Config } from '../config';
import type { OutgoingMail } from '../store/mail-queue';

/** A paragraph: prose, a secret set apart (the key, alone on its line to copy it), or a link. */
export type Block = { text: string } | { key: string } | { link: string };

/** The site's signature line, last in every mail. */
export const SIGNATURE: Record<Language, string> = {
  en: 'OrgNote, notes in org-mode linked the Zettelkasten way',
  ru: 'OrgNote\u00a0— заметки в org-mode, связанные по принципу цеттелькастена',
};

/**
 * The language a mail is written in: the person's, unless LANGUAGES has turned it off since they
 * joined; then English, the language the whole site is in.
 */
export function mailLanguage(config: Pick<Config, 'languages'>, language: Language): Language {
  return config.languages.includes(language) ? language : DEFAULT_LANGUAGE;
}

/** SITE_URL, the language's prefix (/ru) and a page's path: where a mail's link opens. */
export function pageUrl(siteUrl: string, language: Language, path: string): string {
  return `${siteUrl}${languageBase(language)}${path}`;
}

/**
 * True for an address a mail can go to exactly as it is stored: a plain local part (no quotes,
 * commas, semicolons, angle brackets, parentheses, colons or backslashes, which the waitlist's
 * "no whitespace" rule lets through) at a domain. nodemailer reads those characters as address
 * syntax, so 'evil,victim@x.org' would be mailed to victim@x.org.
 */
export function isMailable(address: string): boolean {
  return /^[^\s"(),:;<>@[\\\]]+@[^\s"(),:;<>@[\\\]]+\.[^\s"(),:;<>@[\\\]]+$/.test(address);
}

/**
 * SITE_URL/leave?token=… (/ru/leave… in Russian): the page and the one-click POST that take the
 * address off the waitlist. A mail program may open it rather than POST to it, so it is the page of
 * the mail's own language.
 */
export function leaveUrl(
  siteUrl: string,
  token: string,
  language: Language = DEFAULT_LANGUAGE,
): string {
  return `${pageUrl(siteUrl, language, LEAVE_PATH)}?${TOKEN_PARAM}=${encodeURIComponent(token)}`;
}

function asText(blocks: Block[]): string {
  const line = (block: Block) =>
    'text' in block ? block.text : 'key' in block ? block.key : block.link;
  return `${blocks.map(line).join('\n\n')}\n`;
}

function asHtml(subject: string, blocks: Block[], language: Language): string {
  const paragraph = (block: Block): string => {
    if ('text' in block) return `<p>${escapeMarkup(block.text)}</p>`;
    if ('key' in block)
      return (
        '<p style="font-family:monospace;font-size:1.25em;letter-spacing:0.05em">' +
        `<strong>${escapeMarkup(block.key)}</strong></p>`
      );
    return `<p><a href="${escapeMarkup(block.link)}">${escapeMarkup(block.link)}</a></p>`;
  };
  return (
    `<!DOCTYPE html><html lang="${LOCALES[language].tag}"><head><meta charset="utf-8">` +
    `<title>${escapeMarkup(subject)}</title></head>` +
    '<body style="font-family:sans-serif;line-height:1.5;color:#222">' +
    `${blocks.map(paragraph).join('')}</body></html>`
  );
}

export type MessageOptions = {
  siteUrl: string;
  from: string;
  to: string;
  subject: string;
  /** The token of the leave link every mail carries in List-Unsubscribe. */
  leaveToken: string;
  /** The language the mail is written in (English by default): its links and headers follow. */
  language?: Language;
  date?: Date;
} & (
  | { blocks: Block[] }
  /** Both parts written already (an operator's template: templates.ts). */
  | { text: string; html: string }
);

/**
 * The whole message: both renderings, a fresh Message-ID, and the one-click unsubscribe headers.
 */
export function message(options: MessageOptions): OutgoingMail {
  const { siteUrl, from, to, subject, leaveToken, date = new Date() } = options;
  const language = options.language ?? DEFAULT_LANGUAGE;
  return {
    from,
    to,
    subject,
    ...('blocks' in options
      ? { text: asText(options.blocks), html: asHtml(subject, options.blocks, language) }
      : { text: options.text, html: options.html }),
    messageId: `<${randomUUID()}@${new URL(siteUrl).hostname}>`,
    date: date.toISOString(),
    headers: {
      'List-Unsubscribe': `<${leaveUrl(siteUrl, leaveToken, language)}>`,
      'List-Unsubscribe-Post': `${ONE_CLICK_FIELD}=${ONE_CLICK_VALUE}`,
      // RFC 3282: the language of the words, for screen readers and translating mail programs.
      'Content-Language': LOCALES[language].tag,
    },
  };
}
