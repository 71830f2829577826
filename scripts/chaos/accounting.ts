// The chaos run's verdict, by the definitions:
// - a request whose answer never came (its replica was killed with it in flight, or was down when
//   it was sent) is unanswered, not lost;
// - a signup is lost only if it was answered 2xx and is not stored at the end (unless a leave was
//   sent for it: an unanswered leave may have been applied);
// - a mail is sent twice when the sink accepted the same Message-ID, or the same kind, recipient
//   and tokens, a second time; that is excused only where the replica that sent the earlier copy
//   was killed after the sink accepted it and before the sink accepted the copy (its claim then
//   ran out unfinished);
// - every confirmation answered 2xx is applied, and once (the link is refused afterwards); every
//   leave answered 2xx is applied (the address, its mail, tokens and keys are gone);
// - no 5xx other than 503 with Retry-After.
import { emailKey } from '../../shared/form-checks';
import { query } from '../lib/launch/postgres';
import type { Kill } from './faults';
import type { Kind, LoadRecord, Sent } from './load';
import type { AcceptedMail } from './mail-sink';

/**
 * The sink stamps a message when its last byte is read, which can be a moment after the sender
 * died with it written: a kill this much before the stamp still counts as after the acceptance.
 */
const ACCEPTANCE_SLACK_MS = 1_000;

export interface Tally {
  byKind: Map<Kind, Map<string, number>>;
  unanswered: number;
  unansweredWhy: Map<string, number>;
  lostSignups: string[];
  mails: { accepted: number; byKind: Map<string, number> };
  duplicates: { excused: number; unexcused: AcceptedMail[] };
  confirms: { answered2xx: number; applied: number; notApplied: string[]; twice: string[] };
  leaves: { answered2xx: number; applied: number; notApplied: string[] };
  serverErrors: Sent[];
  unexpected: Sent[];
  /** Mail the store says went out that the sink never accepted. */
  sentNeverReceived: string[];
  /** Mail still waiting in the queue at the end (not a miss: it goes out later). */
  stillQueued: number;
  misses: number;
}

export async function account(
  databaseUrl: string,
  load: LoadRecord,
  kills: Kill[],
  mails: AcceptedMail[],
): Promise<Tally> {
  const byKind = new Map<Kind, Map<string, number>>();
  const unansweredWhy = new Map<string, number>();
  const serverErrors: Sent[] = [];
  const unexpected: Sent[] = [];
  const confirmsOk = new Map<string, number>();
  for (const sent of load.sent) {
    const { outcome } = sent;
    const label = outcome.answered ? String(outcome.status) : 'unanswered';
    bump(byKind.get(sent.kind) ?? byKind.set(sent.kind, new Map()).get(sent.kind)!, label);
    if (!outcome.answered) {
      bump(unansweredWhy, outcome.error);
      continue;
    }
    const allowed503 = outcome.status === 503 && outcome.headers['retry-after'] !== undefined;
    if (outcome.status >= 500 && !allowed503) serverErrors.push(sent);
    else if (!allowed503 && (!sent.expected.includes(outcome.status) || sent.wrong))
      unexpected.push(sent);
    if (sent.kind.startsWith('confirm') && outcome.status === 200 && sent.email)
      bump(confirmsOk, sent.email);
  }

  const stored = new Map(
    (
      await query<{ email: string; confirmed: boolean }>(
        databaseUrl,
        'SELECT email, confirmed_at IS NOT NULL AS confirmed FROM signups',
      )
    ).map((row) => [row.email, row.confirmed]),
  );
  const lostSignups = [...load.signedUp].filter(
    (email) => !stored.has(email) && !load.leaveTried.has(email),
  );
  const notConfirmed = [...load.confirmed].filter((email) => stored.get(email) !== true);
  const confirmedTwice = [...confirmsOk].filter(([, n]) => n > 1).map(([email]) => email);
  const leftover = await remainsOf(databaseUrl, [...load.left]);
  const notLeft = [...load.left].filter((email) => leftover.has(emailKey(email)));

  const duplicates = sentTwice(mails, kills);
  const receivedIds = new Set(mails.map((mail) => mail.messageId));
  const sentIds = await query<{ message_id: string }>(
    databaseUrl,
    "SELECT message_id FROM mail WHERE state = 'sent'",
  );
  const sentNeverReceived = sentIds
    .map((row) => row.message_id)
    .filter((id) => !receivedIds.has(id));
  const [{ n: stillQueued }] = await query<{ n: number }>(
    databaseUrl,
    `SELECT (SELECT COUNT(*) FROM mail WHERE state = 'queued')
          + (SELECT COUNT(*) FROM signups WHERE confirmation_due_at IS NOT NULL) AS n`,
  );

  const mailKinds = new Map<string, number>();
  for (const mail of mails) bump(mailKinds, mail.subject);
  const tally: Tally = {
    byKind,
    unanswered: [...unansweredWhy.values()].reduce((a, b) => a + b, 0),
    unansweredWhy,
    lostSignups,
    mails: { accepted: mails.length, byKind: mailKinds },
    duplicates,
    confirms: {
      answered2xx: load.confirmed.size,
      applied: load.confirmed.size - notConfirmed.length,
      notApplied: notConfirmed,
      twice: confirmedTwice,
    },
    leaves: {
      answered2xx: load.left.size,
      applied: load.left.size - notLeft.length,
      notApplied: notLeft,
    },
    serverErrors,
    unexpected,
    sentNeverReceived,
    stillQueued: Number(stillQueued),
    misses: 0,
  };
  tally.misses =
    lostSignups.length +
    duplicates.unexcused.length +
    notConfirmed.length +
    confirmedTwice.length +
    notLeft.length +
    serverErrors.length +
    unexpected.length +
    sentNeverReceived.length;
  return tally;
}

/** Copies accepted a second time: excused (the sender died holding the claim) or not. */
function sentTwice(mails: AcceptedMail[], kills: Kill[]): Tally['duplicates'] {
  const last = new Map<string, AcceptedMail>();
  const unexcused: AcceptedMail[] = [];
  let excused = 0;
  for (const mail of mails) {
    const logical = [mail.subject, mail.to, mail.leaveToken, mail.confirmToken ?? ''].join('\n');
    const keys = [`id ${mail.messageId}`, `mail ${logical}`];
    const earlier = keys.map((key) => last.get(key)).find((copy) => copy !== undefined);
    for (const key of keys) last.set(key, mail);
    if (!earlier) continue;
    const senderDied = kills.some(
      (kill) =>
        kill.replica === earlier.replica &&
        kill.at >= earlier.at - ACCEPTANCE_SLACK_MS &&
        kill.at <= mail.at,
    );
    if (senderDied) excused++;
    else unexcused.push(mail);
  }
  return { excused, unexcused };
}

/** The email keys among these addresses that still have a signup, mail, link or key stored. */
async function remainsOf(databaseUrl: string, emails: string[]): Promise<Set<string>> {
  const keys = emails.map(emailKey);
  const rows = await query<{ email_key: string }>(
    databaseUrl,
    `SELECT email_key FROM signups WHERE email_key = ANY($1)
     UNION SELECT email_key FROM mail WHERE email_key = ANY($1)
     UNION SELECT email_key FROM address_tokens WHERE email_key = ANY($1)
     UNION SELECT email_key FROM activation_keys WHERE email_key = ANY($1)`,
    [keys],
  );
  return new Set(rows.map((row) => row.email_key));
}

function bump<K>(counts: Map<K, number>, key: K): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}
