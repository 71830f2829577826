// The confirmation mail of double opt-in (CONFIRM_SIGNUPS=on): one link that opens a page with one
// button; only that button's POST confirms, so a mail scanner following the link confirms nothing.
import { CONFIRM_PATH, TOKEN_PARAM } from '../../shared/address-links';
import { DEFAULT_LANGUAGE, type Language } from '../../shared/i18n/languages';
import type { Config } from '../config';
import type { ConfirmationMail, ConfirmationTokens } from '../store/address-links';
import type { OutgoingMail } from '../store/mail-queue';
import { isMailable, mailLanguage, message, pageUrl, SIGNATURE, type Block } from './message';

/** Russian says '1 час', '3 часа', '72 часа', '5 часов': Intl knows which form a number takes. */
const RUSSIAN_HOURS: Partial<Record<Intl.LDMLPluralRule, string>> = {
  one: 'час',
  few: 'часа',
  many: 'часов',
};
const russianPlural = new Intl.PluralRules('ru');
export const russianHours = (hours: number) =>
  `${hours}\u00a0${RUSSIAN_HOURS[russianPlural.select(hours)] ?? 'часа'}`;

/** Each language's words, side by side; the link comes between the second and third paragraph. */
const TEXTS: Record<
  Language,
  { subject: string; before: string[]; after: (validHours: number) => string[] }
> = {
  en: {
    subject: 'Confirm your address for the OrgNote waitlist',
    before: [
      'Hello,',
      'Someone, hopefully you, put this address on the OrgNote waitlist. ' +
        'To keep your place, confirm it here:',
    ],
    after: (validHours) => [
      `The link works for ${validHours} hours. If you do nothing, the address is erased ` +
        'then, and we will not write again. If you did not join, you can ignore this message.',
    ],
  },
  ru: {
    subject: 'Подтвердите запись в лист ожидания OrgNote',
    before: [
      'Здравствуйте!',
      'Кто-то (надеемся, что вы) записал этот адрес в лист ожидания OrgNote. ' +
        'Чтобы сохранить за собой место, подтвердите адрес по ссылке:',
    ],
    after: (validHours) => [
      `Ссылка действует ${russianHours(validHours)}. Если не подтвердить адрес за это время, ` +
        'мы его удалим и больше не побеспокоим. Если вы не записывались, просто не обращайте ' +
        'внимания на это письмо.',
    ],
  },
};

export const CONFIRMATION_SUBJECT = TEXTS.en.subject;

/** The store's ConfirmationMail, told the signup's language (English when it is not). */
export type ConfirmationComposer = Omit<ConfirmationMail, 'compose'> & {
  compose(to: string, tokens: ConfirmationTokens, language?: Language): OutgoingMail;
};

/** SITE_URL/confirm?token=…, or /ru/confirm?… for a Russian mail. */
export function confirmUrl(
  siteUrl: string,
  token: string,
  language: Language = DEFAULT_LANGUAGE,
): string {
  return `${pageUrl(siteUrl, language, CONFIRM_PATH)}?${TOKEN_PARAM}=${encodeURIComponent(token)}`;
}

export function confirmationMail(options: {
  siteUrl: string;
  from: string;
  to: string;
  tokens: ConfirmationTokens;
  validHours: number;
  language?: Language;
  date?: Date;
}): OutgoingMail {
  const { siteUrl, tokens, validHours, language = DEFAULT_LANGUAGE } = options;
  const texts = TEXTS[language];
  const paragraphs = (lines: string[]): Block[] => lines.map((text) => ({ text }));
  return message({
    ...options,
    language,
    subject: texts.subject,
    leaveToken: tokens.leave,
    blocks: [
      ...paragraphs(texts.before),
      { link: confirmUrl(siteUrl, tokens.confirm, language) },
      ...paragraphs(texts.after(validHours)),
      { text: SIGNATURE[language] },
    ],
  });
}

/**
 * The mail the mail worker writes for each signup due one (store: addressLinks.mailConfirmations),
 * in the signup's language; undefined without SITE_URL.
 */
export function confirmationMailFor(
  config: Pick<Config, 'siteUrl' | 'mailFrom' | 'confirmWithinMs' | 'languages'>,
): ConfirmationComposer | undefined {
  const { siteUrl, mailFrom: from, confirmWithinMs: validMs } = config;
  if (!siteUrl) return undefined;
  const validHours = Math.round(validMs / 3_600_000);
  return {
    validMs,
    canMail: isMailable,
    compose: (to, tokens, language = DEFAULT_LANGUAGE) =>
      confirmationMail({
        siteUrl,
        from,
        to,
        tokens,
        validHours,
        language: mailLanguage(config, language),
      }),
  };
}
