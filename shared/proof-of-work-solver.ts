// Solving an ALTCHA challenge (proof-of-work.ts), isomorphic: WebCrypto only, so the same solve()
// runs in the browser's worker, in Node and in a partner's script. Apart from the shared names,
// which the first load needs, so that only the lazy chunks and the worker carry it.
import type { ProofChallenge, ProofSolution } from './proof-of-work';

const encoder = new TextEncoder();

/**
 * How many digests are asked for at once: WebCrypto answers each on a promise, and one at a time
 * the waiting costs ten times the hashing (measured in Node).
 */
const BATCH = 256;

/** The digest a challenge names, as bytes: comparing bytes beats writing each digest in hex. */
function bytesOf(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < bytes.length; i += 1) bytes[i] = parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

function sameBytes(digest: ArrayBuffer, target: Uint8Array): boolean {
  const bytes = new Uint8Array(digest);
  if (bytes.length !== target.length) return false;
  for (let i = 0; i < bytes.length; i += 1) if (bytes[i] !== target[i]) return false;
  return true;
}

/**
 * Finds the number behind a challenge; null when none up to maxnumber matches (not ours, or
 * forged) or when `signal` aborts.
 */
export async function solve(
  challenge: ProofChallenge,
  signal?: AbortSignal,
): Promise<ProofSolution | null> {
  const started = Date.now();
  const { algorithm, salt, signature, maxnumber } = challenge;
  const target = bytesOf(challenge.challenge);
  for (let first = 0; first <= maxnumber; first += BATCH) {
    if (signal?.aborted) return null;
    const last = Math.min(first + BATCH - 1, maxnumber);
    const digests = [];
    for (let number = first; number <= last; number += 1)
      digests.push(crypto.subtle.digest('SHA-256', encoder.encode(salt + number)));
    const found = (await Promise.all(digests)).findIndex((digest) => sameBytes(digest, target));
    if (found >= 0) {
      const number = first + found;
      const took = Date.now() - started;
      return { algorithm, challenge: challenge.challenge, number, salt, signature, took };
    }
  }
  return null;
}

/** The `altcha` field's value for a solution: its JSON in base64, as the ALTCHA widget sends. */
export function encodeProof(solution: ProofSolution): string {
  return btoa(JSON.stringify(solution));
}
