// Standard Webhooks 1.0 signatures: `v1,` and the base64 HMAC-SHA256 of `id.timestamp.body`, keyed
// with the bytes after `whsec_` (base64). During a rotation every secret still signing adds its
// own signature, space-separated, so a receiver holding either secret verifies the delivery.
import { createHmac } from 'node:crypto';

const PREFIX = 'whsec_';

function keyOf(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

export function webhookSignature(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): string {
  const signed = `${id}.${timestampSeconds}.${body}`;
  return secrets
    .map((secret) => `v1,${createHmac('sha256', keyOf(secret)).update(signed).digest('base64')}`)
    .join(' ');
}

/** The headers of one attempt: the id stays, the timestamp is the attempt's own. */
export function webhookHeaders(
  secrets: readonly string[],
  id: string,
  body: string,
  at: number,
): Record<string, string> {
  const timestamp = Math.floor(at / 1000);
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': webhookSignature(secrets, id, timestamp, body),
  };
}
