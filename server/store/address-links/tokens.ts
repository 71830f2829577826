// The address_tokens table, for both engines: each token is 192 random bits, shown only in its
// mail and stored only as its SHA-256, for one address and one purpose (confirm, leave).
import type { LinkPurpose, LinkRefusal } from '../../../shared/address-links';
import { hashSecret, newSecret, SECRET_SHAPE } from '../secrets';
import { MAIL_AGAIN_AFTER_MS } from '../signups';
import type { Queryable } from '../sql';

export interface TokenRow {
  email: string;
  email_key: string;
  expires_at: string | null;
  used_at: string | null;
  activated_at: string | null;
}

/** One token to issue; `validMs` undefined: it works as long as the address is stored. */
interface TokenRequest {
  emailKey: string;
  purpose: LinkPurpose;
  validMs?: number;
}

/**
 * New tokens, in the order asked, written in one statement (the mail worker issues a batch's at
 * once).
 */
export async function issueTokens(
  tx: Queryable,
  requests: TokenRequest[],
  at: number,
): Promise<string[]> {
  const tokens = requests.map(() => newSecret());
  const values = requests.flatMap(({ emailKey, purpose, validMs }, i) => [
    hashSecret(tokens[i]),
    emailKey,
    purpose,
    new Date(at).toISOString(),
    validMs === undefined ? null : new Date(at + validMs).toISOString(),
  ]);
  const rows = requests.map(
    (_, i) => `($${i * 5 + 1}, $${i * 5 + 2}, $${i * 5 + 3}, $${i * 5 + 4}, $${i * 5 + 5})`,
  );
  if (rows.length > 0)
    await tx.query(
      `INSERT INTO address_tokens (token_hash, email_key, purpose, created_at, expires_at)
       VALUES ${rows.join(', ')}`,
      values,
    );
  return tokens;
}

export async function issueToken(
  tx: Queryable,
  emailKey: string,
  purpose: LinkPurpose,
  at: number,
  validMs?: number,
): Promise<string> {
  return (await issueTokens(tx, [{ emailKey, purpose, validMs }], at))[0];
}

/** How many links of `purpose` went to the address within the last MAIL_AGAIN_AFTER_MS. */
export async function linksMailedRecently(
  tx: Queryable,
  emailKey: string,
  purpose: LinkPurpose,
  at: number,
): Promise<number> {
  const { rows } = await tx.query<{ n: number }>(
    `SELECT COUNT(*) AS n
     FROM address_tokens
     WHERE email_key = $1 AND purpose = $2 AND created_at > $3`,
    [emailKey, purpose, new Date(at - MAIL_AGAIN_AFTER_MS).toISOString()],
  );
  return Number(rows[0].n);
}

/**
 * The token's row with its signup, or why it is worth nothing. `lock`: the signup's row, until the
 * transaction ends.
 */
export async function lookUp(
  q: Queryable,
  purpose: LinkPurpose,
  token: string,
  at: number,
  lock = '',
): Promise<TokenRow | LinkRefusal> {
  if (!SECRET_SHAPE.test(token)) return 'malformed';
  const { rows } = await q.query<TokenRow>(
    `SELECT signups.email, signups.email_key, expires_at, used_at, activated_at
     FROM address_tokens
     JOIN signups USING (email_key)
     WHERE token_hash = $1 AND purpose = $2${lock}`,
    [hashSecret(token), purpose],
  );
  const row = rows[0];
  if (!row) return 'invalid';
  if (row.used_at !== null) return 'spent';
  if (row.expires_at !== null && row.expires_at <= new Date(at).toISOString()) return 'expired';
  return row;
}

/** Deletes tokens issued in the caller's transaction whose mail could not be queued. */
export async function deleteTokens(
  tx: Queryable,
  table: 'address_tokens' | 'data_tokens',
  tokens: string[],
): Promise<void> {
  for (const token of tokens)
    await tx.query(
      `DELETE FROM ${table}
       WHERE token_hash = $1`,
      [hashSecret(token)],
    );
}
