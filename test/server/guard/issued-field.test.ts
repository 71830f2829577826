// The plain form's signed issue time, with PROOF_OF_WORK on, through the form a visitor without
// JavaScript sends (POST /?index) on both engines: the prerendered `/` carries a field that takes
// a signup once a person could have filled the form; a form sent too soon, too late or with a
// field used up comes back with what was typed, a message and a fresh field, and Join from it
// stores the signup; a forged or missing field is answered as the honeypot is; one field's uses
// are bounded across replicas; `/` gets a new field before its field can go stale.
import request from 'supertest';
import { createApp } from '../../../server/app';
import {
  AGAIN_MIN_MS,
  FILL_MS,
  MIN_FILL_MS,
  REISSUE_MS,
  SHARED_USES,
} from '../../../server/guard/issued-field';
import { createMetrics } from '../../../server/metrics';
import type { Store } from '../../../server/store/types';
import { testConfig } from '../../support/config';
import { besideStore, describeEachEngine, type StoreEngine } from '../../support/stores';

const START = Date.parse('2026-03-01T00:00:00.000Z');
const AGAIN_MESSAGE = 'Almost there: press Join again.';
const PAGE_CACHE_SECONDS = 300;

type App = ReturnType<typeof createApp>;

/** The issue time a page's form carries, if any. */
function issuedOf(html: string): string | undefined {
  return /<input type="hidden" name="issued" value="([^"]+)"/.exec(html)?.[1];
}

function fieldTests(engine: StoreEngine) {
  let time: number;
  const now = () => time;
  let store: Store;
  let metrics: ReturnType<typeof createMetrics>;

  const siteOn = (on: Store) =>
    createApp(
      testConfig({
        PROOF_OF_WORK: 'on',
        SITE_URL: 'https://waitlist.example',
        PAGE_CACHE_SECONDS: String(PAGE_CACHE_SECONDS),
      }),
      { store: on, metrics, now },
    );

  const join = (app: App, email: string, issued?: string) => {
    const post = request(app)
      .post('/?index')
      .field('email', email)
      .field('description', 'github.com/me');
    return issued === undefined ? post : post.field('issued', issued);
  };

  async function pageField(app: App): Promise<string> {
    const page = await request(app).get('/');
    expect(page.status).toBe(200);
    const issued = issuedOf(page.text);
    expect(issued).toEqual(expect.any(String));
    return issued!;
  }

  async function refusals(reason: string): Promise<number> {
    const text = await metrics.registry.metrics();
    const line = new RegExp(
      `^signup_guard_refusals_total\\{route="form",reason="${reason}"\\} (\\d+)$`,
      'm',
    ).exec(text);
    return Number(line?.[1]);
  }

  const emails = async () => (await store.signups.list()).map((signup) => signup.email);

  /** The again form: status, message, what was typed, and the fresh field it carries. */
  function expectAgain(res: request.Response, email: string): string {
    expect(res.status).toBe(200);
    expect(res.text).toContain(`<p class="form-note" role="status">${AGAIN_MESSAGE}</p>`);
    expect(res.text).toMatch(new RegExp(`<input[^>]*name="email"[^>]*value="${email}"`));
    expect(res.text).toContain('github.com/me</textarea>');
    const issued = issuedOf(res.text);
    expect(issued).toEqual(expect.any(String));
    return issued!;
  }

  beforeEach(async () => {
    time = START;
    store = await engine.open({ now });
    metrics = createMetrics({ pending: { outbox: () => 0, mail: () => 0 } });
  });

  it("takes the prerendered page's form once a person could have filled it", async () => {
    const app = siteOn(store);
    const issued = await pageField(app);
    time += MIN_FILL_MS;
    const res = await join(app, 'ada@example.org', issued);
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/?joined');
    expect(await emails()).toEqual(['ada@example.org']);
  });

  it('brings a form sent too soon back, and Join from it stores the signup', async () => {
    const app = siteOn(store);
    const issued = await pageField(app);
    time += 1_000;
    const again = expectAgain(await join(app, 'bo@example.org', issued), 'bo@example.org');
    expect(again).not.toBe(issued);
    expect(await emails()).toEqual([]);
    expect(await refusals('too-soon')).toBe(1);

    // Still too soon a second later: the new field is not earlier than the one it replaces.
    time += 1_000;
    const third = expectAgain(await join(app, 'bo@example.org', again), 'bo@example.org');
    expect(await refusals('too-soon')).toBe(2);
    time = START + MIN_FILL_MS;
    expect((await join(app, 'bo@example.org', third)).status).toBe(303);
    expect(await emails()).toEqual(['bo@example.org']);
  });

  it('brings a stale form back, good after a press', async () => {
    const app = siteOn(store);
    const issued = await pageField(app);
    time += REISSUE_MS + PAGE_CACHE_SECONDS * 1000 + FILL_MS + 1;
    const again = expectAgain(await join(app, 'cy@example.org', issued), 'cy@example.org');
    expect(await refusals('stale-field')).toBe(1);
    time += AGAIN_MIN_MS;
    expect((await join(app, 'cy@example.org', again)).status).toBe(303);
    expect(await emails()).toEqual(['cy@example.org']);
  });

  it("bounds one field's uses across replicas, and a person past them still joins", async () => {
    const other = await besideStore(store, now);
    try {
      const [first, second] = [siteOn(store), siteOn(other)];
      const issued = await pageField(first);
      time += MIN_FILL_MS;
      const statuses: number[] = [];
      for (let i = 0; i < SHARED_USES; i++) {
        const app = i % 2 ? second : first;
        statuses.push((await join(app, `bot${i}@example.org`, issued)).status);
      }
      expect(statuses).toEqual(Array(SHARED_USES).fill(303));

      const late = await join(second, 'di@example.org', issued);
      const again = expectAgain(late, 'di@example.org');
      expect(await refusals('used-field')).toBe(1);
      time += AGAIN_MIN_MS;
      expect((await join(first, 'di@example.org', again)).status).toBe(303);
      // A field of its own is good once.
      expectAgain(await join(second, 'eve@example.org', again), 'eve@example.org');
      expect(await store.signups.count()).toBe(SHARED_USES + 1);
      expect(await emails()).toContain('di@example.org');
      expect(await emails()).not.toContain('eve@example.org');
    } finally {
      await other.close();
    }
  });

  it('answers a forged or missing field as the honeypot: joined, nothing kept', async () => {
    const app = siteOn(store);
    const issued = await pageField(app);
    time += MIN_FILL_MS;
    const [notBefore, notAfter, uses, nonce, mac] = issued.split('.');
    const forgeries = [
      undefined,
      '',
      `${notBefore}.${notAfter}.999.${nonce}.${mac}`,
      `${Number(notBefore) - 60_000}.${notAfter}.${uses}.${nonce}.${mac}`,
      `${notBefore}.${notAfter}.${uses}.${nonce}.${'A'.repeat(43)}`,
    ];
    for (const forged of forgeries) {
      const res = await join(app, 'fay@example.org', forged);
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe('/?joined');
    }
    expect(await store.signups.count()).toBe(0);
    expect(await refusals('forged-field')).toBe(forgeries.length);
  });

  it('renders `/` with a new field before its field can go stale', async () => {
    const app = siteOn(store);
    const first = await pageField(app);
    time += REISSUE_MS - 1;
    expect(await pageField(app)).toBe(first);
    time += 1;
    const next = await pageField(app);
    expect(next).not.toBe(first);

    // A shared cache keeps the last copy with the first field PAGE_CACHE_SECONDS more, and
    // the visitor who got it there takes their time: it still works.
    time += PAGE_CACHE_SECONDS * 1000 + FILL_MS - 1;
    expect((await join(app, 'gil@example.org', first)).status).toBe(303);
    expect(await emails()).toEqual(['gil@example.org']);
  });

  it('gives a page rendered for one visitor a field of its own, good once', async () => {
    const app = siteOn(store);
    const page = await request(app).get('/?email=hal%40example.org');
    const own = issuedOf(page.text)!;
    time += MIN_FILL_MS;
    expect((await join(app, 'hal@example.org', own)).status).toBe(303);
    expectAgain(await join(app, 'ivy@example.org', own), 'ivy@example.org');
    expect(await emails()).toEqual(['hal@example.org']);
  });
}

describeEachEngine(fieldTests);

describe('with PROOF_OF_WORK off', () => {
  it('the form carries no issue time and takes a signup without one', async () => {
    const app = createApp(testConfig());
    const page = await request(app).get('/');
    expect(page.status).toBe(200);
    expect(page.text).toContain('name="email"');
    expect(issuedOf(page.text)).toBeUndefined();
    const res = await request(app)
      .post('/?index')
      .field('email', 'jo@example.org')
      .field('description', 'me');
    expect(res.status).toBe(303);
  });
});
