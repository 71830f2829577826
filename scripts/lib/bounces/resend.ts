// Resend's webhook requests as Resend sends them, for the tests and npm run bench:bounces: the
// events are shaped on the examples of Resend's webhook pages (email.bounced, email.complained,
// email.delivered), with the recipients, ids and times as parameters, and `signed` signs one as
// Svix does for Resend (Standard Webhooks): `svix-id`, `svix-timestamp` and `svix-signature`, the
// last `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body` keyed with the secret's bytes.
import { createHmac, randomBytes } from 'node:crypto';

/** An event of Resend's: `type`, `created_at` and `data`. */
export type ResendEvent = Record<string, unknown>;

/** A request as it reaches POST /bounces/resend. */
export interface SignedRequest {
  headers: Record<string, string>;
  body: Buffer;
}

interface EventOptions {
  /** The recipients (`data.to`); one address for the usual single-recipient message. */
  to: string | string[];
  /** When it happened, in milliseconds. */
  at?: number;
}

interface BouncedOptions extends EventOptions {
  /** `Permanent`, `Transient` or `Undetermined` (Resend's "Email Bounces" page). */
  type: string;
  /** `General`, `NoEmail`, `Suppressed`, `MailboxFull`, `MessageTooLarge`… */
  subType: string;
  /** Resend's words for it, which may name the recipient. */
  message?: string;
  /** The receiving server's replies, e.g. `smtp; 550 5.1.1 <ann@example.org>: user unknown`. */
  diagnosticCode?: string[];
}

/** A fresh signing secret as Resend shows it. */
export const newSecret = () => `whsec_${randomBytes(24).toString('base64')}`;

/** A fresh Svix message id. */
export const messageId = () => `msg_${randomBytes(18).toString('base64url')}`;

function data(to: string | string[], at: number) {
  return {
    created_at: new Date(at - 1_000).toISOString(),
    email_id: '56761188-7520-42d8-8898-ff6fc54ce618',
    from: 'OrgNote <hello@example.org>',
    to: typeof to === 'string' ? [to] : to,
    subject: 'Confirm your place on the list',
    tags: { category: 'confirm_email' },
  };
}

/** An `email.bounced` event, as Resend's example. */
export function bouncedEvent({ to, at = Date.now(), ...bounce }: BouncedOptions): ResendEvent {
  return {
    type: 'email.bounced',
    created_at: new Date(at).toISOString(),
    data: {
      ...data(to, at),
      bounce: {
        ...(bounce.diagnosticCode ? { diagnosticCode: bounce.diagnosticCode } : {}),
        message:
          bounce.message ??
          "The recipient's email address is on the suppression list because it has a recent history of producing hard bounces.",
        subType: bounce.subType,
        type: bounce.type,
      },
    },
  };
}

/** An `email.complained` event, as Resend's example. */
export function complainedEvent({ to, at = Date.now() }: EventOptions): ResendEvent {
  return { type: 'email.complained', created_at: new Date(at).toISOString(), data: data(to, at) };
}

/** An `email.delivered` event, as Resend's example: one the site does not read. */
export function deliveredEvent({ to, at = Date.now() }: EventOptions): ResendEvent {
  return { type: 'email.delivered', created_at: new Date(at).toISOString(), data: data(to, at) };
}

/** The `v1,` signature of a message with one secret. */
export function resendSignature(secret: string, id: string, timestamp: string, body: Buffer) {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestamp}.`).update(body);
  return `v1,${mac.digest('base64')}`;
}

export interface SignOptions {
  /** The Svix message id, the same on every retry. */
  id?: string;
  /** When Svix signed, in milliseconds; now by default. */
  at?: number;
  /** `webhook` for the Standard Webhooks names of the headers. */
  names?: 'svix' | 'webhook';
}

/** The request Resend posts for one event. */
export function signed(
  event: ResendEvent,
  secret: string,
  { id = messageId(), at = Date.now(), names = 'svix' }: SignOptions = {},
): SignedRequest {
  const body = Buffer.from(JSON.stringify(event));
  const timestamp = String(Math.floor(at / 1000));
  return {
    headers: {
      'content-type': 'application/json',
      [`${names}-id`]: id,
      [`${names}-timestamp`]: timestamp,
      [`${names}-signature`]: resendSignature(secret, id, timestamp, body),
    },
    body,
  };
}
