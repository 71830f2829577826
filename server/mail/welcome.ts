// The welcome mail (WELCOME_MAIL=on): sent once, when an address becomes waitlisted (on its
// confirmation with CONFIRM_SIGNUPS on, on the signup otherwise). It thanks the person, says what
// happens next and carries the spec's nudge towards Patreon. The operator may word it their own
// way (MAIL_TEMPLATES_DIR, templates.ts), a language at a time; this is the default.
import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from '../../shared/i18n/languages';
import { STATIC_LINKS } from '../../shared/links';
import type { Config } from '../config';
import type { WelcomeMail } from '../store/address-links';
import type { OutgoingMail } from '../store/mail-queue';
import { isMailable, leaveUrl, mailLanguage, message, SIGNATURE } from './message';
import { fillHtml, fillTemplate, parseWelcomeTemplates, type WelcomeTemplates } from './templates';

/**
 * Each language's words, side by side. A paragraph stays on one line in both parts: a mail program
 * wraps it to its reader's width. `leave` is the sentence around the leave link: its words before
 * the link, the words the HTML part makes the link, and the end of the plain-text and HTML lines.
 */
const TEXTS: Record<
  Language,
  {
    subject: string;
    hello: string;
    thanks: string;
    next: string;
    faster: string;
    patreon: string;
    leave: { before: string; link: string; textEnd: string; htmlEnd: string };
    /** The site's address under the signature: its home page in this language. */
    home: string;
  }
> = {
  en: {
    subject: 'Welcome to the OrgNote waitlist',
    hello: 'Hello,',
    thanks: 'Thank you for joining the OrgNote waitlist. Your place is kept.',
    next:
      'What happens next: when your turn comes, we will write to you again with an invitation ' +
      'and an activation key for your free OrgNote subscription. Until then there is nothing you ' +
      'need to do.',
    faster: 'Want to get your invitation faster?',
    patreon: 'Join patreon',
    leave: {
      before: 'If you change your mind, you can ',
      link: 'leave the waitlist and erase your address',
      textEnd: ' here:',
      htmlEnd: '.',
    },
    home: '{{siteUrl}}',
  },
  // Few Latin letters beside the links: SpamAssassin's MIXED_ES takes over 20 Latin "e" among
  // Cyrillic ones for a disguise, so the brand is named in the subject and the signature only.
  ru: {
    subject: 'Вы в листе ожидания OrgNote',
    hello: 'Здравствуйте!',
    thanks: 'Спасибо, что записались! Место в очереди за вами.',
    next:
      'Что дальше: когда подойдёт ваша очередь, мы снова напишем вам\u00a0— пришлём приглашение ' +
      'и ключ активации бесплатной подписки. До тех пор от вас ничего не требуется.',
    faster: 'Хотите получить приглашение раньше?',
    patreon: 'Присоединяйтесь к нам на Patreon',
    leave: {
      before: 'Если передумаете, вы можете ',
      link: 'выйти из листа ожидания и удалить свой адрес',
      textEnd: ' по этой ссылке:',
      htmlEnd: '.',
    },
    home: '{{siteUrl}}/ru/',
  },
};

/** The default templates of one language, written from its words. */
function defaultSources(language: Language): Record<'subject' | 'text' | 'html', string> {
  const t = TEXTS[language];
  const signature = SIGNATURE[language];
  const text = `${t.hello}

${t.thanks}

${t.next}

${t.faster} ${t.patreon}: {{patreonUrl}}

${t.leave.before}${t.leave.link}${t.leave.textEnd}
{{leaveUrl}}

${signature}
${t.home}
`;
  const html = [
    `<!DOCTYPE html><html lang="${language}"><head><meta charset="utf-8">` +
      `<title>${t.subject}</title></head>`,
    '<body style="font-family:sans-serif;line-height:1.5;color:#222">',
    `<p>${t.hello}</p>`,
    `<p>${t.thanks}</p>`,
    `<p>${t.next}</p>`,
    `<p>${t.faster} <a href="{{patreonUrl}}">${t.patreon}</a></p>`,
    `<p>${t.leave.before}<a href="{{leaveUrl}}">${t.leave.link}</a>${t.leave.htmlEnd}</p>`,
    `<p>${signature}<br><a href="${t.home}">${t.home}</a></p>`,
    '</body></html>',
    '',
  ].join('\n');
  return { subject: t.subject, text, html };
}

/**
 * The default templates, parsed as an operator's are, so the default follows the same rules.
 */
export const DEFAULT_WELCOME_TEMPLATES = Object.fromEntries(
  LANGUAGES.map((language) => [language, parseWelcomeTemplates(defaultSources(language))]),
) as Record<Language, WelcomeTemplates>;

export function welcomeMail(options: {
  siteUrl: string;
  from: string;
  to: string;
  leaveToken: string;
  language?: Language;
  /** The operator's wording of this language; its default without. */
  templates?: WelcomeTemplates;
  date?: Date;
}): OutgoingMail {
  const { siteUrl, to, leaveToken, language = DEFAULT_LANGUAGE } = options;
  const templates = options.templates ?? DEFAULT_WELCOME_TEMPLATES[language];
  const values = {
    siteUrl,
    leaveUrl: leaveUrl(siteUrl, leaveToken, language),
    patreonUrl: STATIC_LINKS.donation,
    email: to,
  };
  return message({
    ...options,
    language,
    subject: fillTemplate(templates.subject, values),
    text: fillTemplate(templates.text, values),
    html: fillHtml(templates.html, values),
  });
}

/** The store's WelcomeMail, told the signup's language (English when it is not). */
export type WelcomeComposer = Omit<WelcomeMail, 'compose'> & {
  compose(to: string, leaveToken: string, language?: Language): OutgoingMail;
};

/**
 * The mail the mail worker writes for each signup due one (store: addressLinks.mailWelcomes), in
 * the signup's language and the operator's wording of it if any; undefined unless WELCOME_MAIL is
 * on (config/rules.ts requires SITE_URL then, for its links).
 */
export function welcomeMailFor(
  config: Pick<
    Config,
    'siteUrl' | 'mailFrom' | 'welcomeMail' | 'mailTemplates' | 'backendUrl' | 'languages'
  >,
): WelcomeComposer | undefined {
  const { siteUrl, mailFrom: from, mailTemplates } = config;
  if (!config.welcomeMail || !siteUrl || config.backendUrl) return undefined;
  return {
    canMail: isMailable,
    compose: (to, leaveToken, asked = DEFAULT_LANGUAGE) => {
      const language = mailLanguage(config, asked);
      const templates = mailTemplates?.welcome[language];
      return welcomeMail({ siteUrl, from, to, leaveToken, language, templates });
    },
  };
}
