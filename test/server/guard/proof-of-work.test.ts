// ALTCHA proof of work on the API, with PROOF_OF_WORK on, on both engines: GET /api/challenge hands
// out a challenge the site answers itself (with BACKEND_URL too), a signup with its solution is
// stored once, and the same solution sent again to another replica is answered as the honeypot
// is; a signup with no solution, or one that does not verify, is never stored and never a 5xx;
// every turn-away is counted. With it off the route does not exist and signups need nothing.
import { createChallenge } from 'altcha-lib/v1';
import request from 'supertest';
import { createApp } from '../../../server/app';
import { createMetrics } from '../../../server/metrics';
import { CHALLENGE_TTL_MS } from '../../../server/guard/proof-of-work';
import type { Store } from '../../../server/store/types';
import { CHALLENGE_PATH, PROOF_FIELD, type ProofChallenge } from '../../../shared/proof-of-work';
import { encodeProof, solve } from '../../../shared/proof-of-work-solver';
import { startBackend, type TestBackend } from '../../support/backend';
import { testConfig } from '../../support/config';
import { besideStore, describeEachEngine, type StoreEngine } from '../../support/stores';

const START = Date.parse('2026-03-01T00:00:00.000Z');
/** A small difficulty keeps each solve in the test to a few milliseconds. */
const MAX_NUMBER = '2000';

type App = ReturnType<typeof createApp>;

function proofTests(engine: StoreEngine) {
  let time: number;
  const now = () => time;
  let store: Store;
  let metrics: ReturnType<typeof createMetrics>;

  const siteOn = (on: Store, env: Record<string, string> = {}) =>
    createApp(testConfig({ PROOF_OF_WORK: 'on', PROOF_OF_WORK_MAX_NUMBER: MAX_NUMBER, ...env }), {
      store: on,
      metrics,
      now,
    });

  const join = (app: App, email: string, proof?: string) => {
    const post = request(app).post('/api/subscriptions').field('email', email);
    return proof === undefined ? post : post.field(PROOF_FIELD, proof);
  };

  async function solvedProof(app: App): Promise<string> {
    const res = await request(app).get(CHALLENGE_PATH);
    expect(res.status).toBe(200);
    const solution = await solve(res.body as ProofChallenge);
    expect(solution).not.toBeNull();
    return encodeProof(solution!);
  }

  async function refusals(reason: string): Promise<number> {
    const text = await metrics.registry.metrics();
    const line = new RegExp(
      `^signup_guard_refusals_total\\{route="api",reason="${reason}"\\} (\\d+)$`,
      'm',
    ).exec(text);
    return Number(line?.[1]);
  }

  const emails = async () => (await store.signups.list()).map((signup) => signup.email);

  beforeEach(async () => {
    time = START;
    store = await engine.open({ now });
    metrics = createMetrics({ pending: { outbox: () => 0, mail: () => 0 } });
  });

  it('hands out a fresh challenge, never cached, of the configured difficulty', async () => {
    const app = siteOn(store);
    const first = await request(app).get(CHALLENGE_PATH);
    const second = await request(app).get(CHALLENGE_PATH);
    expect(first.status).toBe(200);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.body).toMatchObject({ algorithm: 'SHA-256', maxnumber: Number(MAX_NUMBER) });
    expect(second.body.signature).not.toBe(first.body.signature);
    expect((await request(app).post(CHALLENGE_PATH)).status).toBe(405);
  });

  it('stores a solved signup once; the same solution on another replica is dropped', async () => {
    const other = await besideStore(store, now);
    try {
      const app = siteOn(store);
      const replica = siteOn(other);
      const proof = await solvedProof(app);

      expect((await join(app, 'first@example.com', proof)).status).toBe(201);
      const replayed = await join(replica, 'second@example.com', proof);
      expect(replayed.status).toBe(201);
      expect(replayed.body).toEqual({ email: 'second@example.com' });
      expect((await join(app, 'third@example.com', proof)).status).toBe(201);

      expect(await emails()).toEqual(['first@example.com']);
      expect(await refusals('spent-proof')).toBe(2);
    } finally {
      await other.close();
    }
  });

  it('drops a signup without a solution, answered like a success and counted', async () => {
    const app = siteOn(store);
    const res = await join(app, 'script@example.com');
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ email: 'script@example.com' });
    expect(await emails()).toEqual([]);
    expect(await refusals('no-proof')).toBe(1);
  });

  it('drops forged, expired and malformed solutions without a 5xx', async () => {
    const app = siteOn(store);
    const good = JSON.parse(atob(await solvedProof(app))) as Record<string, unknown>;
    const base64 = (value: unknown) => btoa(JSON.stringify(value));
    // Signed with a key that is not the site's.
    const foreign = await createChallenge({
      hmacKey: 'not-the-site-key',
      maxnumber: Number(MAX_NUMBER),
      expires: new Date(START + CHALLENGE_TTL_MS),
    });
    const forged = encodeProof((await solve(foreign as ProofChallenge))!);
    const bad = [
      forged,
      base64({ ...good, number: (good.number as number) + 1 }),
      base64({ ...good, signature: '0'.repeat(64) }),
      base64({ ...good, algorithm: 'SHA-1' }),
      base64({ ...good, number: 'one' }),
      base64(null),
      base64([1, 2]),
      'not base64 at all %%%',
      btoa('{"broken json'),
      'x'.repeat(5000),
    ];
    for (const [i, proof] of bad.entries()) {
      const res = await join(app, `bot${i}@example.com`, proof);
      expect({ proof, status: res.status }).toEqual({ proof, status: 201 });
    }
    // A JSON signup whose field is not a string at all.
    const asObject = await request(app)
      .post('/api/subscriptions')
      .send({ email: 'json@example.com', [PROOF_FIELD]: good });
    expect(asObject.status).toBe(201);

    // A genuine solution, sent after its challenge expired.
    const late = await solvedProof(app);
    time += CHALLENGE_TTL_MS + 1;
    expect((await join(app, 'late@example.com', late)).status).toBe(201);

    expect(await emails()).toEqual([]);
    expect(await refusals('bad-proof')).toBe(bad.length + 2);
  });

  describe('with BACKEND_URL set', () => {
    let backend: TestBackend;
    beforeEach(async () => {
      backend = await startBackend();
    });
    afterEach(() => backend.close());

    it('answers the challenge itself and relays only a solved signup', async () => {
      const app = siteOn(store, { BACKEND_URL: backend.url });
      const res = await request(app).get(CHALLENGE_PATH);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ algorithm: 'SHA-256' });

      expect((await join(app, 'script@example.com')).status).toBe(201);
      const proof = encodeProof((await solve(res.body as ProofChallenge))!);
      expect((await join(app, 'person@example.com', proof)).status).toBe(201);
      expect(backend.received.map((received) => received.fields?.email)).toEqual([
        'person@example.com',
      ]);
    });
  });

  it('with PROOF_OF_WORK off: no challenge route, and signups need no solution', async () => {
    const app = createApp(testConfig(), { store, metrics, now });
    const res = await request(app).get(CHALLENGE_PATH);
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Not found' });
    expect((await join(app, 'plain@example.com')).status).toBe(201);
    expect(await emails()).toEqual(['plain@example.com']);
  });
}

describeEachEngine(proofTests);

describe('a partner page (ALLOWED_ORIGINS)', () => {
  it('may read a challenge; another origin may not', async () => {
    const app = createApp(
      testConfig({ PROOF_OF_WORK: 'on', ALLOWED_ORIGINS: 'https://partner.example' }),
    );
    const partner = await request(app).get(CHALLENGE_PATH).set('Origin', 'https://partner.example');
    expect(partner.headers['access-control-allow-origin']).toBe('https://partner.example');
    const stranger = await request(app).get(CHALLENGE_PATH).set('Origin', 'https://evil.example');
    expect(stranger.status).toBe(200);
    expect(stranger.headers['access-control-allow-origin']).toBeUndefined();
  });
});
