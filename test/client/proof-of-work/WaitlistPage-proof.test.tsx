// The waitlist form with PROOF_OF_WORK on, in jsdom against a real multer backend that hands out
// real ALTCHA challenges: the visitor's first interaction with the form fetches a challenge; a
// Join pressed before it is solved shows the pending state and sends once solved, with an
// `altcha` field that verifies; a failed solve is tried once more; with it off nothing is fetched.
// jsdom has no Worker: the test stands one in that does what client/proof-of-work/solver.worker.ts
// does (fetch the challenge from the URL it is posted, solve, post back the field) in the page,
// held until the test lets it go.
import { webcrypto } from 'node:crypto';
import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createChallenge, verifySolution } from 'altcha-lib/v1';
import { createApiClient } from '../../../shared/api';
import { CHALLENGE_PATH, PROOF_FIELD, type ProofChallenge } from '../../../shared/proof-of-work';
import { encodeProof, solve } from '../../../shared/proof-of-work-solver';
import { backendForEachTest } from '../../support/backend';
import { appTree } from '../../support/render-route';

const HMAC_KEY = 'test-key';
const JOINED =
  'You are successfully joined to the wait list. Want to get your invitation faster? Join patreon';

// jsdom's crypto has no SubtleCrypto, which every browser the site supports has.
if (!globalThis.crypto.subtle)
  Object.defineProperty(globalThis.crypto, 'subtle', { value: webcrypto.subtle });

const backend = backendForEachTest();
beforeEach(() => {
  localStorage.clear();
  backend.respondWith(async (req, res) => {
    if (req.method === 'GET' && req.path === CHALLENGE_PATH) {
      res.json(await createChallenge({ hmacKey: HMAC_KEY, maxnumber: 2000 }));
      return;
    }
    res.status(201).json({ email: 'ok' });
  });
});

/** A stand-in for the solver's Worker, held until the test lets it go; counts the workers. */
function heldSolver(failures = 0) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const calls: number[] = [];
  class HeldWorker {
    onmessage: ((event: { data: string | null }) => void) | null = null;
    onerror: (() => void) | null = null;
    postMessage(challengeUrl: string) {
      const call = calls.push(calls.length);
      void (async () => {
        const challenge = (await (await fetch(challengeUrl)).json()) as ProofChallenge;
        await released;
        if (call <= failures) return this.onerror?.();
        this.onmessage?.({ data: encodeProof((await solve(challenge))!) });
      })();
    }
    terminate() {}
  }
  return { Worker: HeldWorker, release, calls };
}

function renderForm(held: ReturnType<typeof heldSolver>, proofOfWork = true) {
  Object.defineProperty(globalThis, 'Worker', { value: held.Worker, configurable: true });
  const api = createApiClient({ baseUrl: backend.url });
  return render(appTree('/', { api, config: { proofOfWork } }).tree);
}

async function fill(user: ReturnType<typeof userEvent.setup>, email: string) {
  await user.type(screen.getByLabelText('Email'), email);
  await user.type(screen.getByLabelText('About me (or github profile)'), 'github.com/me');
}

async function joined() {
  await screen.findByRole('heading', { name: 'Congratulations' });
  expect(screen.getByRole('status')).toHaveTextContent(JOINED);
}

const requests = (method: string) => backend.received.filter((r) => r.method === method);

describe('waitlist form with proof of work', () => {
  it('solves on first use and sends the solution once solved, even if Join came first', async () => {
    const user = userEvent.setup();
    const held = heldSolver();
    renderForm(held);
    expect(requests('GET')).toHaveLength(0);

    await fill(user, 'person@example.com');
    await waitFor(() => expect(held.calls).toHaveLength(1));
    expect(requests('GET').map((r) => r.url)).toEqual([CHALLENGE_PATH]);

    await user.click(screen.getByRole('button', { name: 'Join' }));
    // Pressed before the solver finished: pending, and nothing sent yet.
    expect(screen.getByRole('button', { name: /Join/ })).toHaveAttribute('aria-busy', 'true');
    expect(requests('POST')).toHaveLength(0);

    held.release();
    await joined();
    const [post] = requests('POST');
    expect(post.fields?.email).toBe('person@example.com');
    const proof = post.fields?.[PROOF_FIELD];
    expect(typeof proof).toBe('string');
    expect(await verifySolution(proof as string, HMAC_KEY)).toBe(true);
  });

  it('tries a failed solve once more, with a fresh challenge', async () => {
    const user = userEvent.setup();
    const held = heldSolver(1);
    renderForm(held);
    await fill(user, 'again@example.com');
    held.release();
    await user.click(screen.getByRole('button', { name: 'Join' }));
    await joined();
    expect(held.calls).toHaveLength(2);
    expect(requests('GET')).toHaveLength(2);
    const proof = requests('POST')[0].fields?.[PROOF_FIELD];
    expect(await verifySolution(proof as string, HMAC_KEY)).toBe(true);
  });

  it('with PROOF_OF_WORK off, fetches no challenge and sends no field', async () => {
    const user = userEvent.setup();
    const held = heldSolver();
    renderForm(held, false);
    await fill(user, 'plain@example.com');
    await user.click(screen.getByRole('button', { name: 'Join' }));
    await joined();
    expect(held.calls).toHaveLength(0);
    expect(requests('GET')).toHaveLength(0);
    expect(requests('POST')[0].fields).not.toHaveProperty(PROOF_FIELD);
  });
});
