// ALTCHA proof of work for the API (decision 0024): challenges made and verified with altcha-lib's
// v1 protocol, signed with a key every replica shares, expiring, and spent on their first use by
// any replica (the store's guard tokens), so one solution never buys a second signup.
import { createChallenge, extractParams, verifySolution } from 'altcha-lib/v1';
import { PROOF_FIELD, type ProofChallenge, type ProofSolution } from '../../shared/proof-of-work';
import type { Config } from '../config';
import type { Store } from '../store';

export type ProofCheck = 'ok' | 'no-proof' | 'bad-proof' | 'spent-proof';

export interface ProofOfWork {
  /** A new challenge, as GET /api/challenge answers it (ALTCHA's JSON). */
  challenge(): Promise<ProofChallenge>;
  /** The signup's `altcha` field: a solution of a challenge we made, unexpired, never used. */
  check(fields: Record<string, unknown>): Promise<ProofCheck>;
}

/**
 * How long a challenge may be solved and sent: a visitor focuses the form, then types; ten minutes
 * covers a slow typist, and keeps the spent signatures the store must remember few.
 */
export const CHALLENGE_TTL_MS = 10 * 60_000;

const KEY_NAME = 'proof-of-work';
const HEX = /^[0-9a-f]{64}$/;

/** The field's JSON, if it has a solution's shape; anything else is not ours. */
function solutionOf(value: string): ProofSolution | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!parsed || typeof parsed !== 'object') return undefined;
  const { algorithm, challenge, number, salt, signature } = parsed as Record<string, unknown>;
  const fits =
    algorithm === 'SHA-256' &&
    typeof challenge === 'string' &&
    HEX.test(challenge) &&
    typeof signature === 'string' &&
    HEX.test(signature) &&
    typeof salt === 'string' &&
    salt.length <= 200 &&
    Number.isSafeInteger(number) &&
    (number as number) >= 0;
  return fits ? (parsed as ProofSolution) : undefined;
}

export function proofOfWork({
  config,
  store,
  now,
}: {
  config: Pick<Config, 'proofOfWorkMaxNumber'>;
  store: Pick<Store, 'consoleKeys' | 'guardTokens'>;
  now: () => number;
}): ProofOfWork {
  const hmacKey = () => store.consoleKeys.get(KEY_NAME);
  return {
    async challenge() {
      const made = await createChallenge({
        hmacKey: await hmacKey(),
        maxnumber: config.proofOfWorkMaxNumber,
        expires: new Date(now() + CHALLENGE_TTL_MS),
      });
      return made as ProofChallenge;
    },

    async check(fields) {
      const value = fields[PROOF_FIELD];
      if (value === undefined || value === '') return 'no-proof';
      const solution = typeof value === 'string' ? solutionOf(value) : undefined;
      if (!solution) return 'bad-proof';
      // The expiry rides in the salt, which the challenge's hash covers: it cannot be moved.
      const expiresAt = Number(extractParams(solution).expires) * 1000;
      if (!Number.isSafeInteger(expiresAt) || expiresAt <= now()) return 'bad-proof';
      if (!(await verifySolution(solution, await hmacKey(), false))) return 'bad-proof';
      const firstUse = await store.guardTokens.use(solution.signature, 1, expiresAt);
      return firstUse ? 'ok' : 'spent-proof';
    },
  };
}
