// The running site's sweep (workers/address-expiry.ts) on both engines, as far as webhooks go: it
// deletes the delivered and given-up deliveries created more than 30 days ago, leaves younger
// ones and the pending ones of enabled endpoints, and two replicas sweeping at once both finish
// cleanly.
import { createLogger } from '../../../server/logger';
import type { Store } from '../../../server/store/types';
import { RETRY_SCHEDULE_MS } from '../../../server/store/webhooks';
import { startExpirySweep } from '../../../server/workers/address-expiry';
import { testConfig } from '../../support/config';
import { besideStore, describeEachEngine, type StoreEngine } from '../../support/stores';

const START = Date.parse('2026-03-01T00:00:00.000Z');
const DAY = 24 * 3_600_000;

function sweep(engine: StoreEngine) {
  let time: number;
  const now = () => time;
  let store: Store;

  beforeEach(async () => {
    time = START;
    store = await engine.open({ now });
  });

  /**
   * One delivery of each end, created now: delivered, given up (its last retry failed), and still
   * pending, of an endpoint still enabled.
   */
  async function oneOfEach(url: string) {
    const endpoint = await store.webhooks.add({ url, events: [], withAddress: false });
    for (let i = 0; i < 3; i++) await store.webhooks.test(endpoint.id);
    // Only this endpoint's: an older one's pending delivery is due too, and stays pending.
    const [delivered, last] = (await store.webhooks.claim(10)).filter(
      (delivery) => delivery.endpointId === endpoint.id,
    );
    await store.webhooks.delivered(delivered, { status: 200, durationMs: 1 });
    const lastRetry = { ...last, attempts: RETRY_SCHEDULE_MS.length };
    expect(
      await store.webhooks.failed(lastRetry, { status: 503, durationMs: 1, error: 'status 503' }),
    ).toBe('failed');
    return endpoint.id;
  }

  it('deletes finished deliveries after 30 days, on every replica, and keeps pending ones', async () => {
    const old = await oneOfEach('https://old.example/');
    time += 10 * DAY;
    const recent = await oneOfEach('https://recent.example/');
    time = START + 30 * DAY + 1;

    const replica = await besideStore(store, now);
    const logger = createLogger({ logLevel: 'silent' });
    const config = testConfig();
    const sweeps = [store, replica].map((each) =>
      startExpirySweep({ store: each, config, logger }, { pollMs: 60_000, now }),
    );
    try {
      await Promise.all(sweeps.map((each) => each.flush()));
    } finally {
      await Promise.all(sweeps.map((each) => each.stop()));
      await replica.close();
    }
    const states = async (id: string) =>
      (await store.webhooks.deliveries(id, 10)).map((d) => d.state).sort();
    expect(await states(old)).toEqual(['pending']);
    expect(await states(recent)).toEqual(['delivered', 'failed', 'pending']);
  });
}

describeEachEngine(sweep);
