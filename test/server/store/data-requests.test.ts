// The store contract for a person's own data, on both engines: /privacy's requests recorded the
// same whether or not the address is listed and answered by the mail worker's step, the data
// links (hashed, working once and for a day), what a link downloads (the signup's columns, the
// mail with its kind and subject after its body is cleared, the webhook events and their
// endpoint), the audit entry written with the download, and what erasure and pruning leave.
// Time is the store's clock, which the test moves.
import { QueueFullError } from '../../../server/store/errors';
import type { DataLinkTokens } from '../../../server/store/data-requests';
import type { OutgoingMail } from '../../../server/store/mail-queue';
import type { Store } from '../../../server/store/types';
import type { Language } from '../../../shared/i18n/languages';
import { countRows, describeEachEngine, type StoreEngine } from '../../support/stores';

const START = Date.parse('2026-03-01T08:00:00.000Z');
const SECOND = 1_000;
const HOUR = 3_600_000;

const iso = (ms: number) => new Date(ms).toISOString();

function contract(engine: StoreEngine) {
  let time: number;
  let store: Store;

  beforeEach(async () => {
    time = START;
    store = await engine.open({ now: () => time, limits: { mailMaxItems: 5 } });
  });

  /** The data-link mail's composer, remembering the tokens each message carried. */
  function composer() {
    const sent: { to: string; tokens: DataLinkTokens; language: Language }[] = [];
    const compose = (to: string, tokens: DataLinkTokens, language: Language): OutgoingMail => {
      sent.push({ to, tokens, language });
      return {
        from: 'no-reply@orgnote.example',
        to,
        subject: language === 'ru' ? 'Ваши данные' : 'Your data',
        text: tokens.data,
        html: '',
        messageId: `<d${sent.length}@x>`,
        date: iso(time),
      };
    };
    return { compose, sent };
  }

  /** Asks for a link to `email` and runs the worker's step: the tokens mailed, if any. */
  async function askAndMail(email: string): Promise<DataLinkTokens | undefined> {
    const { compose, sent } = composer();
    await store.dataRequests.ask(email);
    await store.dataRequests.mailLinks(10, compose);
    return sent[0]?.tokens;
  }

  const audit = { account: '(mailed link)', action: 'data download', client: '203.0.113.9' };

  it('records a request with one insert, listed or not, and mails a link to a listed address only, in its language', async () => {
    await store.signups.add({ email: 'Ann@Example.org', description: 'emacs', language: 'ru' });
    await store.dataRequests.ask('ann@example.org ');
    await store.dataRequests.ask('nobody@example.org');
    expect(await countRows(store, 'data_requests')).toBe(2);

    const { compose, sent } = composer();
    const done = await store.dataRequests.mailLinks(10, compose);
    expect(done).toMatchObject({ requests: 2, queueFull: 0 });
    expect(done.mail.map((m) => m.message.to)).toEqual(['Ann@Example.org']);
    expect(sent.map(({ to, language }) => [to, language])).toEqual([['Ann@Example.org', 'ru']]);
    // Answered requests are gone, the unlisted one's too: no address outlives its request.
    expect(await countRows(store, 'data_requests')).toBe(0);
    // Queued claimed for the worker, which sends it at once.
    expect(await store.mail.claim(10)).toEqual([]);
    expect(await store.mail.counts()).toMatchObject({ queued: 1 });
    // The mail carries a leave link too, which works as every mail's does.
    expect(await store.addressLinks.check('leave', sent[0].tokens.leave)).toEqual({
      ok: true,
      subscriptionActive: false,
    });
  });

  it('mails an address at most three links an hour, and refuses requests past the mail queue size for every address alike', async () => {
    await store.signups.add({ email: 'bob@example.org', description: '' });
    const tokens = [];
    for (let i = 0; i < 4; i++) tokens.push(await askAndMail('bob@example.org'));
    expect(tokens.filter(Boolean)).toHaveLength(3);
    time += HOUR + SECOND;
    expect(await askAndMail('bob@example.org')).toBeDefined();

    for (let i = 0; i < 5; i++) await store.dataRequests.ask(`x${i}@example.org`);
    await expect(store.dataRequests.ask('bob@example.org')).rejects.toBeInstanceOf(QueueFullError);
    await expect(store.dataRequests.ask('new@example.org')).rejects.toBeInstanceOf(QueueFullError);
  });

  it('downloads everything held about the address once: every column of the signup but its key, its mail with kind and subject, its webhook events with their endpoint', async () => {
    const crm = await store.webhooks.add({
      url: 'https://crm.example/hooks/secret-path?token=abc',
      name: 'Sales CRM',
      events: ['signup.created'],
      withAddress: true,
    });
    await store.signups.add(
      { email: 'Cid@Example.org', description: 'org-mode fan', language: 'en' },
      { confirm: true },
    );
    await store.signupEvents.writeDueCreations(10);
    time += SECOND;
    const [delivery] = await store.webhooks.claim(10);
    expect(await store.webhooks.delivered(delivery, { status: 200, durationMs: 5 })).toBe(true);
    // The confirmation mail, sent: its body is cleared, its kind and subject stay.
    const [confirmation] = await store.addressLinks.mailConfirmations(10, {
      validMs: 72 * HOUR,
      canMail: () => true,
      compose: (to) => ({
        from: 'no-reply@orgnote.example',
        to,
        subject: 'Confirm your address',
        text: '',
        html: '',
        messageId: '<c1@x>',
        date: iso(time),
      }),
    });
    time += SECOND;
    expect(await store.mail.sent(confirmation.id)).toBe(true);
    time += SECOND;
    const tokens = (await askAndMail('cid@example.org'))!;
    time += 2 * SECOND;

    const downloaded = await store.dataRequests.download(tokens.data, audit);
    expect(downloaded.ok).toBe(true);
    if (!downloaded.ok) return;
    expect(downloaded.at).toBe(time);
    const { signup, mail, webhooks } = downloaded.data;
    expect(signup).toMatchObject({
      id: expect.any(Number),
      email: 'Cid@Example.org',
      description: 'org-mode fan',
      created_at: iso(START),
      confirmed_at: null,
      invited_at: null,
      activated_at: null,
      language: 'en',
      state: 'unconfirmed',
    });
    expect(signup).not.toHaveProperty('email_key');
    // Every column the table has, whatever later versions add, but the internal key.
    const columns = await signupColumns(store);
    expect(Object.keys(signup).sort()).toEqual(
      [...columns.filter((column) => column !== 'email_key'), 'state'].sort(),
    );
    expect(mail).toEqual([
      {
        kind: 'confirmation',
        subject: 'Confirm your address',
        state: 'sent',
        created_at: iso(START + SECOND),
        done_at: iso(START + 2 * SECOND),
      },
      {
        kind: 'data-link',
        subject: 'Your data',
        state: 'queued',
        created_at: iso(START + 3 * SECOND),
        done_at: null,
      },
    ]);
    expect(webhooks).toEqual([
      {
        endpoint_id: crm.id,
        endpoint_name: 'Sales CRM',
        endpoint_url: 'https://crm.example/hooks/secret-path?token=abc',
        type: 'signup.created',
        state: 'delivered',
        holds_address: true,
        created_at: iso(START),
        delivered_at: iso(START + SECOND),
      },
    ]);

    // Once only, and recorded in the audit log without the address.
    expect(await store.dataRequests.download(tokens.data, audit)).toEqual({
      ok: false,
      refusal: 'spent',
    });
    const entries = await store.audit.list({ limit: 10 });
    expect(entries).toEqual([
      {
        id: expect.any(String),
        at: iso(time),
        account: '(mailed link)',
        action: 'data download',
        addresses: 1,
        client: '203.0.113.9',
      },
    ]);
    expect(JSON.stringify(entries).toLowerCase()).not.toContain('cid@example.org');
    expect(await store.audit.verify()).toMatchObject({ kind: 'intact', verified: 1 });
  });

  it('refuses a link after its day, a malformed or unknown one, changing nothing and auditing nothing', async () => {
    await store.signups.add({ email: 'eve@example.org', description: '' });
    const tokens = (await askAndMail('eve@example.org'))!;
    time += 24 * HOUR;
    expect(await store.dataRequests.download(tokens.data, audit)).toEqual({
      ok: false,
      refusal: 'expired',
    });
    expect(await store.dataRequests.download('not a token', audit)).toEqual({
      ok: false,
      refusal: 'malformed',
    });
    expect(await store.dataRequests.download(tokens.leave, audit)).toEqual({
      ok: false,
      refusal: 'invalid',
    });
    expect(await store.audit.list({ limit: 10 })).toEqual([]);

    // A link just within its day still works.
    time += HOUR;
    const fresh = (await askAndMail('eve@example.org'))!;
    time += 24 * HOUR - 1;
    expect((await store.dataRequests.download(fresh.data, audit)).ok).toBe(true);
  });

  it('erases the address’s requests and links with it, and prunes links past their day and requests nobody answered', async () => {
    await store.signups.add({ email: 'fay@example.org', description: '' });
    const tokens = (await askAndMail('fay@example.org'))!;
    await store.dataRequests.ask('fay@example.org');
    expect(await countRows(store, 'data_tokens')).toBe(1);

    await store.erase('fay@example.org', { reason: 'left' });
    expect(await countRows(store, 'data_tokens')).toBe(0);
    expect(await countRows(store, 'data_requests')).toBe(0);
    expect(await store.dataRequests.download(tokens.data, audit)).toEqual({
      ok: false,
      refusal: 'invalid',
    });

    await store.signups.add({ email: 'hal@example.org', description: '' });
    await askAndMail('hal@example.org');
    await store.dataRequests.ask('gil@example.org');
    // The unanswered request (no SITE_URL, say) and the link stay within their day…
    time += 24 * HOUR - SECOND;
    expect(await store.dataRequests.prune(100)).toBe(0);
    // …and go after it, used or not.
    time += 2 * SECOND;
    expect(await store.dataRequests.prune(100)).toBe(2);
    expect(await countRows(store, 'data_tokens')).toBe(0);
    expect(await countRows(store, 'data_requests')).toBe(0);
  });
}

/** The columns of the signups table, read from the engine's own catalog. */
async function signupColumns(store: Store): Promise<string[]> {
  const engineStore = store as Store & {
    db?: { prepare(sql: string): { all(): { name: string }[] } };
    pool?: { query(sql: string): Promise<{ rows: { column_name: string }[] }> };
  };
  if (engineStore.db)
    return engineStore.db
      .prepare('PRAGMA table_info(signups)')
      .all()
      .map((row) => row.name);
  const { rows } = await engineStore.pool!.query(
    "SELECT column_name FROM information_schema.columns WHERE table_name = 'signups'",
  );
  return rows.map((row) => row.column_name);
}

describeEachEngine(contract);
