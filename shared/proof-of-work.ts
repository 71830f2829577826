// ALTCHA proof of work (decision 0024), the v1 protocol of altcha-lib: the server hands out a
// signed challenge, SHA-256(salt + n) for a secret n ≤ maxnumber; the browser finds n by trying
// each number in turn and sends it back with the challenge. The names and shapes every side
// shares; the solver is proof-of-work-solver.ts, apart, so the first load carries none of it.

/** The signup field that carries a solution, as the ALTCHA widget names it. */
export const PROOF_FIELD = 'altcha';

/** Where a client gets a fresh challenge (GET, `Cache-Control: no-store`). */
export const CHALLENGE_PATH = '/api/challenge';

/** A challenge as GET /api/challenge answers it (altcha-lib/v1's Challenge). */
export interface ProofChallenge {
  algorithm: 'SHA-256';
  challenge: string;
  maxnumber: number;
  /** Random hex, then the signed parameters (`?expires=…&`). */
  salt: string;
  signature: string;
}

/** A solved challenge; the `altcha` field is its JSON in base64 (proof-of-work-solver.ts). */
export interface ProofSolution {
  algorithm: 'SHA-256';
  challenge: string;
  number: number;
  salt: string;
  signature: string;
  /** How long the solve took, in ms (informative only). */
  took: number;
}
