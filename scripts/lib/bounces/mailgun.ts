// Mailgun's webhook requests as Mailgun sends them, for the tests and npm run bench:bounces:
// the events are shaped on the samples of Mailgun's "Webhook Payloads" page (Permanent Failed,
// Temporary Failed, Spam Complaint, Delivered), with the recipient, ids and times as parameters,
// and `signed` wraps one in the body Mailgun posts, signed as its "Securing Webhooks" page says:
// the hex HMAC-SHA256 of the timestamp and the token joined, keyed with the signing key.
import { createHmac, randomBytes } from 'node:crypto';

/** An event of Mailgun's, as the body's `event-data`. */
export type MailgunEvent = Record<string, unknown>;

/** A request as it reaches POST /bounces/mailgun. */
export interface SignedRequest {
  headers: Record<string, string>;
  body: Buffer;
}

interface EventOptions {
  /** The recipient. */
  email: string;
  /** The event's id (Mailgun's are 22 characters of base64url). */
  id?: string;
  /** When it happened, in milliseconds. */
  at?: number;
}

interface FailedOptions extends EventOptions {
  severity: 'permanent' | 'temporary';
  /** Mailgun's reason: `bounce`, `generic`, `suppress-bounce`, `old`, `esp-block`… */
  reason?: string;
  /** The SMTP reply code (delivery-status.code). */
  code?: number;
  /** The enhanced status code, or null as Mailgun often sends. */
  enhancedCode?: string | null;
  /** Which delivery attempt failed (delivery-status.attempt-no). */
  attemptNo?: number;
  /** The SMTP reply's text, which may name the recipient. */
  message?: string;
}

/** A fresh event id in Mailgun's form. */
export const eventId = () => randomBytes(16).toString('base64url').slice(0, 22);

/** The fields every sample shares. */
function common(name: string, { email, id = eventId(), at = Date.now() }: EventOptions) {
  return {
    event: name,
    id,
    timestamp: at / 1000,
    account: { id: '1234567890303a4bd1f33898' },
    domain: { name: 'mg.example.org' },
    recipient: email,
    'recipient-domain': email.slice(email.indexOf('@') + 1),
    'recipient-provider': 'Other',
    campaigns: [],
    tags: [],
    'user-variables': [],
  };
}

function message(email: string) {
  return {
    headers: {
      'message-id': `${randomBytes(8).toString('hex')}@mg.example.org`,
      from: 'OrgNote <hello@mg.example.org>',
      to: email,
      subject: 'Confirm your place on the list',
    },
    attachments: [],
    size: 4102,
  };
}

/** A `failed` event, as Mailgun's Permanent Failed and Temporary Failed samples. */
export function failedEvent(options: FailedOptions): MailgunEvent {
  const permanent = options.severity === 'permanent';
  return {
    ...common('failed', options),
    flags: { 'is-authenticated': true, 'is-routed': false, 'is-test-mode': false },
    message: message(options.email),
    'log-level': permanent ? 'error' : 'warn',
    severity: options.severity,
    reason: options.reason ?? (permanent ? 'bounce' : 'generic'),
    'delivery-status': {
      'attempt-no': options.attemptNo ?? 1,
      code: options.code ?? (permanent ? 550 : 421),
      message:
        options.message ??
        (permanent
          ? `5.1.1 <${options.email}>: Recipient address rejected: User unknown`
          : 'Try again later, closing connection.'),
      description: null,
      'session-seconds': 0.208,
      'enhanced-code': options.enhancedCode === undefined ? null : options.enhancedCode,
      'mx-host': 'mx1.example.net',
      ...(permanent ? { 'bounce-type': 'hard' } : { 'retry-seconds': 600 }),
    },
    envelope: {
      sender: 'hello@mg.example.org',
      targets: options.email,
      transport: 'smtp',
      'sending-ip': '161.38.194.10',
    },
  };
}

/** A `complained` event, as Mailgun's Spam Complaint sample. */
export function complainedEvent(options: EventOptions): MailgunEvent {
  return {
    ...common('complained', options),
    'log-level': 'warn',
    message: message(options.email),
    envelope: { 'sending-ip': '161.38.194.10' },
  };
}

/** A `delivered` event, as Mailgun's Delivered sample: one the site does not read. */
export function deliveredEvent(options: EventOptions): MailgunEvent {
  return {
    ...common('delivered', options),
    'log-level': 'info',
    message: message(options.email),
    'delivery-status': { 'attempt-no': 1, code: 250, message: 'OK', description: null },
  };
}

/** A fresh signature token: Mailgun's are 50 random characters. */
export const newToken = () => randomBytes(25).toString('hex');

/** Mailgun's signature of a timestamp (seconds) and a token. */
export function mailgunSignature(signingKey: string, timestamp: string, token: string): string {
  return createHmac('sha256', signingKey)
    .update(timestamp + token)
    .digest('hex');
}

export interface SignOptions {
  /** When Mailgun signed, in milliseconds; now by default. */
  at?: number;
  token?: string;
}

/** The request Mailgun posts for one event: the signature beside the event-data, as JSON. */
export function signed(
  event: MailgunEvent,
  signingKey: string,
  { at = Date.now(), token = newToken() }: SignOptions = {},
): SignedRequest {
  const timestamp = String(Math.floor(at / 1000));
  const payload = {
    signature: { token, timestamp, signature: mailgunSignature(signingKey, timestamp, token) },
    'event-data': event,
  };
  return {
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify(payload)),
  };
}
