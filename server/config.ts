// The one place that reads process.env: every setting is validated once at start-up, with a
// message that names the variable, and handed to the rest of the server as a typed object.
import path from 'node:path';
import { z } from 'zod';
import type { PublicConfig } from '../shared/public-config';

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

const httpUrl = z
  .string()
  .trim()
  .refine((value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol), 'must be an http(s) URL');

/** ALLOWED_ORIGINS: comma-separated http(s) origins, each kept as its serialised origin. */
const originList = z
  .string()
  .default('')
  .transform((value, ctx) => {
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

const integer = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

const unsetWhenEmpty = (value: unknown) => (value === '' ? undefined : value);

/** SMTP_URL: smtp:// (STARTTLS when the server offers it) or smtps:// (TLS from the start). */
const smtpUrl = z
  .string()
  .trim()
  .refine(
    (value) => URL.canParse(value) && /^smtps?:$/.test(new URL(value).protocol) && new URL(value).hostname !== '',
    'must be an smtp:// or smtps:// URL (percent-encode / ? # @ : in the user or password)',
  );

/** MAIL_FROM: 'address' or 'Name <address>'. */
const mailbox = z
  .string()
  .trim()
  .regex(/^(?:[^<>\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/, "must be an address or 'Name <address>'");

/** DATABASE_URL: postgres:// or postgresql://, with a host and a database. */
const databaseUrl = z
  .string()
  .trim()
  .refine(
    (value) => URL.canParse(value) && /^postgres(ql)?:$/.test(new URL(value).protocol) && new URL(value).hostname !== '',
    'must be a postgres:// URL (percent-encode / ? # @ : in the user or password)',
  );

/** 1 GiB: the free subscription's storage in the OrgNote web app. */
const DEFAULT_SPACE_LIMIT_BYTES = 1024 ** 3;

/** Express 'trust proxy': true/false, a hop count, or addresses/subnets/names like 'loopback'. */
function parseTrustProxy(value: string): boolean | number | string {
  if (value === 'true') return true;
  if (value === 'false') return false;
  if (/^\d+$/.test(value)) return Number(value);
  return value;
}

const schema = z.object({
  PORT: integer(0, 65535).default(3000),
  HOST: z.string().trim().min(1).default('0.0.0.0'),
  BACKEND_URL: z.preprocess(unsetWhenEmpty, httpUrl.optional()),
  WEB_APP_URL: httpUrl.default('https://org-note.com'),
  SITE_URL: z.preprocess(unsetWhenEmpty, httpUrl.optional()),
  DATA_DIR: z.string().trim().min(1).default('./data'),
  TRUST_PROXY: z.string().trim().min(1).default('loopback').transform(parseTrustProxy),
  UPSTREAM_TIMEOUT_MS: integer(1, 600_000).default(10_000),
  LOG_LEVEL: z.enum(LOG_LEVELS).default('info'),
  SIGNUP_RATE_LIMIT: integer(0, 100_000).default(10),
  KEEP_ALIVE_TIMEOUT_MS: integer(1, 600_000).default(65_000),
  HEADERS_TIMEOUT_MS: integer(1, 600_000).default(66_000),
  REQUEST_TIMEOUT_MS: integer(1, 3_600_000).default(120_000),
  ALLOWED_ORIGINS: originList,
  PAGE_CACHE_SECONDS: integer(0, 31_536_000).default(300),
  SMTP_URL: z.preprocess(unsetWhenEmpty, smtpUrl.optional()),
  MAIL_FROM: z.preprocess(unsetWhenEmpty, mailbox.optional()),
  // Long enough that guessing it is hopeless; it is compared in constant time all the same.
  SUBSCRIPTION_API_TOKEN: z.preprocess(
    unsetWhenEmpty,
    z.string().trim().min(16, 'must be at least 16 characters').regex(/^\S+$/, 'must not contain whitespace (it travels in one header word)').optional(),
  ),
  SPACE_LIMIT_BYTES: integer(0, Number.MAX_SAFE_INTEGER).default(DEFAULT_SPACE_LIMIT_BYTES),
  DATABASE_URL: z.preprocess(unsetWhenEmpty, databaseUrl.optional()),
  DATABASE_CONNECT_SECONDS: integer(0, 3_600).default(30),
  OUTBOX_MAX_ITEMS: integer(1, 100_000_000).default(100_000),
  MAIL_QUEUE_MAX_ITEMS: integer(1, 100_000_000).default(100_000),
  QUEUE_MAX_AGE_HOURS: integer(1, 24 * 365).default(7 * 24),
  METRICS_PORT: z.preprocess(unsetWhenEmpty, integer(1, 65535).optional()),
  // Loopback by default: the listener has no login, and queue depths and traffic are nobody else's business.
  METRICS_HOST: z.string().trim().min(1).default('127.0.0.1'),
})
  // Headers must outlast an idle keep-alive connection (or a proxy reusing it races the close),
  // and a whole request gets at least as long as its headers.
  .refine((e) => e.HEADERS_TIMEOUT_MS > e.KEEP_ALIVE_TIMEOUT_MS, { message: 'must be above KEEP_ALIVE_TIMEOUT_MS', path: ['HEADERS_TIMEOUT_MS'] })
  .refine((e) => e.REQUEST_TIMEOUT_MS >= e.HEADERS_TIMEOUT_MS, { message: 'must be at least HEADERS_TIMEOUT_MS', path: ['REQUEST_TIMEOUT_MS'] })
  // The public port must never answer /metrics.
  .refine((e) => e.METRICS_PORT === undefined || e.METRICS_PORT !== e.PORT, { message: 'must differ from PORT', path: ['METRICS_PORT'] });

export interface Config {
  port: number;
  host: string;
  /** The backend (the subscription service); unset means the site answers /api itself. */
  backendUrl: string | undefined;
  webAppUrl: string;
  /** Public address of this site for canonical links, sitemap and social cards; unset: the request's own origin. */
  siteUrl: string | undefined;
  dataDir: string;
  trustProxy: boolean | number | string;
  /** How long a call to the backend may take (UPSTREAM_TIMEOUT_MS). */
  backendTimeoutMs: number;
  logLevel: (typeof LOG_LEVELS)[number];
  /** Form submissions per client IP per minute; 0 turns the limit off. */
  signupRateLimit: number;
  /** Idle keep-alive connections close after this (above common proxy idle timeouts). */
  keepAliveTimeoutMs: number;
  /** A client must send complete headers within this, or it is dropped (slow-loris). */
  headersTimeoutMs: number;
  /** A client must send the whole request within this. */
  requestTimeoutMs: number;
  /** Other sites' origins whose pages may post our forms (cross-site check). */
  allowedOrigins: string[];
  /** How long a shared cache (CDN, reverse proxy) may keep a page that is the same for everyone. */
  pageCacheSeconds: number;
  /** Where invitations go out; unset: written as .eml files under DATA_DIR/mail. */
  smtpUrl: string | undefined;
  /** The From of invitations. */
  mailFrom: string;
  /** What the OrgNote backend sends to ask about subscriptions; unset: that route does not exist. */
  subscriptionApiToken: string | undefined;
  /** Storage of a free subscription, in bytes, reported as spaceLimit. */
  spaceLimitBytes: number;
  /** PostgreSQL shared by every replica; unset: SQLite under dataDir, for one instance. */
  databaseUrl: string | undefined;
  /** How long start-up waits for PostgreSQL before giving up. */
  databaseConnectSeconds: number;
  /** Past these sizes a new signup for the backend, or an invitation, is refused with 503. */
  outboxMaxItems: number;
  mailMaxItems: number;
  /** A queued item still failing after this long is set aside as dead (outbox/mail retry <id>). */
  maxAgeMs: number;
  /** Where Prometheus scrapes /metrics (a second listener); unset: no metrics at all. */
  metricsPort: number | undefined;
  /** The metrics listener's address; it has no login, so keep it private. */
  metricsHost: string;
}

export class ConfigError extends Error {}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `  ${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration:\n${problems.join('\n')}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    backendUrl: e.BACKEND_URL?.replace(/\/+$/, ''),
    webAppUrl: e.WEB_APP_URL.replace(/\/+$/, ''),
    siteUrl: e.SITE_URL?.replace(/\/+$/, ''),
    dataDir: path.resolve(e.DATA_DIR),
    trustProxy: e.TRUST_PROXY,
    backendTimeoutMs: e.UPSTREAM_TIMEOUT_MS,
    logLevel: e.LOG_LEVEL,
    signupRateLimit: e.SIGNUP_RATE_LIMIT,
    keepAliveTimeoutMs: e.KEEP_ALIVE_TIMEOUT_MS,
    headersTimeoutMs: e.HEADERS_TIMEOUT_MS,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    allowedOrigins: e.ALLOWED_ORIGINS,
    pageCacheSeconds: e.PAGE_CACHE_SECONDS,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM ?? defaultMailFrom(e.SITE_URL),
    subscriptionApiToken: e.SUBSCRIPTION_API_TOKEN,
    spaceLimitBytes: e.SPACE_LIMIT_BYTES,
    databaseUrl: e.DATABASE_URL,
    databaseConnectSeconds: e.DATABASE_CONNECT_SECONDS,
    outboxMaxItems: e.OUTBOX_MAX_ITEMS,
    mailMaxItems: e.MAIL_QUEUE_MAX_ITEMS,
    maxAgeMs: e.QUEUE_MAX_AGE_HOURS * 3_600_000,
    metricsPort: e.METRICS_PORT,
    metricsHost: e.METRICS_HOST,
  };
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
