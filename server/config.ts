// The one place that reads process.env: every setting is validated once at start-up, with a
// message that names the variable, and handed to the rest of the server as a typed object.
// Each setting is declared once below (variable, default, parser, one line of doc); `Config` is
// inferred from those declarations, and test/server/config-readme.test.ts keeps README's table
// in step with them.
import { createPrivateKey, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { domainToASCII } from 'node:url';
import { z } from 'zod';
import type { PublicConfig } from '../shared/public-config';
import { loadWelcomeTemplates, TemplateError } from './mail/templates';

interface Setting<T> {
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

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const integer = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** Written in hours, used in milliseconds. */
const hours = (min: number, max: number) => integer(min, max).transform((h) => h * 3_600_000);

const nonEmpty = z.string().trim().min(1);

const onOff = z.enum(['on', 'off']).transform((value) => value === 'on');

const directory = nonEmpty.transform((dir) => path.resolve(dir));

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

const httpUrl = z
  .string()
  .trim()
  .refine(
    (value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol),
    'must be an http(s) URL',
  )
  .transform(withoutTrailingSlash);

/** Comma-separated http(s) origins, each kept as its serialised origin. */
const originList = z.string().transform((value, ctx) => {
  const origins: string[] = [];
  for (const item of value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const url = URL.canParse(item) ? new URL(item) : undefined;
    if (!url || !/^https?:$/.test(url.protocol) || url.origin !== item.replace(/\/+$/, '')) {
      ctx.addIssue({ code: 'custom', message: `not an origin (scheme://host[:port]): ${item}` });
      return z.NEVER;
    }
    origins.push(url.origin);
  }
  return origins;
});

/** smtp:// (STARTTLS required off loopback; ?tls= says otherwise) or smtps:// (TLS at once). */
const smtpUrl = z
  .string()
  .trim()
  .refine(
    (value) =>
      URL.canParse(value) &&
      /^smtps?:$/.test(new URL(value).protocol) &&
      new URL(value).hostname !== '',
    'must be an smtp:// or smtps:// URL (percent-encode / ? # @ : in the user or password)',
  )
  .refine(
    (value) =>
      !URL.canParse(value) ||
      [null, 'optional', 'required'].includes(new URL(value).searchParams.get('tls')),
    'its ?tls= must be optional or required',
  );

/** 'address' or 'Name <address>'. */
const mailbox = z
  .string()
  .trim()
  .regex(
    /^(?:[^<>\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/,
    "must be an address or 'Name <address>'",
  );

/** postgres:// or postgresql://, with a host and a database. */
const databaseUrl = z
  .string()
  .trim()
  .refine(
    (value) =>
      URL.canParse(value) &&
      /^postgres(ql)?:$/.test(new URL(value).protocol) &&
      new URL(value).hostname !== '',
    'must be a postgres:// URL (percent-encode / ? # @ : in the user or password)',
  );

/** Express 'trust proxy': true/false, a hop count, or addresses/subnets/names like 'loopback'. */
function parseTrustProxy(value: string): boolean | number | string {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

/**
 * A PEM file holding the RSA private key that signs mail (DKIM), read and parsed here once, so a
 * wrong path or a wrong file stops start-up rather than the first send. Messages never quote the
 * file's content. RSA only: nodemailer signs rsa-sha256, the one algorithm every verifier knows.
 */
const privateKeyFile = nonEmpty.transform((file, ctx): KeyObject => {
  const fail = (message: string) => {
    ctx.addIssue({ code: 'custom', message });
    return z.NEVER;
  };
  let pem: Buffer;
  try {
    pem = fs.readFileSync(path.resolve(file));
  } catch (err) {
    return fail(`cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch {
    return fail(`${file} is not a PEM private key (without a passphrase)`);
  }
  // Verifiers ignore signatures made with keys under 1024 bits (RFC 8301, section 3.2).
  if (key.asymmetricKeyType !== 'rsa' || (key.asymmetricKeyDetails?.modulusLength ?? 0) < 1024) {
    return fail(`${file} must hold an RSA key of at least 1024 bits (2048 advised)`);
  }
  return key;
});

/** A DNS name such as a DKIM selector or a domain: letters, digits, hyphens, dots, underscores. */
const dnsName = z
  .string()
  .trim()
  .toLowerCase()
  .regex(
    /^[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]*[a-z0-9_])?)*$/,
    'must be a DNS name (letters, digits, hyphens, dots)',
  );

/**
 * A domain as the bot guard compares them (server/guard/domains.ts): lower case, no trailing dot,
 * an IDN in its ASCII (punycode) form; '' for what is no domain.
 */
export function asciiDomain(name: string): string {
  return domainToASCII(name.trim().toLowerCase().replace(/\.+$/, ''));
}

/** Comma-separated email domains (example.com, bücher.de), kept as asciiDomain gives them. */
const domainList = z.string().transform((value, ctx) => {
  const domains: string[] = [];
  for (const item of value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)) {
    const domain = asciiDomain(item);
    if (!/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/.test(domain)) {
      ctx.addIssue({ code: 'custom', message: `not a domain such as example.com: ${item}` });
      return z.NEVER;
    }
    domains.push(domain);
  }
  return domains;
});

/**
 * The operator's mail templates, read and checked here once (mail/templates.ts), so a missing file
 * or a typo in a placeholder stops start-up with the file's name rather than the first mail.
 */
const templatesDir = directory.transform((dir, ctx) => {
  try {
    return { dir, welcome: loadWelcomeTemplates(dir) };
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err;
    ctx.addIssue({ code: 'custom', message: err.message });
    return z.NEVER;
  }
});

// Long enough that guessing it is hopeless; it is compared in constant time all the same.
const apiToken = z
  .string()
  .trim()
  .min(16, 'must be at least 16 characters')
  .regex(/^\S+$/, 'must not contain whitespace (it travels in one header word)');

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
      'Where mail goes out (smtp:// requires STARTTLS off loopback unless ?tls=optional); unset: .eml files under DATA_DIR/mail.',
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
    'How long the mail server may stay silent in a send; a claimed mail is held 3 × this + 5 s at a time, renewed while it is sent.',
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
    'on: the API takes a signup only with a solved proof-of-work challenge, the plain form only with a signed issue time.',
  ),
  proofOfWorkMaxNumber: setting(
    'PROOF_OF_WORK_MAX_NUMBER',
    '12000',
    integer(1_000, 100_000_000),
    'How hard a proof-of-work challenge is: the browser tries up to this many SHA-256 hashes, half on average.',
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
    'on: an address gets a welcome mail once, when it joins the waitlist (or confirms); needs SITE_URL.',
  ),
  mailTemplates: setting(
    'MAIL_TEMPLATES_DIR',
    UNSET,
    templatesDir.optional(),
    "A folder of the operator's own mail templates (welcome.subject, welcome.txt, welcome.html).",
  ),
  confirmWithinMs: setting(
    'CONFIRM_WITHIN_HOURS',
    '72',
    hours(1, 24 * 365),
    'An address still unconfirmed this long after its last confirmation mail is erased.',
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

type Declared = typeof SETTINGS;
type Settings = { [K in keyof Declared]: Declared[K] extends Setting<infer T> ? T : never };

/** Rules between settings, checked once each one is valid on its own. */
const RULES: { setting: keyof Declared; message: string; holds: (s: Settings) => boolean }[] = [
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

/** What nodemailer's `dkim` option takes; the same three values `waitlist dns` publishes. */
export interface DkimSigning {
  domainName: string;
  keySelector: string;
  privateKey: KeyObject;
}

/** Defaults that depend on another setting. */
function withDerivedDefaults(settings: Settings) {
  const mailFrom = settings.mailFrom ?? defaultMailFrom(settings.siteUrl);
  const dkim: DkimSigning | undefined =
    settings.dkimPrivateKey && settings.dkimSelector
      ? {
          domainName: settings.dkimDomain ?? domainOf(mailFrom),
          keySelector: settings.dkimSelector,
          privateKey: settings.dkimPrivateKey,
        }
      : undefined;
  return { ...settings, mailFrom, dkim, privacyContact: settings.privacyContact ?? mailFrom };
}

export type Config = ReturnType<typeof withDerivedDefaults>;

export class ConfigError extends Error {}

/** What the operator wrote for a setting, and where, so a message names that variable. */
type Written = { value: string | undefined; from: string } | { problem: string };

/**
 * The value from the environment, or for a secret from its file: the file's content with one
 * trailing newline trimmed (what `echo secret > file` leaves). Messages name the variables and the
 * path, never what the file holds.
 */
function written(declared: Setting<unknown>, env: NodeJS.ProcessEnv): Written {
  // An empty variable counts as unset.
  const value = env[declared.env] || undefined;
  const file = declared.secret ? env[fileVariable(declared)] || undefined : undefined;
  if (file === undefined) return { value, from: declared.env };
  if (value !== undefined)
    return { problem: `${declared.env} and ${fileVariable(declared)}: set one of them, not both` };
  let content: string;
  try {
    content = fs.readFileSync(path.resolve(file), 'utf8');
  } catch (err) {
    return {
      problem: `${fileVariable(declared)}: cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    };
  }
  const trimmed = content.replace(/\r?\n$/, '');
  if (trimmed === '') return { problem: `${fileVariable(declared)}: ${file} is empty` };
  return { value: trimmed, from: `${declared.env} (from ${fileVariable(declared)})` };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const settings: Record<string, unknown> = {};
  for (const [key, declared] of Object.entries(SETTINGS) as [string, Setting<unknown>][]) {
    const given = written(declared, env);
    if ('problem' in given) {
      problems.push(`  ${given.problem}`);
      continue;
    }
    const parsed = declared.parse.safeParse(given.value ?? declared.default);
    if (parsed.success) settings[key] = parsed.data;
    else problems.push(...parsed.error.issues.map((issue) => `  ${given.from}: ${issue.message}`));
  }
  if (problems.length === 0) {
    for (const rule of RULES)
      if (!rule.holds(settings as Settings))
        problems.push(`  ${SETTINGS[rule.setting].env}: ${rule.message}`);
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  return withDerivedDefaults(settings as Settings);
}

/** Without MAIL_FROM: a no-reply address at the site's own host, so replies go nowhere quietly. */
function defaultMailFrom(siteUrl: string | undefined): string {
  const host = siteUrl ? new URL(siteUrl).hostname : 'localhost';
  return `OrgNote <no-reply@${host}>`;
}

/** The domain of a mailbox ('Name <user@Example.org>' → 'example.org'). */
function domainOf(mailbox: string): string {
  const address = /<([^>]+)>/.exec(mailbox)?.[1] ?? mailbox;
  return address.slice(address.lastIndexOf('@') + 1).toLowerCase();
}

/**
 * A URL fit for logs and messages: scheme, host, port and path only. The user and password go, and
 * the query too (pg reads ?password= and ?sslkey= there).
 */
export function withoutCredentials(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
}

/**
 * The whitelisted part of the config that the browser may see, with the names of the services
 * webhooks send addresses to (server/webhooks/recipients.ts), which the store knows, not the
 * config.
 */
export function publicConfigOf(
  config: Config,
  addressRecipients: readonly string[] = [],
): PublicConfig {
  // Only the site that stores signups itself mails confirmations (with BACKEND_URL the backend owns
  // them).
  return {
    webAppUrl: config.webAppUrl,
    privacyContact: config.privacyContact,
    confirmSignups: config.confirmSignups && !config.backendUrl,
    proofOfWork: config.proofOfWork,
    addressRecipients,
  };
}
