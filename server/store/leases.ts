// What both queues (outbox.ts, mail-queue.ts) share: their bounded insert and their claim, how
// long a claim lasts, how long a failed item waits, and whose claim is current (fencing).
//
// The fencing token is the claim's own expiry, lease_until. A row is claimed again only once its
// lease has run out, so each new claim writes a larger lease_until than the one before: the
// value names the claim, and no column or migration is needed for it. An outcome (done, failed,
// rescheduled, released) is recorded only where the row still holds the lease_until this claim
// wrote: a worker that stalled past its lease (a paused process, a long GC, a slow disk) finds the
// row claimed by another worker since, and changes nothing. The value stays with the store
// instance that claimed (one per process), keyed by item id, so callers keep passing ids. A call
// from outside any claim (an operator's tool) applies only to a row no one holds. A mail sender
// renews its claim while the mail server has the message (mail/send.ts): the renewal writes a
// larger lease_until too, only where the row still holds the one it replaces.
import { placeholders, type Sql } from './sql';

/**
 * A lease three attempts long, plus slack: an attempt at the backend ends within
 * UPSTREAM_TIMEOUT_MS, so an honest worker is long done before its lease runs out, and a replica
 * killed mid-attempt holds its items back only briefly. SMTP_TIMEOUT_MS bounds each wait of a
 * send, not the send, so a mail sender renews its claim as it goes (mail/send.ts).
 */
export function leaseFor(attemptTimeoutMs: number): number {
  return 3 * attemptTimeoutMs + 5_000;
}

/**
 * Delay before retry number `attempts` (1-based): base, 2×base, 4×base …, ±20 % jitter, never over
 * `cap`.
 */
export function backoffMs(attempts: number, baseMs: number, capMs: number): number {
  const plain = baseMs * 2 ** Math.min(20, Math.max(0, attempts - 1));
  return Math.min(capMs, Math.round(plain * (0.8 + 0.4 * Math.random())));
}

/**
 * The insert of both queues, as one statement: a row of `columns` ($1 …) only while fewer rows
 * than the next parameter are `waiting`; the new row's id, or no row when the queue is full.
 */
export function enqueueStatement(
  table: 'outbox' | 'mail',
  waiting: 'pending' | 'queued',
  columns: readonly string[],
): string {
  return `INSERT INTO ${table} (${columns.join(', ')})
    SELECT ${placeholders(columns)}
    WHERE (SELECT COUNT(*) FROM ${table} WHERE state = '${waiting}') < $${columns.length + 1}
    RETURNING id`;
}

/**
 * The claim of both queues, as one statement: due rows no lease holds, oldest due first, leased
 * until $1 (now is $2, at most $3 rows). On PostgreSQL, rows another replica's claim is taking
 * right now are passed over; SQLite's single writer needs no such care.
 */
export function claimStatement(
  sql: Pick<Sql, 'skipLocked'>,
  table: 'outbox' | 'mail',
  waiting: 'pending' | 'queued',
  columns: string,
): string {
  return `UPDATE ${table}
    SET lease_until = $1
    WHERE id IN (
      SELECT id
      FROM ${table}
      WHERE state = '${waiting}' AND next_attempt_at <= $2 AND lease_until <= $2
      ORDER BY next_attempt_at, id
      LIMIT $3${sql.skipLocked}
    )
    RETURNING ${columns}`;
}

/** The claims this store instance holds: item id → the lease_until its claim wrote. */
export class Leases<Id extends number | string = number> {
  readonly #held = new Map<Id, number>();

  hold(ids: Iterable<Id>, leaseUntil: number): void {
    for (const id of ids) this.#held.set(id, leaseUntil);
  }

  /**
   * The lease_until of this instance's live claim on `id`; undefined when it holds none or lost it.
   */
  held(id: Id): number | undefined {
    const leaseUntil = this.#held.get(id);
    return leaseUntil === LOST ? undefined : leaseUntil;
  }

  /**
   * The condition an outcome for `id` adds to its UPDATE, with its parameter: the row still holds
   * this instance's claim, or (holding none) nobody's. `param` is the placeholder to use.
   */
  fence(id: Id, param: string, now: number): { where: string; value: number } {
    const leaseUntil = this.#held.get(id);
    return leaseUntil === undefined
      ? { where: `lease_until <= ${param}`, value: now }
      : { where: `lease_until = ${param}`, value: leaseUntil };
  }

  /**
   * The outcome was recorded, or refused because another worker holds the item now. A refused
   * claim is remembered as lost: a later call for the item from this instance matches no row
   * until it claims the item again.
   */
  end(id: Id, recorded: boolean): void {
    if (recorded) this.#held.delete(id);
    else this.#held.set(id, LOST);
  }
}

/** No claim writes a negative lease_until. */
const LOST = -1;
