// Mailgun's webhooks (the current API, a JSON body) at POST /bounces/mailgun. Mailgun signs inside
// the body: `signature` holds a timestamp, a random token and the hex HMAC-SHA256 of the two
// joined, keyed with the domain's HTTP webhook signing key. The signature covers neither the
// event nor the request, so the token is returned with the event's id: the store refuses a token
// seen before with another event (decision 0038). Mailgun sends one event a request, about one
// recipient: `failed` (permanent or temporary) and `complained` are read, any other is left out.
import { createHmac } from 'node:crypto';
import { isRecord, refuseStale, sameSecret } from './checks';
import {
  Refused,
  Unreadable,
  type BounceKind,
  type BounceNotice,
  type ProviderEndpoint,
  type ProviderRequest,
  type ReadNotices,
} from './notices';

export interface MailgunOptions {
  /** The domain's HTTP webhook signing key, as Mailgun's console shows it. */
  signingKey: string;
}

/** What Mailgun signs: `signature` in the body. */
interface Signature {
  timestamp: string;
  token: string;
  signatures: string[];
}

/**
 * Why a `failed` event changes nothing, by its `reason`: `old` is a message Mailgun gave up on
 * after retrying temporary failures (its first failure already counted), `esp-block` a mailbox
 * provider refusing the sending IP or domain, not the address.
 */
const IGNORED_REASONS = new Set(['old', 'esp-block']);

/** The body as JSON, or undefined when it is not (then it holds no signature either). */
function parse(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** The body's `signature`, with `parent-signature` (a subaccount's event, signed by its parent). */
function signatureOf(payload: unknown): Signature {
  const signature = isRecord(payload) ? payload.signature : undefined;
  if (!isRecord(signature)) throw new Refused('signature', 'no Mailgun signature in the body');
  const timestamp =
    typeof signature.timestamp === 'number' ? String(signature.timestamp) : signature.timestamp;
  const { token } = signature;
  const signatures = [signature.signature, signature['parent-signature']].filter(
    (value): value is string => typeof value === 'string',
  );
  if (typeof timestamp !== 'string' || !/^\d{1,12}$/.test(timestamp))
    throw new Refused('signature', 'the Mailgun signature has no timestamp');
  if (typeof token !== 'string' || token.length === 0 || token.length > 200)
    throw new Refused('signature', 'the Mailgun signature has no token');
  if (signatures.length === 0) throw new Refused('signature', 'the Mailgun signature is missing');
  return { timestamp, token, signatures };
}

/** Throws Refused unless the signing key signed the timestamp and token, within 5 minutes. */
function verify(signature: Signature, signingKey: string, now: number): void {
  const expected = createHmac('sha256', signingKey)
    .update(signature.timestamp + signature.token)
    .digest('hex');
  if (!signature.signatures.some((given) => sameSecret(given.toLowerCase(), expected)))
    throw new Refused('signature', 'the Mailgun signature does not match the signing key');
  refuseStale(signature.timestamp, now, 'Mailgun');
}

/** Mailgun's words for a failure, short and free of addresses: reason, SMTP and enhanced code. */
function failureDetail(severity: string, reason: unknown, status: Record<string, unknown>) {
  const words = [`failed/${severity}`];
  if (typeof reason === 'string' && /^[a-z][a-z-]{0,31}$/.test(reason)) words.push(reason);
  const { code } = status;
  if ((typeof code === 'number' || typeof code === 'string') && /^\d{3}$/.test(String(code)))
    words.push(String(code));
  const enhanced = status['enhanced-code'];
  if (typeof enhanced === 'string' && /^\d\.\d{1,3}\.\d{1,3}$/.test(enhanced)) words.push(enhanced);
  return words.join(' ');
}

/** What a `failed` event does to its recipient (the table in docs/operating.md). */
function failureKind(event: Record<string, unknown>): BounceKind | 'ignored' {
  const { severity, reason } = event;
  const status = isRecord(event['delivery-status']) ? event['delivery-status'] : {};
  if (typeof reason === 'string' && IGNORED_REASONS.has(reason)) return 'ignored';
  if (severity === 'permanent') return reason === 'suppress-complaint' ? 'complaint' : 'permanent';
  // Mailgun retries a temporary failure for hours, one `failed` event an attempt: the first
  // counts against the address, the retries of the same message do not count again.
  const attempt = status['attempt-no'];
  return typeof attempt === 'number' && attempt > 1 ? 'ignored' : 'transient';
}

/** The notice of one event, or none for an event the site does not read. */
function noticesOf(event: unknown): BounceNotice[] {
  if (!isRecord(event)) throw new Unreadable('the Mailgun webhook has no event-data');
  const { event: name, id, recipient } = event;
  if (typeof name !== 'string') throw new Unreadable('the Mailgun event has no name');
  if (name !== 'failed' && name !== 'complained') return [];
  if (typeof id !== 'string' || id.length === 0 || id.length > 200)
    throw new Unreadable(`the Mailgun ${name} event has no id`);
  if (typeof recipient !== 'string' || !recipient.includes('@'))
    throw new Unreadable(`the Mailgun ${name} event has no recipient`);
  if (name === 'complained') return [{ id, email: recipient, kind: 'complaint', detail: name }];

  const { severity } = event;
  if (severity !== 'permanent' && severity !== 'temporary')
    throw new Unreadable('the Mailgun failed event has no severity');
  const status = isRecord(event['delivery-status']) ? event['delivery-status'] : {};
  return [
    {
      id,
      email: recipient,
      kind: failureKind(event),
      detail: failureDetail(severity, event.reason, status),
    },
  ];
}

/** Mailgun's endpoint, verifying with the domain's webhook signing key. */
export function mailgunEndpoint(options: MailgunOptions): ProviderEndpoint {
  if (options.signingKey.length === 0) throw new Error('the Mailgun signing key is empty');
  return {
    provider: 'mailgun',
    async read(request: ProviderRequest, now: number): Promise<ReadNotices> {
      const payload = parse(request.body);
      const signature = signatureOf(payload);
      verify(signature, options.signingKey, now);
      const event = (payload as Record<string, unknown>)['event-data'];
      const notices = noticesOf(event);
      const eventId = isRecord(event) && typeof event.id === 'string' ? event.id : undefined;
      return eventId
        ? { notices, token: { value: signature.token, notice: eventId } }
        : { notices };
    },
  };
}
