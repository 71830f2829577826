// The import's part of the store, on both engines: rows come in as the file had them, an address
// already on the list is left exactly as it is, nothing is due (no mail, no webhook event), and an
// unconfirmed row outlives the expiry until a confirmation mail is due to it, from which the
// expiry then counts.
import type { ConfirmationMail } from '../../../server/store/address-links';
import type { ImportedSignup } from '../../../server/store/imports';
import type { Store } from '../../../server/store/types';
import { countRows, describeEachEngine, type StoreEngine } from '../../support/stores';

const START = Date.parse('2026-06-01T00:00:00.000Z');
const HOUR = 3_600_000;
const CONFIRM_WITHIN = 72 * HOUR;

const imported = (email: string, more: Partial<ImportedSignup> = {}): ImportedSignup => ({
  email,
  description: '',
  language: 'en',
  createdAt: '2025-01-02T03:04:05.678Z',
  confirmedAt: '2025-01-02T04:00:00.000Z',
  invitedAt: null,
  activatedAt: null,
  undeliverable: false,
  ...more,
});

/** The confirmation mail the worker writes, recorded: to whom. */
function confirmations() {
  const to: string[] = [];
  const mail: ConfirmationMail = {
    validMs: CONFIRM_WITHIN,
    canMail: () => true,
    compose: (address) => {
      to.push(address);
      return {
        from: 'no-reply@orgnote.example',
        to: address,
        subject: 'Confirm',
        text: 'Confirm',
        html: '',
        messageId: `<${to.length}@orgnote.example>`,
        date: new Date(START).toISOString(),
      };
    },
  };
  return { to, mail };
}

function imports(engine: StoreEngine) {
  let time: number;
  let store: Store;
  const now = () => time;
  /** What the expiry sweep would erase now. */
  const expired = () =>
    store.signups.expiredUnconfirmed(new Date(time - CONFIRM_WITHIN).toISOString(), 100);

  beforeEach(async () => {
    time = START;
    store = await engine.open({ now });
  });

  it('adds rows with their own dates, states, language and source, and lists them as the export does', async () => {
    const added = await store.imports.add([
      imported('Ann@Example.org', {
        description: 'a, "b"\r\nc',
        language: 'ru',
        source: { utm_source: 'newsletter', referrer: 'news.example.com' },
      }),
      imported('bob@example.org', { confirmedAt: null }),
      imported('cy@example.org', {
        invitedAt: '2025-02-01T00:00:00.000Z',
        activatedAt: '2025-02-02T00:00:00.000Z',
      }),
      imported('dee@example.org', { undeliverable: true }),
      imported('eve@example.org', { invitedAt: '2025-02-01T00:00:00.000Z' }),
    ]);
    expect(added).toEqual(
      new Set([
        'ann@example.org',
        'bob@example.org',
        'cy@example.org',
        'dee@example.org',
        'eve@example.org',
      ]),
    );
    const rows = await store.signups.list();
    const byEmail = Object.fromEntries(rows.map((row) => [row.email, row]));
    expect(byEmail['Ann@Example.org']).toEqual({
      email: 'Ann@Example.org',
      description: 'a, "b"\r\nc',
      created_at: '2025-01-02T03:04:05.678Z',
      invited_at: null,
      activated_at: null,
      confirmed_at: '2025-01-02T04:00:00.000Z',
      state: 'waitlisted',
      language: 'ru',
      utm_source: 'newsletter',
      utm_medium: null,
      utm_campaign: null,
      referrer: 'news.example.com',
    });
    expect(rows.map((row) => [row.email, row.state])).toEqual(
      expect.arrayContaining([
        ['bob@example.org', 'unconfirmed'],
        ['cy@example.org', 'activated'],
        ['dee@example.org', 'undeliverable'],
        ['eve@example.org', 'invited'],
      ]),
    );
    // Nobody is mailed, and no webhook event is due: they joined elsewhere, long ago.
    expect(await store.signups.confirmationsDue()).toBe(0);
    expect(await store.signups.welcomesDue()).toBe(0);
    expect(await store.signupEvents.writeDueCreations(100)).toBe(0);
    expect(await countRows(store, 'mail')).toBe(0);
  });

  it('leaves an address already on the list exactly as it is, and adds a repeat in a batch once', async () => {
    await store.signups.add({ email: 'ann@example.org', description: 'mine' }, { confirm: true });
    const before = await store.signups.list();
    const added = await store.imports.add([
      imported(' ANN@example.org ', { description: 'theirs' }),
      imported('bob@example.org'),
      imported('BOB@example.org', { description: 'second' }),
    ]);
    expect(added).toEqual(new Set(['bob@example.org']));
    const after = await store.signups.list();
    expect(after.find((row) => row.email === 'ann@example.org')).toEqual(before[0]);
    expect(after.filter((row) => row.email.toLowerCase() === 'bob@example.org')).toHaveLength(1);
    expect(
      await store.imports.present(['Ann@example.org', 'bob@example.org', 'cy@example.org']),
    ).toEqual(new Set(['ann@example.org', 'bob@example.org']));
  });

  it('keeps an imported unconfirmed row past the expiry until a confirmation is due, then counts from that mail', async () => {
    await store.imports.add([
      imported('ann@example.org', { confirmedAt: null }),
      imported('bob@example.org', { confirmedAt: null }),
      imported('cy@example.org', { confirmedAt: null, undeliverable: true }),
      imported('dee@example.org'),
    ]);
    // Joined a year and a half ago, never mailed: not expired.
    time += 30 * 24 * HOUR;
    expect(await expired()).toEqual([]);
    expect(await store.imports.awaitingConfirmation()).toBe(2);

    expect(await store.imports.resendConfirmations(1)).toBe(1);
    expect(await store.imports.resendConfirmations(10)).toBe(1);
    expect(await store.imports.resendConfirmations(10)).toBe(0);
    expect(await store.imports.awaitingConfirmation()).toBe(0);
    // Due, not written yet: still not expired.
    expect(await expired()).toEqual([]);
    const { to, mail } = confirmations();
    const mailedAt = time;
    await store.addressLinks.mailConfirmations(10, mail);
    expect(to.sort()).toEqual(['ann@example.org', 'bob@example.org']);

    time = mailedAt + CONFIRM_WITHIN - 1;
    expect(await expired()).toEqual([]);
    time = mailedAt + CONFIRM_WITHIN;
    expect((await expired()).sort()).toEqual(['ann@example.org', 'bob@example.org']);
    // The undeliverable one was never mailed and waits; the confirmed one never expires.
    expect(await store.erase('ann@example.org', { onlyIfExpired: true })).toMatchObject({
      signup: true,
    });
  });

  it('makes one address due, imported or not, unless it is confirmed, undeliverable or unknown', async () => {
    await store.imports.add([
      imported('ann@example.org', { confirmedAt: null }),
      imported('bob@example.org'),
      imported('cy@example.org', { confirmedAt: null, undeliverable: true }),
    ]);
    await store.signups.add({ email: 'dee@example.org', description: '' }, { confirm: true });
    const { to, mail } = confirmations();
    await store.addressLinks.mailConfirmations(10, mail);
    expect(await store.imports.resendConfirmation(' ANN@example.org')).toBe('due');
    expect(await store.imports.resendConfirmation('dee@example.org')).toBe('due');
    expect(await store.imports.resendConfirmation('bob@example.org')).toBe('confirmed');
    expect(await store.imports.resendConfirmation('cy@example.org')).toBe('undeliverable');
    expect(await store.imports.resendConfirmation('zed@example.org')).toBe('not-on-list');
    await store.addressLinks.mailConfirmations(10, mail);
    expect(to).toEqual(['dee@example.org', 'ann@example.org', 'dee@example.org']);
    expect(await store.imports.awaitingConfirmation()).toBe(0);
  });

  it('counts from the mail of a person who signs up again themselves', async () => {
    await store.imports.add([imported('ann@example.org', { confirmedAt: null })]);
    await store.signups.add({ email: 'ann@example.org', description: '' }, { confirm: true });
    expect(await store.imports.awaitingConfirmation()).toBe(0);
    const { to, mail } = confirmations();
    await store.addressLinks.mailConfirmations(10, mail);
    expect(to).toEqual(['ann@example.org']);
    time += CONFIRM_WITHIN;
    expect(await expired()).toEqual(['ann@example.org']);
  });
}

describeEachEngine(imports);
