// Webhook endpoints' names on both engines: a store the release before names made opens and
// migrates with every endpoint and delivery as it was, its endpoints unnamed until renamed and
// their secrets still signing; a name given at `add` or by `rename` is what the store hands back.
import type { Store } from '../../../server/store/types';
import { describeEachEngine, type StoreEngine } from '../../support/stores';

const START = Date.parse('2026-03-01T00:00:00.000Z');
const HOUR = 3_600_000;
const CURRENT = `whsec_${Buffer.alloc(32, 1).toString('base64')}`;
const OLD = `whsec_${Buffer.alloc(32, 2).toString('base64')}`;

/** What that release's store wrote: two endpoints (one mid-rotation, one disabled), deliveries. */
const OLDER_ROWS = [
  `INSERT INTO webhook_endpoints (id, url, events, with_address, secrets, created_at)
   VALUES ('ep_crm', 'https://eo1a2b3c4d5e6f7.m.pipedream.net/in?key=k3y', '[]', 1,
     '${JSON.stringify([
       { secret: CURRENT, expiresAt: null },
       { secret: OLD, expiresAt: START + HOUR },
     ])}',
     '2026-02-01T00:00:00.000Z')`,
  `INSERT INTO webhook_endpoints
     (id, url, events, with_address, secrets, created_at, failing_since, disabled_at,
      disabled_reason)
   VALUES ('ep_chat', 'https://hooks.zapier.com/hooks/catch/1234567/abcdefg/',
     '["invitation.sent"]', 0, '${JSON.stringify([{ secret: CURRENT, expiresAt: null }])}',
     '2026-02-02T00:00:00.000Z', '2026-02-20T00:00:00.000Z', '2026-02-25T00:00:00.000Z',
     'the receiver answered 410 Gone')`,
  `INSERT INTO webhook_deliveries
     (id, endpoint_id, type, payload, email_key, holds_address, created_at, next_attempt_at)
   VALUES ('msg_pending', 'ep_crm', 'invitation.sent', '{"type":"invitation.sent"}',
     'ann@example.org', 1, '2026-02-28T00:00:00.000Z', ${START})`,
  `INSERT INTO webhook_deliveries
     (id, endpoint_id, type, payload, created_at, state, attempts, next_attempt_at, last_status,
      last_duration_ms, delivered_at)
   VALUES ('msg_done', 'ep_chat', 'webhook.test', '{"type":"webhook.test"}',
     '2026-02-10T00:00:00.000Z', 'delivered', 1, 0, 204, 42, '2026-02-10T00:00:01.000Z')`,
];

function upgrade(engine: StoreEngine) {
  let store: Store;

  beforeEach(async () => {
    store = await engine.openUpgraded({ behind: 2, rows: OLDER_ROWS, now: () => START });
  });

  it('migrates a store of the release before names, every endpoint and delivery as it was', async () => {
    const { release } = await store.schema();
    expect(await store.schema()).toEqual({ found: release, release });
    expect(await store.webhooks.list()).toEqual([
      {
        id: 'ep_crm',
        url: 'https://eo1a2b3c4d5e6f7.m.pipedream.net/in?key=k3y',
        name: null,
        events: [],
        withAddress: true,
        createdAt: '2026-02-01T00:00:00.000Z',
        failingSince: null,
        disabledAt: null,
        disabledReason: null,
      },
      {
        id: 'ep_chat',
        url: 'https://hooks.zapier.com/hooks/catch/1234567/abcdefg/',
        name: null,
        events: ['invitation.sent'],
        withAddress: false,
        createdAt: '2026-02-02T00:00:00.000Z',
        failingSince: '2026-02-20T00:00:00.000Z',
        disabledAt: '2026-02-25T00:00:00.000Z',
        disabledReason: 'the receiver answered 410 Gone',
      },
    ]);
    expect(await store.webhooks.deliveries('ep_chat', 10)).toMatchObject([
      { id: 'msg_done', state: 'delivered', attempts: 1, lastStatus: 204, lastDurationMs: 42 },
    ]);
    // The pending delivery goes out, signed by both secrets of the rotation still under way.
    const [claimed] = await store.webhooks.claim(10);
    expect(claimed).toMatchObject({
      id: 'msg_pending',
      endpointId: 'ep_crm',
      payload: '{"type":"invitation.sent"}',
      url: 'https://eo1a2b3c4d5e6f7.m.pipedream.net/in?key=k3y',
      secrets: [CURRENT, OLD],
    });
  });

  it('names an endpoint stored without a name once it is renamed, and no other', async () => {
    expect(await store.webhooks.rename('ep_crm', 'Our CRM')).toBe(true);
    expect(await store.webhooks.rename('ep_nothing', 'Nothing')).toBe(false);
    expect((await store.webhooks.list()).map(({ id, name }) => ({ id, name }))).toEqual([
      { id: 'ep_crm', name: 'Our CRM' },
      { id: 'ep_chat', name: null },
    ]);
  });
}

function names(engine: StoreEngine) {
  let store: Store;

  beforeEach(async () => {
    store = await engine.open({ now: () => START });
  });

  it('keeps the name given at add, and the one given by rename after it', async () => {
    const named = await store.webhooks.add({
      url: 'https://hooks.example.com/in',
      name: 'Sales « CRM » — 2',
      events: [],
      withAddress: true,
    });
    const unnamed = await store.webhooks.add({
      url: 'https://chat.example.com/in',
      events: [],
      withAddress: false,
    });
    expect((await store.webhooks.get(named.id))?.name).toBe('Sales « CRM » — 2');
    expect((await store.webhooks.get(unnamed.id))?.name).toBeNull();
    expect(await store.webhooks.rename(named.id, 'Sales')).toBe(true);
    expect((await store.webhooks.get(named.id))?.name).toBe('Sales');
  });
}

describeEachEngine((engine) => {
  describe('an upgrade', () => upgrade(engine));
  describe('a name', () => names(engine));
});
