// The recipients /privacy lists (names, and a count of the unnamed), as the site keeps them
// between reads of the store: right from the first page, read again only once older than five
// seconds, one read shared by the pages that ask meanwhile, on both engines.
import type { Store } from '../../../server/store/types';
import { addressRecipients, RECIPIENTS_MAX_AGE_MS } from '../../../server/webhooks/recipients';
import { capturingLogger } from '../../support/config';
import { describeEachEngine, type StoreEngine } from '../../support/stores';

function contract(engine: StoreEngine) {
  let store: Store;
  let time: number;
  let reads: number;

  beforeEach(async () => {
    time = Date.parse('2026-03-01T00:00:00.000Z');
    reads = 0;
    store = await engine.open({ now: Date.now });
  });

  function recipients() {
    // The real store, counted: how often the site would read it.
    const webhooks = {
      list: () => {
        reads += 1;
        return store.webhooks.list();
      },
    };
    return addressRecipients({ webhooks, logger: capturingLogger().logger, now: () => time });
  }

  it('answers the first caller from the store, then reads again only once the names are older than five seconds', async () => {
    await store.webhooks.add({
      url: 'https://hooks.example.com/in',
      name: 'Hooks',
      events: [],
      withAddress: true,
    });
    const names = recipients();
    const concurrent = await Promise.all([names.current(), names.current(), names.current()]);
    const hooks = { names: ['Hooks'], unnamed: 0 };
    expect(concurrent).toEqual([hooks, hooks, hooks]);
    expect(reads).toBe(1);

    const crm = await store.webhooks.add({
      url: 'https://crm.example.org/in',
      events: [],
      withAddress: true,
    });
    time += RECIPIENTS_MAX_AGE_MS - 1;
    expect(await names.current()).toEqual(hooks);
    expect(reads).toBe(1);

    time += 1;
    expect(await names.current()).toEqual({ names: ['Hooks'], unnamed: 1 });
    expect(reads).toBe(2);

    await store.webhooks.rename(crm.id, 'CRM');
    time += RECIPIENTS_MAX_AGE_MS;
    expect(await names.current()).toEqual({ names: ['Hooks', 'CRM'], unnamed: 0 });
  });
}

describeEachEngine(contract);
