// The webhook events of a signup's life, for both engines. A change a person makes through a link
// or the operator through the CLI (a confirmation, an invitation, an activation, a bounce) writes
// its event in its own transaction (emitSignupEvent), as an erasure writes its `signup.left`
// (../erasure.ts). A new signup does not: its one statement only marks `signup.created` as due
// (../signups.ts), so a new and a known address cost the same before the answer (decision 0021),
// and the webhook worker writes the due events just after (writeDueCreations). Every other
// event of a signup first writes the creation it is still due, so a receiver is sent
// `signup.created` before anything else about the signup.
import type { Language } from '../../../shared/i18n/languages';
import { SOURCE_FIELDS } from '../../../shared/sources';
import { STATE, type SourceColumns } from '../signups';
import type { Queryable, Sql } from '../sql';
import { emitWebhookEvents } from './events';
import type { WebhookEvent } from './types';

/** The `signup.created` webhook events new signups are due. */
export interface SignupEvents {
  /**
   * Writes up to `limit` due events, oldest first, in the transaction that clears their marks;
   * how many. Signups another replica's round holds are passed over.
   */
  writeDueCreations(limit: number): Promise<number>;
}

interface DueRow extends SourceColumns {
  id: number;
  email: string;
  email_key: string;
  created_at: string;
  created_state: string;
  language: Language;
}

/**
 * The state the signup was created in: confirmed in its own statement (confirmation off), or
 * unconfirmed. Read from the row, since the event may be written after the state changed.
 */
const DUE_RETURNING = `RETURNING id, email, email_key, created_at, language,
  ${SOURCE_FIELDS.join(', ')},
  CASE WHEN confirmed_at = created_at THEN 'waitlisted' ELSE 'unconfirmed' END AS created_state`;

/** The `signup.created` events of due rows, oldest first. */
function creations(rows: DueRow[]) {
  return [...rows]
    .sort((a, b) => a.created_at.localeCompare(b.created_at))
    .map((row) => ({
      event: {
        type: 'signup.created' as const,
        signup: {
          id: Number(row.id),
          email: row.email,
          emailKey: row.email_key,
          state: row.created_state,
          language: row.language,
          source: sourceOf(row),
        },
      },
      // The event's time is the signup's, which also puts it first among the due deliveries.
      at: Date.parse(row.created_at),
    }));
}

/** The signup's source columns alone, out of a row that holds more. */
function sourceOf(row: SourceColumns): SourceColumns {
  return Object.fromEntries(SOURCE_FIELDS.map((field) => [field, row[field]])) as SourceColumns;
}

/** What an event says of a signup, read in its transaction after the change. */
export interface SignupOfEvent extends SourceColumns {
  id: number;
  email: string;
  email_key: string;
  state: string;
  language: Language;
}

/** The signup's columns an event needs, in the state as stored (for SELECT or RETURNING). */
export const SIGNUP_OF_EVENT = `id, email, email_key, ${STATE} AS state, language,
  ${SOURCE_FIELDS.join(', ')}`;

/**
 * `type` for the signup, on the transaction of the change it reports, after the `signup.created`
 * the signup may still be due; `detail` adds what the event says beyond the signup (a bounce's
 * provider and kind).
 */
export async function emitSignupEvent(
  tx: Queryable,
  type: WebhookEvent['type'],
  signup: SignupOfEvent,
  at: number,
  detail?: Record<string, string>,
): Promise<void> {
  const { rows } = await tx.query<DueRow>(
    `UPDATE signups
     SET created_event_due_at = NULL
     WHERE email_key = $1 AND created_event_due_at IS NOT NULL
     ${DUE_RETURNING}`,
    [signup.email_key],
  );
  const { id, email, email_key: emailKey, state, language } = signup;
  const source = sourceOf(signup);
  await emitWebhookEvents(tx, [
    ...creations(rows),
    {
      event: {
        type,
        signup: { id: Number(id), email, emailKey, state, language, source },
        ...(detail && { detail }),
      },
      at,
    },
  ]);
}

export function createSignupEvents(sql: Sql): SignupEvents {
  return {
    async writeDueCreations(limit) {
      // Most rounds find none: a read on the partial index, not a write transaction every second.
      const due = await sql.query(
        `SELECT 1 AS one
         FROM signups
         WHERE created_event_due_at IS NOT NULL
         LIMIT 1`,
      );
      if (due.rows.length === 0) return 0;
      return sql.transaction(async (tx) => {
        const { rows } = await tx.query<DueRow>(
          `UPDATE signups
           SET created_event_due_at = NULL
           WHERE email_key IN (
             SELECT email_key
             FROM signups
             WHERE created_event_due_at IS NOT NULL
             ORDER BY created_event_due_at
             LIMIT $1${sql.skipLocked}
           )
           ${DUE_RETURNING}`,
          [limit],
        );
        await emitWebhookEvents(tx, creations(rows));
        return rows.length;
      });
    },
  };
}
