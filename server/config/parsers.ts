// How each setting's text becomes a value (zod schemas): numbers in range, on/off, URLs, origins,
// mailboxes, DNS names and domains, and the files a setting names (a DKIM key, mail templates),
// read and checked here once so a wrong one stops start-up, not the first mail. A failed parse
// names what is wrong; the loader (load.ts) adds the variable's name.
import { createPrivateKey, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { domainToASCII } from 'node:url';
import { z } from 'zod';
import { verificationKey } from '../bounces/sendgrid';
import { loadMailTemplates, TemplateError } from '../mail/templates';
import { DEFAULT_LANGUAGE, isLanguage, LANGUAGES } from '../../shared/i18n/languages';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const integer = (min: number, max: number) => z.coerce.number().int().min(min).max(max);

/** Written in hours, used in milliseconds. */
export const hours = (min: number, max: number) =>
  integer(min, max).transform((h) => h * 3_600_000);

export const nonEmpty = z.string().trim().min(1);

export const onOff = z.enum(['on', 'off']).transform((value) => value === 'on');

export const directory = nonEmpty.transform((dir) => path.resolve(dir));

const withoutTrailingSlash = (url: string) => url.replace(/\/+$/, '');

/** A URL of one of these schemes (`protocol`, e.g. /^smtps?:$/) with a host; else `message`. */
const urlWith = (protocol: RegExp, message: string) =>
  z
    .string()
    .trim()
    .refine(
      (value) =>
        URL.canParse(value) &&
        protocol.test(new URL(value).protocol) &&
        new URL(value).hostname !== '',
      message,
    );

export const httpUrl = urlWith(/^https?:$/, 'must be an http(s) URL').transform(
  withoutTrailingSlash,
);

/** The items of a comma-separated setting, trimmed, the empty ones dropped. */
const commaItems = (value: string) =>
  value
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);

/** Comma-separated http(s) origins, each kept as its serialised origin. */
export const originList = z.string().transform((value, ctx) => {
  const origins: string[] = [];
  for (const item of commaItems(value)) {
    const url = URL.canParse(item) ? new URL(item) : undefined;
    if (!url || !/^https?:$/.test(url.protocol) || url.origin !== item.replace(/\/+$/, '')) {
      ctx.addIssue({ code: 'custom', message: `not an origin (scheme://host[:port]): ${item}` });
      return z.NEVER;
    }
    origins.push(url.origin);
  }
  return origins;
});

/** Comma-separated site languages (shared/i18n/languages.ts); English is always among them. */
export const languageList = z.string().transform((value, ctx) => {
  const languages = commaItems(value);
  const unknown = languages.find((item) => !isLanguage(item));
  if (unknown !== undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `not a language of the site (${LANGUAGES.join(', ')}): ${unknown}`,
    });
    return z.NEVER;
  }
  if (!languages.includes(DEFAULT_LANGUAGE)) {
    ctx.addIssue({ code: 'custom', message: `${DEFAULT_LANGUAGE} is always served: list it too` });
    return z.NEVER;
  }
  return LANGUAGES.filter((language) => languages.includes(language));
});

/** smtp:// (STARTTLS required off loopback; ?tls= says otherwise) or smtps:// (TLS at once). */
export const smtpUrl = urlWith(
  /^smtps?:$/,
  'must be an smtp:// or smtps:// URL (percent-encode / ? # @ : in the user or password)',
).refine(
  (value) =>
    !URL.canParse(value) ||
    [null, 'optional', 'required'].includes(new URL(value).searchParams.get('tls')),
  'its ?tls= must be optional or required',
);

/** 'address' or 'Name <address>'. */
export const mailbox = z
  .string()
  .trim()
  .regex(
    /^(?:[^<>\r\n]*<[^\s<>@]+@[^\s<>@]+>|[^\s<>@]+@[^\s<>@]+)$/,
    "must be an address or 'Name <address>'",
  );

/** postgres:// or postgresql://, with a host and a database. */
export const databaseUrl = urlWith(
  /^postgres(ql)?:$/,
  'must be a postgres:// URL (percent-encode / ? # @ : in the user or password)',
);

/** Express 'trust proxy': true/false, a hop count, or addresses/subnets/names like 'loopback'. */
export function parseTrustProxy(value: string): boolean | number | string {
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
export const privateKeyFile = nonEmpty.transform((file, ctx): KeyObject => {
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
export const dnsName = z
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
export const domainList = z.string().transform((value, ctx) => {
  const domains: string[] = [];
  for (const item of commaItems(value)) {
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
 * The operator's mail templates, in either layout (flat: English; a folder a language), read and
 * checked here once (mail/templates.ts), so a missing file or a typo in a placeholder stops
 * start-up with the file's name rather than the first mail.
 */
export const templatesDir = directory.transform((dir, ctx) => {
  try {
    return loadMailTemplates(dir);
  } catch (err) {
    if (!(err instanceof TemplateError)) throw err;
    ctx.addIssue({ code: 'custom', message: err.message });
    return z.NEVER;
  }
});

// Long enough that guessing it is hopeless; it is compared in constant time all the same.
export const apiToken = z
  .string()
  .trim()
  .min(16, 'must be at least 16 characters')
  .regex(/^\S+$/, 'must not contain whitespace (it travels in one header word)');

/** BOUNCE_SES_TOPIC_ARNS: the SNS topics /bounces/ses takes notifications of, comma-separated. */
export const topicArnList = z.string().transform((value, ctx) => {
  const arns = commaItems(value);
  for (const arn of arns)
    if (!/^arn:aws(?:-[a-z]+)*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}$/.test(arn)) {
      ctx.addIssue({
        code: 'custom',
        message: `not an SNS topic ARN such as arn:aws:sns:us-east-1:123456789012:ses-bounces: ${arn}`,
      });
      return z.NEVER;
    }
  return arns;
});

/** Basic credentials as `user:password` (BOUNCE_POSTMARK_AUTH): both parts present. */
export const basicCredentials = z
  .string()
  .regex(/^[^:\s]+:\S+$/, "must be user:password, as typed into the provider's webhook URL");

/**
 * SendGrid's verification key (BOUNCE_SENDGRID_PUBLIC_KEY): an EC P-256 public key, the base64
 * its console shows or a PEM; checked here as the endpoint reads it, kept as written.
 */
export const ecPublicKey = nonEmpty.transform((value, ctx): string => {
  try {
    verificationKey(value);
    return value;
  } catch (err) {
    ctx.addIssue({ code: 'custom', message: (err as Error).message });
    return z.NEVER;
  }
});
