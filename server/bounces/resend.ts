// Resend's webhooks at POST /bounces/resend. Resend delivers through Svix, which signs as Standard
// Webhooks: `svix-id`, `svix-timestamp` and `svix-signature` (the `webhook-` names are taken too),
// the signature being space-separated `v1,<base64>` entries of the HMAC-SHA256 of
// `id.timestamp.body`, keyed with the bytes of the secret after `whsec_`; any one entry matching
// is enough (a secret being rotated signs twice). The id is the message's, the same on every retry,
// so it is the notice's id. `email.bounced` and `email.complained` are read, any other type is
// left out.
import { createHmac } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { isRecord, MESSAGE_BOUNCE_SUBTYPES, refuseStale, sameSecret } from './checks';
import {
  Refused,
  Unreadable,
  type BounceKind,
  type BounceNotice,
  type ProviderEndpoint,
  type ProviderRequest,
  type ReadNotices,
} from './notices';

export interface ResendOptions {
  /** The webhook's signing secret, `whsec_<base64>`, as Resend's console shows it. */
  secret: string;
}

/** The signed headers of one delivery. */
interface Signed {
  id: string;
  timestamp: string;
  signatures: string[];
}

const PREFIX = 'whsec_';

/** The HMAC key: the base64 after `whsec_`. */
function keyOf(secret: string): Buffer {
  const encoded = secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret;
  const key = Buffer.from(encoded, 'base64');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(encoded) || key.length === 0)
    throw new Error('the Resend signing secret is not whsec_ and base64');
  return key;
}

/** A header's one value; a header given twice counts as missing. */
function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[`svix-${name}`] ?? headers[`webhook-${name}`];
  return typeof value === 'string' ? value : undefined;
}

function signedHeaders(headers: IncomingHttpHeaders): Signed {
  const id = header(headers, 'id');
  const timestamp = header(headers, 'timestamp');
  const signature = header(headers, 'signature');
  if (!id || !timestamp || !signature)
    throw new Refused('signature', 'the Resend request has no svix-id, timestamp and signature');
  if (id.length > 200 || /[^\x21-\x7e]/.test(id))
    throw new Refused('signature', 'the Resend message id is not one Svix makes');
  if (!/^\d{1,12}$/.test(timestamp))
    throw new Refused('signature', 'the Resend timestamp is not a number of seconds');
  const signatures = signature
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .map((entry) => entry.slice(3));
  return { id, timestamp, signatures };
}

/** Throws Refused unless the secret signed this id, timestamp and body, within 5 minutes. */
function verify(signed: Signed, body: Buffer, key: Buffer, now: number): void {
  const expected = createHmac('sha256', key)
    .update(`${signed.id}.${signed.timestamp}.`)
    .update(body)
    .digest('base64');
  if (!signed.signatures.some((given) => sameSecret(given, expected)))
    throw new Refused('signature', 'no Resend signature matches the signing secret');
  refuseStale(signed.timestamp, now, 'Resend');
}

/** Resend's type and subtype, then the SMTP codes of its diagnostic (never its text). */
function bounceDetail(type: string, subType: unknown, diagnostic: unknown): string {
  const named = typeof subType === 'string' && /^[A-Za-z]{1,32}$/.test(subType);
  const words = [named ? `${type}/${subType}` : type];
  const first = Array.isArray(diagnostic) ? (diagnostic as unknown[])[0] : diagnostic;
  if (typeof first === 'string') {
    const codes = /\b([245]\d\d)(?:[ -]+([245]\.\d{1,3}\.\d{1,3}))?\b/.exec(first);
    if (codes) words.push(codes[2] ? `${codes[1]} ${codes[2]}` : codes[1]);
  }
  return words.join(' ');
}

/** What a bounce of this type and subtype does (the table in docs/operating.md). */
function bounceKind(type: string, subType: unknown): BounceKind | 'ignored' {
  if (type === 'Permanent') return 'permanent';
  if (typeof subType === 'string' && MESSAGE_BOUNCE_SUBTYPES.has(subType)) return 'ignored';
  // Transient, and Undetermined: a bounce Resend could not classify counts, but does not decide.
  return 'transient';
}

/** The notices of one event: one for each recipient in `data.to`. */
function noticesOf(id: string, body: Buffer): BounceNotice[] {
  let event: unknown;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    throw new Unreadable('the Resend webhook is not JSON');
  }
  if (!isRecord(event) || typeof event.type !== 'string')
    throw new Unreadable('the Resend webhook has no type');
  if (event.type !== 'email.bounced' && event.type !== 'email.complained') return [];

  const { data } = event;
  const to = isRecord(data) ? data.to : undefined;
  if (!isRecord(data) || !Array.isArray(to) || to.length === 0)
    throw new Unreadable(`the Resend ${event.type} event has no recipients`);
  if (!to.every((email): email is string => typeof email === 'string' && email.includes('@')))
    throw new Unreadable(`the Resend ${event.type} event has a recipient that is not an address`);

  let kind: BounceKind | 'ignored' = 'complaint';
  let detail = 'complained';
  if (event.type === 'email.bounced') {
    const { bounce } = data;
    if (
      !isRecord(bounce) ||
      typeof bounce.type !== 'string' ||
      !/^[A-Za-z]{1,32}$/.test(bounce.type)
    )
      throw new Unreadable('the Resend email.bounced event has no bounce type');
    kind = bounceKind(bounce.type, bounce.subType);
    detail = bounceDetail(bounce.type, bounce.subType, bounce.diagnosticCode);
  }
  return to.map((email, index) => ({
    id: to.length === 1 ? id : `${id}/${index}`,
    email,
    kind,
    detail,
  }));
}

/** Resend's endpoint, verifying with the webhook's signing secret. */
export function resendEndpoint(options: ResendOptions): ProviderEndpoint {
  const key = keyOf(options.secret);
  return {
    provider: 'resend',
    async read(request: ProviderRequest, now: number): Promise<ReadNotices> {
      const signed = signedHeaders(request.headers);
      verify(signed, request.body, key, now);
      return { notices: noticesOf(signed.id, request.body) };
    },
  };
}
