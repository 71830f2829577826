// What the operator reads about the signups: the count, the list, the totals by state (with the
// mail queue's, which answer "did my invitations go out?"), and the export, streamed as CSV.
import type { Store } from '../store';
import type { MailState } from '../store/mail-queue';
import type { SignupRow, WaitlistStats } from '../store/signups';
import { csvLine } from './csv';

export { SIGNUP_STATES } from '../store/signups';

type SignupsDeps = { store: Pick<Store, 'signups'> };

/** Only signups created at or after this time; all of them without it. */
export interface SignupsSince {
  since?: Date;
}

const sinceText = ({ since }: SignupsSince): string => since?.toISOString() ?? '';

export function countSignups({ store }: SignupsDeps): Promise<number> {
  return store.signups.count();
}

/** Addresses that left or were refused, kept only as keyed hashes: an import skips them. */
export function countSuppressed({
  store,
}: {
  store: Pick<Store, 'suppressions'>;
}): Promise<number> {
  return store.suppressions.count();
}

/** Newest first. */
export function listSignups(
  { store }: SignupsDeps,
  input: SignupsSince = {},
): Promise<SignupRow[]> {
  return store.signups.list(sinceText(input));
}

export interface WaitlistReport {
  signups: WaitlistStats;
  /**
   * The queue by state, and `due`: confirmation mails signups are due that the running site has not
   * written yet.
   */
  mail: Record<MailState | 'due', number>;
}

export async function waitlistStats({
  store,
}: {
  store: Pick<Store, 'signups' | 'mail'>;
}): Promise<WaitlistReport> {
  return {
    signups: await store.signups.stats(),
    mail: { ...(await store.mail.counts()), due: await store.signups.confirmationsDue() },
  };
}

/** The original columns first and each new one last, so scripts that read by position work. */
const EXPORT_HEADER = [
  'email',
  'description',
  'created_at',
  'invited_at',
  'activated_at',
  'confirmed_at',
  'state',
  'language',
];

/** Text gathered before it is handed on: one write per chunk, not per row. */
const CHUNK_CHARS = 64 * 1024;

/**
 * The signups as RFC 4180 CSV, header first, newest first, in chunks of whole lines. Each row is
 * turned to text as the store reads it and nothing is kept once handed on, so a million signups
 * take the memory of one chunk, provided the caller waits for its reader before asking for more.
 */
export async function* exportSignups(
  { store }: SignupsDeps,
  input: SignupsSince = {},
): AsyncIterable<string> {
  let chunk = csvLine(EXPORT_HEADER);
  for await (const r of store.signups.stream(sinceText(input))) {
    chunk += csvLine([
      r.email,
      r.description,
      r.created_at,
      r.invited_at,
      r.activated_at,
      r.confirmed_at,
      r.state,
      r.language,
    ]);
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  yield chunk;
}
