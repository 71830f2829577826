// What the providers' modules check alike: a signed timestamp within 5 minutes of now, a secret
// compared in constant time, a JSON object before its fields are read, and the bounce subtypes
// SES and Resend (which sends through SES) give to a message refused for itself, not its address.
import { timingSafeEqual } from 'node:crypto';
import { Refused, TIMESTAMP_TOLERANCE_MS } from './notices';

/** The same bytes, compared in constant time (lengths first, which tell nothing secret). */
export function sameSecret(given: string | Buffer, expected: string | Buffer): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * Throws Refused('stale') when `seconds` (a Unix time the provider signed, checked as digits) is
 * more than 5 minutes from `now`, either way: a request kept and sent again later.
 */
export function refuseStale(seconds: string, now: number, provider: string): void {
  if (Math.abs(now - Number(seconds) * 1000) > TIMESTAMP_TOLERANCE_MS)
    throw new Refused('stale', `the ${provider} timestamp is more than 5 minutes from now`);
}

/** A JSON object (not an array, not null), whose fields may be read. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Transient bounce subtypes of the message, not the address (SES's bounce types, which Resend
 * passes on: the same recipient may get a smaller message, other content, another attachment).
 */
export const MESSAGE_BOUNCE_SUBTYPES: ReadonlySet<string> = new Set([
  'MessageTooLarge',
  'ContentRejected',
  'AttachmentRejected',
]);
