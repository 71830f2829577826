// The settings table: each setting declared once, with its variable, its default as written in
// the environment, its parser (parsers.ts) and one line of doc. `Config` is inferred from these
// declarations (derived.ts), and test/server/config-readme.test.ts keeps README's table and
// docs/configuration.md in step with them.
import { z } from 'zod';
import {
  apiToken,
  basicCredentials,
  databaseUrl,
  directory,
  dnsName,
  domainList,
  ecPublicKey,
  hours,
  httpUrl,
  integer,
  languageList,
  LOG_LEVELS,
  mailbox,
  nonEmpty,
  onOff,
  originList,
  parseTrustProxy,
  privateKeyFile,
  smtpUrl,
  templatesDir,
  topicArnList,
} from './parsers';

export interface Setting<T> {
  /** The environment variable it is read from. */
  env: string;
  /**
   * As it would be written in the environment; undefined: unset. An empty variable counts as unset.
   */
  default: string | undefined;
  parse: z.ZodType<T>;
  /** One line for operators (docs/configuration.md says more). */
  doc: string;
  /**
   * What README shows as the default when another setting decides it (the value stays unset here).
   */
  derivedDefault?: string;
  /** A secret: it may come from the file its `_FILE` variable names instead (see `secret`). */
  secret?: boolean;
}

const UNSET = undefined;

/** One row of the table below; keeps the parsed type, so `Config` can be inferred from the rows. */
function setting<T>(
  env: string,
  defaultValue: string | undefined,
  parse: z.ZodType<T>,
  doc: string,
  derivedDefault?: string,
): Setting<T> {
  return { env, default: defaultValue, parse, doc, derivedDefault };
}

/**
 * Marks a setting as a secret. As in the official images (postgres, mysql), `<VARIABLE>_FILE` may
 * name a file holding its value instead, such as a Docker secret: then `docker inspect` and
 * /proc/<pid>/environ show a path, not the secret.
 */
function secret<T>(declared: Setting<T>): Setting<T> {
  return { ...declared, secret: true };
}

/** The variable that names a file holding this secret's value. */
export function fileVariable(declared: { env: string }): string {
  return `${declared.env}_FILE`;
}

/** 1 GiB: the free subscription's storage in the OrgNote web app. */
const FREE_SPACE_BYTES = 1024 ** 3;

// key (what the value is for): setting(variable, default as written there, parser, one line of
// doc).
export const SETTINGS = {
  port: setting('PORT', '3000', integer(0, 65535), 'Port to listen on.'),
  host: setting('HOST', '0.0.0.0', nonEmpty, 'Address to listen on.'),
  backendUrl: setting(
    'BACKEND_URL',
    UNSET,
    httpUrl.optional(),
    'The subscription service /api is proxied to; unset: the site answers /api itself.',
  ),
  webAppUrl: setting(
    'WEB_APP_URL',
    'https://org-note.com',
    httpUrl,
    'The online web app; seen by the browser (as is PRIVACY_CONTACT).',
  ),
  siteUrl: setting(
    'SITE_URL',
    UNSET,
    httpUrl.optional(),
    "This site's public address, for canonical links, sitemap and cards; unset: the request's.",
  ),
  dataDir: setting('DATA_DIR', './data', directory, 'Where SQLite and .eml files are kept.'),
  trustProxy: setting(
    'TRUST_PROXY',
    'loopback',
    nonEmpty.transform(parseTrustProxy),
    "Whose X-Forwarded-* headers are believed (Express 'trust proxy').",
  ),
  backendTimeoutMs: setting(
    'UPSTREAM_TIMEOUT_MS',
    '10000',
    integer(1, 600_000),
    'How long a call to the backend may take.',
  ),
  databaseTimeoutMs: setting(
    'DATABASE_TIMEOUT_MS',
    '10000',
    integer(1, 600_000),
    'How long a PostgreSQL call, or /readyz asking the store, may take.',
  ),
  logLevel: setting('LOG_LEVEL', 'info', z.enum(LOG_LEVELS), 'Lowest level written to the log.'),
  signupRateLimit: setting(
    'SIGNUP_RATE_LIMIT',
    '10',
    integer(0, 100_000),
    'Form submissions per client IP per minute; 0 turns the limit off.',
  ),
  keepAliveTimeoutMs: setting(
    'KEEP_ALIVE_TIMEOUT_MS',
    '65000',
    integer(1, 600_000),
    'Idle keep-alive connections close after this.',
  ),
  headersTimeoutMs: setting(
    'HEADERS_TIMEOUT_MS',
    '66000',
    integer(1, 600_000),
    'A client must send complete headers within this (slow-loris).',
  ),
  requestTimeoutMs: setting(
    'REQUEST_TIMEOUT_MS',
    '120000',
    integer(1, 3_600_000),
    'A client must send the whole request within this.',
  ),
  allowedOrigins: setting(
    'ALLOWED_ORIGINS',
    '',
    originList,
    "Other sites' origins whose pages may post our forms.",
  ),
  pageCacheSeconds: setting(
    'PAGE_CACHE_SECONDS',
    '300',
    integer(0, 31_536_000),
    'How long a shared cache may keep a page the same for everyone (with SITE_URL set).',
  ),
  smtpUrl: secret(
    setting(
      'SMTP_URL',
      UNSET,
      smtpUrl.optional(),
      'Where mail goes out (smtp:// requires STARTTLS off loopback unless ?tls=optional); ' +
        'unset: .eml files under DATA_DIR/mail.',
    ),
  ),
  mailToFiles: setting(
    'MAIL_TO_FILES',
    'off',
    onOff,
    'on: without SMTP_URL, mail is meant to stay .eml files under DATA_DIR/mail.',
  ),
  smtpTimeoutMs: setting(
    'SMTP_TIMEOUT_MS',
    '30000',
    integer(1_000, 600_000),
    'How long the mail server may stay silent in a send; a claimed mail is held 3 × this + 5 s ' +
      'at a time, renewed while it is sent.',
  ),
  mailFrom: setting(
    'MAIL_FROM',
    UNSET,
    mailbox.optional(),
    'The From of invitations.',
    'OrgNote <no-reply@host>',
  ),
  dkimPrivateKey: setting(
    'DKIM_PRIVATE_KEY_FILE',
    UNSET,
    privateKeyFile.optional(),
    'PEM file of the RSA key that DKIM-signs every message; with DKIM_SELECTOR.',
  ),
  dkimSelector: setting(
    'DKIM_SELECTOR',
    UNSET,
    dnsName.optional(),
    'The DKIM selector its public key is published under; with DKIM_PRIVATE_KEY_FILE.',
  ),
  dkimDomain: setting(
    'DKIM_DOMAIN',
    UNSET,
    dnsName.optional(),
    'The domain mail is signed for (d=).',
    'MAIL_FROM',
  ),
  languages: setting(
    'LANGUAGES',
    'en,ru',
    languageList,
    "The site's languages, comma-separated: en (always served) and ru (pages under /ru/, mail in " +
      'Russian to those who joined there). en alone: /ru/ answers 404 and every mail is English.',
  ),
  confirmSignups: setting(
    'CONFIRM_SIGNUPS',
    'off',
    onOff,
    'on: a new signup stays unconfirmed until its address follows the link mailed to it.',
  ),
  webhooksAllowPrivate: setting(
    'WEBHOOKS_ALLOW_PRIVATE',
    'off',
    onOff,
    'on: webhook endpoints may be private or loopback addresses, over plain http too.',
  ),
  proofOfWork: setting(
    'PROOF_OF_WORK',
    'off',
    onOff,
    'on: the API takes a signup only with a solved proof-of-work challenge, the plain form only ' +
      'with a signed issue time.',
  ),
  proofOfWorkMaxNumber: setting(
    'PROOF_OF_WORK_MAX_NUMBER',
    '12000',
    integer(1_000, 100_000_000),
    'How hard a proof-of-work challenge is: the browser tries up to this many SHA-256 hashes, ' +
      'half on average.',
  ),
  disposableAddresses: setting(
    'DISPOSABLE_ADDRESSES',
    'refuse',
    z.enum(['refuse', 'allow']),
    'refuse: addresses at a throwaway domain (the disposable-email-domains list) cannot join.',
  ),
  blockedEmailDomains: setting(
    'BLOCKED_EMAIL_DOMAINS',
    '',
    domainList,
    'Domains whose addresses cannot join, their subdomains too (comma-separated).',
  ),
  allowedEmailDomains: setting(
    'ALLOWED_EMAIL_DOMAINS',
    '',
    domainList,
    'Set: only addresses at these domains and their subdomains can join (comma-separated).',
  ),
  welcomeMail: setting(
    'WELCOME_MAIL',
    'off',
    onOff,
    'on: an address gets a welcome mail once, when it joins the waitlist (or confirms); ' +
      'needs SITE_URL.',
  ),
  mailTemplates: setting(
    'MAIL_TEMPLATES_DIR',
    UNSET,
    templatesDir.optional(),
    "A folder of the operator's own mail templates (welcome.subject, welcome.txt, welcome.html): " +
      'flat for English, or one folder a language (en/, ru/).',
  ),
  confirmWithinMs: setting(
    'CONFIRM_WITHIN_HOURS',
    '72',
    hours(1, 24 * 365),
    'An address still unconfirmed this long after its last confirmation mail is erased.',
  ),
  backupRetentionDays: setting(
    'BACKUP_RETENTION_DAYS',
    '7',
    integer(1, 3650),
    'Days a backup copy is kept before it is pruned (deploy/: BACKUP_INTERVAL × BACKUP_KEEP); ' +
      '/privacy tells people an erased address lasts that long in older backups.',
  ),
  privacyContact: setting(
    'PRIVACY_CONTACT',
    UNSET,
    mailbox.optional(),
    'Who visitors write to about their data (/privacy); seen by the browser.',
    'MAIL_FROM',
  ),
  subscriptionApiToken: secret(
    setting(
      'SUBSCRIPTION_API_TOKEN',
      UNSET,
      apiToken.optional(),
      'What the OrgNote backend sends to ask about subscriptions.',
    ),
  ),
  spaceLimitBytes: setting(
    'SPACE_LIMIT_BYTES',
    String(FREE_SPACE_BYTES),
    integer(0, Number.MAX_SAFE_INTEGER),
    'Storage of a free subscription (spaceLimit).',
  ),
  databaseUrl: secret(
    setting(
      'DATABASE_URL',
      UNSET,
      databaseUrl.optional(),
      'PostgreSQL shared by every replica; unset: SQLite under DATA_DIR.',
    ),
  ),
  databaseConnectSeconds: setting(
    'DATABASE_CONNECT_SECONDS',
    '30',
    integer(0, 3_600),
    'How long start-up waits for PostgreSQL.',
  ),
  outboxMaxItems: setting(
    'OUTBOX_MAX_ITEMS',
    '100000',
    integer(1, 100_000_000),
    'Signups waiting for the backend at most; past it a new one gets 503.',
  ),
  mailMaxItems: setting(
    'MAIL_QUEUE_MAX_ITEMS',
    '100000',
    integer(1, 100_000_000),
    'Mail waiting to be sent at most, and /leave requests waiting for the mail worker.',
  ),
  queueMaxAgeMs: setting(
    'QUEUE_MAX_AGE_HOURS',
    '168',
    hours(1, 24 * 365),
    'A queued item still failing after this long is set aside as dead.',
  ),
  // Bounces and complaints from the mail provider (docs/operating.md, "Bounces and complaints"):
  // each endpoint answers 404 until its setting is there.
  bounceSesTopicArns: setting(
    'BOUNCE_SES_TOPIC_ARNS',
    UNSET,
    topicArnList.optional(),
    'SNS topics whose SES bounces and complaints POST /bounces/ses takes; unset: off.',
  ),
  bouncePostmarkAuth: secret(
    setting(
      'BOUNCE_POSTMARK_AUTH',
      UNSET,
      basicCredentials.optional(),
      "user:password of Postmark's webhook URL for POST /bounces/postmark; unset: off.",
    ),
  ),
  bounceSendgridPublicKey: setting(
    'BOUNCE_SENDGRID_PUBLIC_KEY',
    UNSET,
    ecPublicKey.optional(),
    "SendGrid's Signed Event Webhook verification key for POST /bounces/sendgrid; unset: off.",
  ),
  bounceMailgunSigningKey: secret(
    setting(
      'BOUNCE_MAILGUN_SIGNING_KEY',
      UNSET,
      nonEmpty.optional(),
      "Mailgun's HTTP webhook signing key for POST /bounces/mailgun; unset: off.",
    ),
  ),
  bounceResendSecret: secret(
    setting(
      'BOUNCE_RESEND_SECRET',
      UNSET,
      z
        .string()
        .regex(/^whsec_[A-Za-z0-9+/=]+$/, 'must be whsec_ and base64')
        .optional(),
      "Resend's webhook signing secret (whsec_…) for POST /bounces/resend; unset: off.",
    ),
  ),
  metricsPort: setting(
    'METRICS_PORT',
    UNSET,
    integer(1, 65535).optional(),
    'Where Prometheus scrapes /metrics (a second listener); unset: none.',
  ),
  // Loopback by default: the listener has no login, and queue depths and traffic are nobody else's
  // business.
  metricsHost: setting(
    'METRICS_HOST',
    '127.0.0.1',
    nonEmpty,
    "The metrics listener's address; keep it private.",
  ),
};

export type Declared = typeof SETTINGS;
export type Settings = { [K in keyof Declared]: Declared[K] extends Setting<infer T> ? T : never };
