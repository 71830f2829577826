// The welcome mail (WELCOME_MAIL=on): sent once, when an address becomes waitlisted (on its
// confirmation with CONFIRM_SIGNUPS on, on the signup otherwise). It thanks the person, says what
// happens next and carries the spec's nudge towards Patreon. The operator may word it their own
// way (MAIL_TEMPLATES_DIR, templates.ts); this is the default.
import { STATIC_LINKS } from '../../shared/links';
import type { Config } from '../config';
import type { WelcomeMail } from '../store/address-links';
import type { OutgoingMail } from '../store/mail-queue';
import { isMailable, leaveUrl, message } from './message';
import { fillHtml, fillTemplate, parseWelcomeTemplates, type WelcomeTemplates } from './templates';

const SUBJECT = 'Welcome to the OrgNote waitlist';

/** One paragraph on one line, in both parts: a mail program wraps it to its reader's width. */
const NEXT =
  'What happens next: when your turn comes, we will write to you again with an invitation and an ' +
  'activation key for your free OrgNote subscription. Until then there is nothing you need to do.';

const TEXT = `Hello,

Thank you for joining the OrgNote waitlist. Your place is kept.

${NEXT}

Want to get your invitation faster? Join patreon: {{patreonUrl}}

If you change your mind, you can leave the waitlist and erase your address here:
{{leaveUrl}}

OrgNote, notes in org-mode linked the Zettelkasten way
{{siteUrl}}
`;

const HTML = [
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${SUBJECT}</title></head>`,
  '<body style="font-family:sans-serif;line-height:1.5;color:#222">',
  '<p>Hello,</p>',
  '<p>Thank you for joining the OrgNote waitlist. Your place is kept.</p>',
  `<p>${NEXT}</p>`,
  '<p>Want to get your invitation faster? <a href="{{patreonUrl}}">Join patreon</a></p>',
  '<p>If you change your mind, you can ' +
    '<a href="{{leaveUrl}}">leave the waitlist and erase your address</a>.</p>',
  '<p>OrgNote, notes in org-mode linked the Zettelkasten way<br>' +
    '<a href="{{siteUrl}}">{{siteUrl}}</a></p>',
  '</body></html>',
  '',
].join('\n');

/** The default templates, parsed as an operator's are, so the default follows the same rules. */
export const DEFAULT_WELCOME_TEMPLATES: WelcomeTemplates = parseWelcomeTemplates({
  subject: SUBJECT,
  text: TEXT,
  html: HTML,
});

export function welcomeMail(options: {
  siteUrl: string;
  from: string;
  to: string;
  leaveToken: string;
  templates?: WelcomeTemplates;
  date?: Date;
}): OutgoingMail {
  const { siteUrl, to, leaveToken, templates = DEFAULT_WELCOME_TEMPLATES } = options;
  const values = {
    siteUrl,
    leaveUrl: leaveUrl(siteUrl, leaveToken),
    patreonUrl: STATIC_LINKS.donation,
    email: to,
  };
  return message({
    ...options,
    subject: fillTemplate(templates.subject, values),
    text: fillTemplate(templates.text, values),
    html: fillHtml(templates.html, values),
  });
}

/**
 * The mail the mail worker writes for each signup due one (store: addressLinks.mailWelcomes);
 * undefined unless WELCOME_MAIL is on (config/rules.ts requires SITE_URL then, for its links).
 */
export function welcomeMailFor(
  config: Pick<Config, 'siteUrl' | 'mailFrom' | 'welcomeMail' | 'mailTemplates' | 'backendUrl'>,
): WelcomeMail | undefined {
  const { siteUrl, mailFrom: from, mailTemplates } = config;
  if (!config.welcomeMail || !siteUrl || config.backendUrl) return undefined;
  const templates = mailTemplates?.welcome;
  return {
    canMail: isMailable,
    compose: (to, leaveToken) => welcomeMail({ siteUrl, from, to, leaveToken, templates }),
  };
}
