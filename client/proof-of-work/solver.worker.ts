// The proof-of-work solver as a Web Worker (decision 0024): given the challenge's URL, it fetches a
// challenge, solves it and posts back the `altcha` field's value (null when it could not), keeping
// the page's main thread free while the visitor types. Bundled on its own (scripts/build.ts) and
// started only once the visitor touches the waitlist form (useProofOfWork.ts): the first load
// carries nothing of it but its URL.
import type { ProofChallenge } from '../../shared/proof-of-work';
import { encodeProof, solve } from '../../shared/proof-of-work-solver';

self.onmessage = async (event: MessageEvent<string>) => {
  try {
    const response = await fetch(event.data, { credentials: 'same-origin' });
    const solution = response.ok ? await solve((await response.json()) as ProofChallenge) : null;
    postMessage(solution && encodeProof(solution));
  } catch {
    postMessage(null);
  }
};
