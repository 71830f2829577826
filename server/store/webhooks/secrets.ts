// An endpoint's signing secrets, kept in its row as JSON: the current one, and during a rotation
// the ones before it until their grace ends, so a receiver can take the new secret in its own time.
import { randomBytes } from 'node:crypto';
import type { WebhookSecret } from './types';

/** 32 random bytes, as Standard Webhooks writes a secret. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

/** A new endpoint's secrets: one, current. */
export const firstSecrets = (secret: string) =>
  JSON.stringify([{ secret, expiresAt: null }] satisfies WebhookSecret[]);

/** The secrets that still sign at `at`, newest first. */
export const signingSecrets = (secrets: string, at: number) =>
  (JSON.parse(secrets) as WebhookSecret[])
    .filter((s) => s.expiresAt === null || s.expiresAt > at)
    .map((s) => s.secret);

/**
 * `secret` as the current one, the ones before signing for at most `graceMs` more. A secret whose
 * time is up is forgotten, not kept expired: a revoked one is gone at once.
 */
export function rotatedSecrets(secrets: string, secret: string, at: number, graceMs: number) {
  const kept = (JSON.parse(secrets) as WebhookSecret[])
    .map((s) => ({
      secret: s.secret,
      expiresAt: Math.min(s.expiresAt ?? Infinity, at + graceMs),
    }))
    .filter((s) => s.expiresAt > at);
  return JSON.stringify([{ secret, expiresAt: null }, ...kept]);
}
