// The one place that reads process.env: every setting is validated once at start-up, with a
// message that names the variable, and handed to the rest of the server as a typed object.
// Each setting is declared once below (variable, default, parser, one line of doc); `Config` is
// inferred from those declarations, and test/server/config-readme.test.ts keeps README's table
// in step with them (issue 22).
import path from 'node:path';
import { z } from 'zod';
import type { PublicConfig } from '../shared/public-config';

interface Setting<T> {
  /** The environment variable it is read from. */
  env: string;
  /** As it would be written in the environment; absent: unset. An empty variable counts as unset. */
  default?: string;
  /** What README shows as the default when another setting decides it (the value stays unset here). */
  derivedDefault?: string;
  doc: string;
  parse: z.ZodType<T>;
}

/** Keeps each declaration's parsed type, so `Config` can be inferred from them. */
const setting = <T>(declaration: Setting<T>): Setting<T> => declaration;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const integer = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

const httpUrl = z
  .string()
  .trim()
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), 'must be an http(s) URL')
  .transform(withoutTrailingSlash);

/** Comma-separated http(s) origins, each kept as its serialised origin. */
const originList = z.string().transform((value, ctx) => {
  const origins: string[] = [];
  for (const item of value.split(',').map((part) => part.trim()).filter(Boolean)) {
    const url = URL.canParse(item) ? new URL(item) : undefined;
    if (!url || !/^https?:$/.test(url.protocol) || url.origin !== item.replace(/\/+$/, '')) {
      ctx.addIssue({ code: 'custom', message: `not an origin (scheme://host[:port]): ${item}` });
      return z.NEVER;
    }
    origins.push(url.origin);
  }
  return origins;
});

/** smtp:// (STARTTLS when the server offers it) or smtps:// (TLS from the start). */
const smtpUrl = z
  .string()
  .trim()
  .refine(
    (value) => URL.canParse(value) && /^smtps?:$/.test(new URL(value).protocol) && new URL(value).hostname !== '',
    'must be an smtp:// or smtps:// URL (percent-encode / ? # @ : in the user or password)',
  );

/** 'address' or 'Name <address>'. */
const mailbox = z
  .string()
  .trim()
  .regex(/^(?:[^<>\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/, "must be an address or 'Name <address>'");

/** postgres:// or postgresql://, with a host and a database. */
const databaseUrl = z
  .string()
  .trim()
  .refine(
    (value) => URL.canParse(value) && /^postgres(ql)?:$/.test(new URL(value).protocol) && new URL(value).hostname !== '',
    'must be a postgres:// URL (percent-encode / ? # @ : in the user or password)',
  );

/** Express 'trust proxy': true/false, a hop count, or addresses/subnets/names like 'loopback'. */
function parseTrustProxy(value: string): boolean | number | string {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

// Long enough that guessing it is hopeless; it is compared in constant time all the same.
const apiToken = z
  .string()
  .trim()
  .min(16, 'must be at least 16 characters')
  .regex(/^\S+$/, 'must not contain whitespace (it travels in one header word)');

/** 1 GiB: the free subscription's storage in the OrgNote web app. */
const FREE_SPACE_BYTES = 1024 ** 3;

export const SETTINGS = {
  port: setting({ env: 'PORT', default: '3000', parse: integer(0, 65535), doc: 'Port to listen on.' }),
  host: setting({ env: 'HOST', default: '0.0.0.0', parse: z.string().trim().min(1), doc: 'Address to listen on.' }),
  backendUrl: setting({ env: 'BACKEND_URL', parse: httpUrl.optional(), doc: 'The subscription service /api is proxied to; unset: the site answers /api itself.' }),
  webAppUrl: setting({ env: 'WEB_APP_URL', default: 'https://org-note.com', parse: httpUrl, doc: 'The online web app; the only setting the browser sees.' }),
  siteUrl: setting({ env: 'SITE_URL', parse: httpUrl.optional(), doc: "This site's public address for canonical links, sitemap and social cards; unset: the request's origin." }),
  dataDir: setting({ env: 'DATA_DIR', default: './data', parse: z.string().trim().min(1).transform((dir) => path.resolve(dir)), doc: 'Where SQLite and .eml files are kept.' }),
  trustProxy: setting({ env: 'TRUST_PROXY', default: 'loopback', parse: z.string().trim().min(1).transform(parseTrustProxy), doc: "Whose X-Forwarded-* headers are believed (Express 'trust proxy')." }),
  backendTimeoutMs: setting({ env: 'UPSTREAM_TIMEOUT_MS', default: '10000', parse: integer(1, 600_000), doc: 'How long a call to the backend may take.' }),
  databaseTimeoutMs: setting({ env: 'DATABASE_TIMEOUT_MS', default: '10000', parse: integer(1, 600_000), doc: 'How long a call to PostgreSQL (and a readiness check of the store) may take.' }),
  logLevel: setting({ env: 'LOG_LEVEL', default: 'info', parse: z.enum(LOG_LEVELS), doc: 'Lowest level written to the log.' }),
  signupRateLimit: setting({ env: 'SIGNUP_RATE_LIMIT', default: '10', parse: integer(0, 100_000), doc: 'Form submissions per client IP per minute; 0 turns the limit off.' }),
  keepAliveTimeoutMs: setting({ env: 'KEEP_ALIVE_TIMEOUT_MS', default: '65000', parse: integer(1, 600_000), doc: 'Idle keep-alive connections close after this.' }),
  headersTimeoutMs: setting({ env: 'HEADERS_TIMEOUT_MS', default: '66000', parse: integer(1, 600_000), doc: 'A client must send complete headers within this (slow-loris).' }),
  requestTimeoutMs: setting({ env: 'REQUEST_TIMEOUT_MS', default: '120000', parse: integer(1, 3_600_000), doc: 'A client must send the whole request within this.' }),
  allowedOrigins: setting({ env: 'ALLOWED_ORIGINS', default: '', parse: originList, doc: "Other sites' origins whose pages may post our forms." }),
  pageCacheSeconds: setting({ env: 'PAGE_CACHE_SECONDS', default: '300', parse: integer(0, 31_536_000), doc: 'How long a shared cache may keep a page that is the same for everyone.' }),
  smtpUrl: setting({ env: 'SMTP_URL', parse: smtpUrl.optional(), doc: 'Where invitations go out; unset: .eml files under DATA_DIR/mail.' }),
  mailFrom: setting({ env: 'MAIL_FROM', derivedDefault: 'OrgNote <no-reply@host>', parse: mailbox.optional(), doc: 'The From of invitations.' }),
  subscriptionApiToken: setting({ env: 'SUBSCRIPTION_API_TOKEN', parse: apiToken.optional(), doc: 'What the OrgNote backend sends to ask about subscriptions; unset: that route does not exist.' }),
  spaceLimitBytes: setting({ env: 'SPACE_LIMIT_BYTES', default: String(FREE_SPACE_BYTES), parse: integer(0, Number.MAX_SAFE_INTEGER), doc: 'Storage of a free subscription, reported as spaceLimit.' }),
  databaseUrl: setting({ env: 'DATABASE_URL', parse: databaseUrl.optional(), doc: 'PostgreSQL shared by every replica; unset: SQLite under DATA_DIR, for one instance.' }),
  databaseConnectSeconds: setting({ env: 'DATABASE_CONNECT_SECONDS', default: '30', parse: integer(0, 3_600), doc: 'How long start-up waits for PostgreSQL.' }),
  outboxMaxItems: setting({ env: 'OUTBOX_MAX_ITEMS', default: '100000', parse: integer(1, 100_000_000), doc: 'Signups waiting for the backend at most; past it a new one gets 503.' }),
  mailMaxItems: setting({ env: 'MAIL_QUEUE_MAX_ITEMS', default: '100000', parse: integer(1, 100_000_000), doc: 'Invitations waiting to be sent at most.' }),
  queueMaxAgeMs: setting({
    env: 'QUEUE_MAX_AGE_HOURS',
    default: String(7 * 24),
    parse: integer(1, 24 * 365).transform((hours) => hours * 3_600_000),
    doc: 'A queued item still failing after this long is set aside as dead.',
  }),
  metricsPort: setting({ env: 'METRICS_PORT', parse: integer(1, 65535).optional(), doc: 'Where Prometheus scrapes /metrics (a second listener); unset: no metrics.' }),
  // Loopback by default: the listener has no login, and queue depths and traffic are nobody else's business.
  metricsHost: setting({ env: 'METRICS_HOST', default: '127.0.0.1', parse: z.string().trim().min(1), doc: "The metrics listener's address; keep it private." }),
};

type Declared = typeof SETTINGS;
type Settings = { [K in keyof Declared]: Declared[K] extends Setting<infer T> ? T : never };

/** Rules between settings, checked once each one is valid on its own. */
const RULES: { setting: keyof Declared; message: string; holds: (s: Settings) => boolean }[] = [
  // Headers must outlast an idle keep-alive connection (or a proxy reusing it races the close),
  // and a whole request gets at least as long as its headers.
  { setting: 'headersTimeoutMs', message: 'must be above KEEP_ALIVE_TIMEOUT_MS', holds: (s) => s.headersTimeoutMs > s.keepAliveTimeoutMs },
  { setting: 'requestTimeoutMs', message: 'must be at least HEADERS_TIMEOUT_MS', holds: (s) => s.requestTimeoutMs >= s.headersTimeoutMs },
  // The public port must never answer /metrics.
  { setting: 'metricsPort', message: 'must differ from PORT', holds: (s) => s.metricsPort === undefined || s.metricsPort !== s.port },
];

/** Defaults that depend on another setting. */
function withDerivedDefaults(settings: Settings) {
  return { ...settings, mailFrom: settings.mailFrom ?? defaultMailFrom(settings.siteUrl) };
}

export type Config = ReturnType<typeof withDerivedDefaults>;

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const settings: Record<string, unknown> = {};
  for (const [key, declared] of Object.entries(SETTINGS) as [string, Setting<unknown>][]) {
    const given = env[declared.env];
    const parsed = declared.parse.safeParse(given === undefined || given === '' ? declared.default : given);
    if (parsed.success) settings[key] = parsed.data;
    else problems.push(...parsed.error.issues.map((issue) => `  ${declared.env}: ${issue.message}`));
  }
  if (problems.length === 0) {
    for (const rule of RULES) if (!rule.holds(settings as Settings)) problems.push(`  ${SETTINGS[rule.setting].env}: ${rule.message}`);
  }
  if (problems.length > 0) throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  return withDerivedDefaults(settings as Settings);
}

/** Without MAIL_FROM: a no-reply address at the site's own host, so replies go nowhere quietly. */
function defaultMailFrom(siteUrl: string | undefined): string {
  const host = siteUrl ? new URL(siteUrl).hostname : 'localhost';
  return `OrgNote <no-reply@${host}>`;
}

/**
 * A URL fit for logs and messages: scheme, host, port and path only. The user and password go, and
 * the query too (pg reads ?password= and ?sslkey= there).
 */
export function withoutCredentials(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${parsed.host}${parsed.pathname === '/' ? '' : parsed.pathname}`;
}

/** The whitelisted part of the config that the browser may see. */
export function publicConfigOf(config: Config): PublicConfig {
  return { webAppUrl: config.webAppUrl };
}
