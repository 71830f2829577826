// The bot guard's spent tokens, for both engines (decision 0024): a proof-of-work challenge a
// signup solved, or the signed issue time a no-JavaScript form carried. Each is counted in one row
// by its SHA-256, by every replica, in one statement: an insert, or an increment while the count
// is under the token's limit, so two replicas taking the same token at once never both get past
// the limit. A token is worth nothing after its own expiry whatever its row says; the rows are
// pruned after it.
import { hashSecret } from './secrets';
import type { Sql } from './sql';

/** The bot guard's spent tokens, shared by every replica. */
export interface GuardTokens {
  /**
   * Counts one use of `token` (a solved proof-of-work challenge, a form's signed issue time),
   * kept until `expiresAt` (ms): true while its uses are within `limit` (1: once only).
   */
  use(token: string, limit: number, expiresAt: number): Promise<boolean>;
  /** Deletes up to `limit` tokens past their expiry; how many. */
  prune(limit: number): Promise<number>;
}

export function createGuardTokens(sql: Sql, now: () => number): GuardTokens {
  return {
    async use(token, limit, expiresAt) {
      const { rows } = await sql.query(
        `INSERT INTO guard_tokens (token_hash, uses, expires_at)
         VALUES ($1, 1, $3)
         ON CONFLICT (token_hash) DO UPDATE
         SET uses = guard_tokens.uses + 1
         WHERE guard_tokens.uses < $2
         RETURNING uses`,
        [hashSecret(token), limit, expiresAt],
      );
      return rows.length === 1;
    },

    async prune(limit) {
      const { rowCount } = await sql.query(
        `DELETE FROM guard_tokens
         WHERE token_hash IN (
           SELECT token_hash
           FROM guard_tokens
           WHERE expires_at <= $1
           LIMIT $2
         )`,
        [now(), limit],
      );
      return rowCount;
    },
  };
}
