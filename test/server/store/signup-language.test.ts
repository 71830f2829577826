// A signup's language on both engines: a store of the release before opens and migrates with every
// signup in English; a signup records the language it came in, a repeat from the other language's
// page sets it anew (and is due no second welcome); the counts and the console's filter read it;
// each mail composer is handed it last; each webhook event's data carries it.
import type { Language } from '../../../shared/i18n/languages';
import type { OutgoingMail } from '../../../server/store/mail-queue';
import type { Store } from '../../../server/store/types';
import { describeEachEngine, type StoreEngine } from '../../support/stores';

const START = Date.parse('2026-03-01T00:00:00.000Z');
const DAY = 86_400_000;

/** Two signups as the release before stored them: no language column yet. */
const OLDER_ROWS = [
  `INSERT INTO signups (email, email_key, description, created_at, confirmed_at)
   VALUES ('Ann@Example.org', 'ann@example.org', 'hi', '2026-02-01T00:00:00.000Z',
     '2026-02-01T00:00:00.000Z')`,
  `INSERT INTO signups (email, email_key, description, created_at)
   VALUES ('bob@example.org', 'bob@example.org', '', '2026-02-02T00:00:00.000Z')`,
];

/** Whom each composer wrote to, and in which language: its last argument. */
function composers() {
  const written: [kind: string, to: string, language: Language][] = [];
  const message = (to: string, subject: string): OutgoingMail => ({
    from: 'no-reply@orgnote.example',
    to,
    subject,
    text: subject,
    html: '',
    messageId: `<${written.length}@orgnote.example>`,
    date: new Date(START).toISOString(),
  });
  const recording =
    (kind: string) =>
    (to: string, ...rest: unknown[]): OutgoingMail => {
      written.push([kind, to, rest.at(-1) as Language]);
      return message(to, kind);
    };
  return {
    written,
    confirmation: {
      compose: recording('confirmation'),
      canMail: () => true,
      validMs: DAY,
    },
    welcome: { compose: recording('welcome'), canMail: () => true },
    leave: recording('leave'),
    invitation: recording('invitation'),
  };
}

function languages(engine: StoreEngine) {
  let time: number;
  let store: Store;
  const now = () => time;

  beforeEach(async () => {
    time = START;
    store = await engine.open({ now });
  });

  it('migrates a store of the release before: every signup it holds is English', async () => {
    const upgraded = await engine.openUpgraded({ behind: 1, rows: OLDER_ROWS, now });
    const { release } = await upgraded.schema();
    expect(await upgraded.schema()).toEqual({ found: release, release });
    expect(
      (await upgraded.signups.list()).map((r) => [r.email, r.description, r.language]),
    ).toEqual([
      ['bob@example.org', '', 'en'],
      ['Ann@Example.org', 'hi', 'en'],
    ]);
    expect(await upgraded.signups.languages()).toEqual({ en: 2, ru: 0 });
  });

  it('records the language, English when none is given; a repeat from the other page sets it anew', async () => {
    expect(await store.signups.add({ email: 'ann@example.org', description: 'a' })).toBe(true);
    expect(
      await store.signups.add({ email: 'bob@example.org', description: 'b', language: 'ru' }),
    ).toBe(true);
    expect(await store.signups.languages()).toEqual({ en: 1, ru: 1 });

    time += 1_000;
    const repeat = { email: ' ANN@example.org ', description: 'changed', language: 'ru' as const };
    expect(await store.signups.add(repeat)).toBe(false);
    time += 1_000;
    await store.signups.add({ email: 'bob@example.org', description: '', language: 'en' });
    // Only the language changed: the row's address, note and times are as the first signup left.
    expect(await store.signups.list()).toEqual([
      expect.objectContaining({ email: 'bob@example.org', description: 'b', language: 'en' }),
      expect.objectContaining({
        email: 'ann@example.org',
        description: 'a',
        created_at: new Date(START).toISOString(),
        language: 'ru',
      }),
    ]);
    expect(await store.signups.languages()).toEqual({ en: 1, ru: 1 });
    expect(await store.signups.count()).toBe(2);
  });

  it('filters a page by language, with the state and the search', async () => {
    await store.signups.add({ email: 'ann@example.org', description: '' });
    await store.signups.add({ email: 'anna@example.org', description: '', language: 'ru' });
    await store.signups.add({ email: 'boris@example.org', description: '', language: 'ru' });
    await store.subscriptions.issueKey('boris@example.org');
    const page = async (query: Partial<Parameters<Store['signups']['page']>[0]>) =>
      (await store.signups.page({ order: 'oldest', limit: 10, ...query })).map((r) => r.email);
    expect(await page({ language: 'ru' })).toEqual(['anna@example.org', 'boris@example.org']);
    expect(await page({ language: 'en' })).toEqual(['ann@example.org']);
    expect(await page({ language: 'ru', q: 'ann' })).toEqual(['anna@example.org']);
    expect(await page({ language: 'ru', state: 'invited' })).toEqual(['boris@example.org']);
    expect(await page({ language: 'en', state: 'invited' })).toEqual([]);
  });

  it('hands every composer the signup’s language, as it is when the mail is written', async () => {
    const mail = composers();
    await store.signups.add({ email: 'ann@example.org', description: '', language: 'ru' });
    await store.signups.add({ email: 'bob@example.org', description: '' }, { confirm: true });
    await store.signups.add(
      { email: 'cid@example.org', description: '', language: 'ru' },
      { confirm: true },
    );
    await store.signups.add(
      { email: 'dan@example.org', description: '', language: 'ru' },
      { welcome: true },
    );
    // A repeat from the English page before the welcome is written: the welcome is in English,
    // and it is the only one (a repeat is due none).
    await store.signups.add({ email: 'dan@example.org', description: '' }, { welcome: true });
    await store.addressLinks.mailConfirmations(10, mail.confirmation);
    await store.addressLinks.mailWelcomes(10, mail.welcome);
    expect(await store.addressLinks.mailWelcomes(10, mail.welcome)).toEqual([]);
    await store.addressLinks.askLeaveLink('ann@example.org');
    await store.addressLinks.mailLeaveLinks(10, mail.leave);
    await store.subscriptions.invite('ann@example.org', {
      again: false,
      compose: mail.invitation,
    });
    expect(mail.written).toEqual([
      ['confirmation', 'bob@example.org', 'en'],
      ['confirmation', 'cid@example.org', 'ru'],
      ['welcome', 'dan@example.org', 'en'],
      ['leave', 'ann@example.org', 'ru'],
      ['invitation', 'ann@example.org', 'ru'],
    ]);
  });

  it("carries the signup's language in every webhook event's data, signup.left's included", async () => {
    await store.webhooks.add({ url: 'https://hooks.example/in', events: [], withAddress: false });
    /** The events due now, as type, state and language. */
    const due = async () => {
      time += 1_000;
      return (await store.webhooks.claim(10)).map((d) => {
        const { data } = JSON.parse(d.payload) as { data: Record<string, unknown> };
        return [d.type, data.state, data.language];
      });
    };
    await store.signups.add({ email: 'ann@example.org', description: '', language: 'ru' });
    await store.signupEvents.writeDueCreations(10);
    time += 1_000;
    await store.subscriptions.invite('ann@example.org', {
      again: false,
      compose: composers().invitation,
    });
    expect(await due()).toEqual([
      ['signup.created', 'waitlisted', 'ru'],
      ['invitation.sent', 'invited', 'ru'],
    ]);
    await store.erase('ann@example.org', { reason: 'left' });
    expect(await due()).toEqual([['signup.left', 'left', 'ru']]);
  });
}

describeEachEngine(languages);
