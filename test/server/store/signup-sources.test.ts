// Where a signup came from, on both engines: a store of the release before opens and migrates with
// no source known for any signup; a signup records the four fields it was given, a value at the
// bound and non-ASCII included; a repeat keeps the first signup's (first touch), whatever it
// brings; the dashboard's counts by source over a period; each webhook event's data carries the
// fields known.
import type { Store } from '../../../server/store/types';
import type { SignupSource } from '../../../shared/sources';
import { describeEachEngine, type StoreEngine } from '../../support/stores';

const START = Date.parse('2026-03-10T12:00:00.000Z');
const DAY = 86_400_000;

/** Signups as the release before stored them, in both languages: no source columns yet. */
const BEFORE_SOURCES = ['en', 'ru'].map(
  (language, i) =>
    `INSERT INTO signups (email, email_key, description, created_at, confirmed_at, language)
     VALUES ('${language}@example.org', '${language}@example.org', '', '2026-02-0${i + 1}', NULL,
       '${language}')`,
);

const NONE = { utm_source: null, utm_medium: null, utm_campaign: null, referrer: null };

/** A value at the bound: 64 characters, of which one takes two UTF-16 units. */
const LONGEST = `Весна-${'к'.repeat(56)}-🌱`;

function sources(engine: StoreEngine) {
  let time: number;
  let store: Store;
  const now = () => time;

  beforeEach(async () => {
    time = START;
    store = await engine.open({ now });
  });

  const add = (email: string, source?: SignupSource) =>
    store.signups.add({ email, description: '', source });

  /** Each signup's address and source, newest first, as the export reads them. */
  const stored = async () =>
    (await store.signups.list()).map(
      ({ email, utm_source, utm_medium, utm_campaign, referrer }) => ({
        email,
        utm_source,
        utm_medium,
        utm_campaign,
        referrer,
      }),
    );

  it('migrates a store of the release before: no signup it holds has a source', async () => {
    const upgraded = await engine.openUpgraded({ behind: 1, rows: BEFORE_SOURCES, now });
    const { release } = await upgraded.schema();
    expect(await upgraded.schema()).toEqual({ found: release, release });
    expect(await upgraded.signups.list()).toEqual([
      expect.objectContaining({ email: 'ru@example.org', language: 'ru', ...NONE }),
      expect.objectContaining({ email: 'en@example.org', language: 'en', ...NONE }),
    ]);
    expect(await upgraded.signups.sources('', 10)).toEqual({
      top: [{ kind: 'direct', name: '', signups: 2 }],
      total: 2,
    });
  });

  it('records the fields given, a value at the bound as it is, and null for the rest', async () => {
    expect(
      await add('ann@example.org', {
        utm_source: 'hn',
        utm_medium: 'social',
        utm_campaign: LONGEST,
        referrer: 'news.ycombinator.com',
      }),
    ).toBe(true);
    time += 1_000;
    await add('bob@example.org', { referrer: 'xn--e1afmkfd.xn--p1ai' });
    time += 1_000;
    await add('cid@example.org');
    expect(await stored()).toEqual([
      { email: 'cid@example.org', ...NONE },
      { ...NONE, email: 'bob@example.org', referrer: 'xn--e1afmkfd.xn--p1ai' },
      {
        email: 'ann@example.org',
        utm_source: 'hn',
        utm_medium: 'social',
        utm_campaign: LONGEST,
        referrer: 'news.ycombinator.com',
      },
    ]);
    // The console's page reads the same columns.
    const [page] = await store.signups.page({ order: 'oldest', limit: 1 });
    expect(page).toMatchObject({ utm_campaign: LONGEST, referrer: 'news.ycombinator.com' });
  });

  it("keeps the first signup's source: a repeat brings none, or another, and changes nothing", async () => {
    await add('Ann@example.org', { utm_source: 'hn', utm_campaign: 'launch' });
    await add('bob@example.org');
    time += DAY;
    expect(await add(' ann@EXAMPLE.org ', { utm_source: 'reddit', referrer: 'reddit.com' })).toBe(
      false,
    );
    expect(await add('ann@example.org')).toBe(false);
    // One who came first with none stays without: the first touch was direct.
    expect(await add('bob@example.org', { utm_source: 'newsletter' })).toBe(false);
    expect(await stored()).toEqual([
      { email: 'bob@example.org', ...NONE },
      { ...NONE, email: 'Ann@example.org', utm_source: 'hn', utm_campaign: 'launch' },
    ]);
  });

  it('counts the signups of a period by utm_source, else the referring site, else direct', async () => {
    // Before the period: counted only over all time.
    await add('old@example.org', { utm_source: 'hn' });
    time += 10 * DAY;
    const since = new Date(time).toISOString().slice(0, 10);
    for (const [email, source] of [
      ['a@example.org', { utm_source: 'hn', referrer: 'news.ycombinator.com' }],
      ['b@example.org', { utm_source: 'hn', utm_medium: 'social' }],
      ['c@example.org', { referrer: 'news.ycombinator.com' }],
      ['d@example.org', { utm_medium: 'mail', referrer: 'lobste.rs' }],
      ['e@example.org', {}],
      ['f@example.org', { utm_source: 'news.ycombinator.com' }],
    ] as const) {
      await add(email, source);
      time += 1_000;
    }
    expect(await store.signups.sources(since, 10)).toEqual({
      top: [
        { kind: 'campaign', name: 'hn', signups: 2 },
        // Ties by name; a utm_source and a referring site of the same name are two sources.
        { kind: 'direct', name: '', signups: 1 },
        { kind: 'site', name: 'lobste.rs', signups: 1 },
        { kind: 'campaign', name: 'news.ycombinator.com', signups: 1 },
        { kind: 'site', name: 'news.ycombinator.com', signups: 1 },
      ],
      total: 6,
    });
    expect(await store.signups.sources('', 2)).toEqual({
      top: [
        { kind: 'campaign', name: 'hn', signups: 3 },
        { kind: 'direct', name: '', signups: 1 },
      ],
      total: 7,
    });
    // A period after every signup counts none.
    expect(await store.signups.sources('2026-04-01', 10)).toEqual({ top: [], total: 0 });
  });

  it("carries the known fields in every webhook event's data; signup.left carries none", async () => {
    await store.webhooks.add({ url: 'https://hooks.example/in', events: [], withAddress: false });
    /** The events due now, as their type and their data's source fields. */
    const due = async () => {
      time += 1_000;
      return (await store.webhooks.claim(10)).map((delivery) => {
        const { data } = JSON.parse(delivery.payload) as { data: Record<string, unknown> };
        const { utm_source, utm_medium, utm_campaign, referrer } = data;
        const source = { utm_source, utm_medium, utm_campaign, referrer };
        const known = Object.entries(source).filter(([, value]) => value !== undefined);
        return [delivery.type, Object.fromEntries(known)];
      });
    };
    await add('ann@example.org', { utm_source: 'hn', referrer: 'news.ycombinator.com' });
    time += 1_000;
    await add('bob@example.org');
    await store.signupEvents.writeDueCreations(10);
    time += 1_000;
    await store.subscriptions.invite('ann@example.org', {
      again: false,
      compose: (to) => ({
        from: 'no-reply@orgnote.example',
        to,
        subject: 'Your invitation',
        text: 'key',
        html: '',
        messageId: '<1@orgnote.example>',
        date: new Date(time).toISOString(),
      }),
    });
    const ann = { utm_source: 'hn', referrer: 'news.ycombinator.com' };
    expect(await due()).toEqual([
      ['signup.created', ann],
      ['signup.created', {}],
      ['invitation.sent', ann],
    ]);
    await store.erase('ann@example.org', { reason: 'left' });
    expect(await due()).toEqual([['signup.left', {}]]);
  });
}

describeEachEngine(sources);
