// Rules between settings, checked once each one is valid on its own: a setting that needs
// another, two that must differ, two that cannot go together.
import type { Declared, Settings } from './settings';

/** Rules between settings, checked once each one is valid on its own. */
export const RULES: {
  setting: keyof Declared;
  message: string;
  holds: (s: Settings) => boolean;
}[] = [
  // Headers must outlast an idle keep-alive connection (or a proxy reusing it races the close),
  // and a whole request gets at least as long as its headers.
  {
    setting: 'headersTimeoutMs',
    message: 'must be above KEEP_ALIVE_TIMEOUT_MS',
    holds: (s) => s.headersTimeoutMs > s.keepAliveTimeoutMs,
  },
  {
    setting: 'requestTimeoutMs',
    message: 'must be at least HEADERS_TIMEOUT_MS',
    holds: (s) => s.requestTimeoutMs >= s.headersTimeoutMs,
  },
  // The public port must never answer /metrics.
  {
    setting: 'metricsPort',
    message: 'must differ from PORT',
    holds: (s) => s.metricsPort === undefined || s.metricsPort !== s.port,
  },
  // The confirmation link is SITE_URL/confirm?token=…; a link built from a request's Host header
  // would let anyone send a victim's token to their own host.
  {
    setting: 'confirmSignups',
    message: 'on needs SITE_URL (the confirmation link points there)',
    holds: (s) => !s.confirmSignups || s.siteUrl !== undefined,
  },
  // The welcome mail's leave link needs the site's own origin too; with BACKEND_URL the backend
  // owns the signups, and the site never learns when an address joins.
  {
    setting: 'welcomeMail',
    message: 'on needs SITE_URL (the leave link in the mail points there)',
    holds: (s) => !s.welcomeMail || s.siteUrl !== undefined,
  },
  {
    setting: 'welcomeMail',
    message: 'on needs the site to keep the signups (BACKEND_URL unset)',
    holds: (s) => !s.welcomeMail || s.backendUrl === undefined,
  },
  // Without SMTP_URL the site's mail is only written to DATA_DIR/mail, where nobody reads it: a
  // confirmation there never reaches its address, whose signup is then erased. Files must be
  // asked for. With BACKEND_URL the site mails no confirmation or welcome at all.
  {
    setting: 'confirmSignups',
    message:
      'on needs SMTP_URL (or SMTP_URL_FILE) to send the confirmation mail: without it the mail ' +
      'is only written to DATA_DIR/mail, and signups left unconfirmed are erased after ' +
      'CONFIRM_WITHIN_HOURS; set MAIL_TO_FILES=on if files are meant',
    holds: (s) => !s.confirmSignups || s.backendUrl !== undefined || mailSetUp(s),
  },
  {
    setting: 'welcomeMail',
    message:
      'on needs SMTP_URL (or SMTP_URL_FILE) to send the welcome mail: without it the mail is ' +
      'only written to DATA_DIR/mail; set MAIL_TO_FILES=on if files are meant',
    holds: (s) => !s.welcomeMail || s.backendUrl !== undefined || mailSetUp(s),
  },
  {
    setting: 'mailToFiles',
    message: 'on keeps mail in DATA_DIR/mail instead of sending it, but SMTP_URL is set: unset one',
    holds: (s) => !s.mailToFiles || s.smtpUrl === undefined,
  },
  // A key without a selector (or the reverse) signs nothing a verifier could check.
  {
    setting: 'dkimSelector',
    message: 'must be set with DKIM_PRIVATE_KEY_FILE',
    holds: (s) => s.dkimPrivateKey === undefined || s.dkimSelector !== undefined,
  },
  {
    setting: 'dkimPrivateKey',
    message: 'must be set with DKIM_SELECTOR',
    holds: (s) => s.dkimSelector === undefined || s.dkimPrivateKey !== undefined,
  },
  {
    setting: 'dkimDomain',
    message: 'needs DKIM_PRIVATE_KEY_FILE and DKIM_SELECTOR',
    holds: (s) => s.dkimDomain === undefined || s.dkimPrivateKey !== undefined,
  },
];

/** Mail is set up: sent through SMTP_URL, or kept as .eml files on purpose (MAIL_TO_FILES). */
function mailSetUp(s: Settings): boolean {
  return s.smtpUrl !== undefined || s.mailToFiles;
}
