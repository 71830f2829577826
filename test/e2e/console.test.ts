// The operators' console in Chromium against the production build: the account made as
// the CLI makes it, then the whole way through with and without JavaScript in a phone's window
// (log in, see the chart, search an address, invite it and read the mail, remove another behind
// its confirmation, read the audit, log out), from the keyboard, an import checked then made, and
// axe-core with 0 violations on every page at both widths.
// The console's strict CSP is never broken: no violation event, no console message about it.
import type { BrowserContext, Page } from 'playwright-core';
import { hashPassword } from '../../server/console/password';
import { openSqliteStore } from '../../server/store';
import { axeViolations } from '../support/axe';
import { tempDataDir } from '../support/config';
import { mailedTo, screenshot, startSiteOfItsOwn, VIEWPORTS, type Site } from '../support/site';

const PASSWORD = 'correct horse battery staple';

let site: Site;
beforeAll(async () => {
  const dataDir = tempDataDir();
  const store = openSqliteStore({ dataDir });
  await store.admins.add('ops@example.org', await hashPassword(PASSWORD));
  for (const email of [
    'zoe@example.org',
    'yann@example.org',
    'gone@example.org',
    'dead@example.org',
  ])
    await store.signups.add({ email, description: 'from the e2e' });
  // Amazon SES reported a hard bounce for one of them (decision 0038).
  await store.bounces.apply('ses', {
    id: 'msg-1/0',
    email: 'dead@example.org',
    kind: 'permanent',
    detail: 'Permanent/General 5.1.1',
  });
  await store.close();
  site = await startSiteOfItsOwn({ DATA_DIR: dataDir });
});
afterAll(() => site?.close());

/**
 * What the page's CSP refused, from the securitypolicyviolation event (pages with JavaScript) and
 * from Chromium's console messages about it (pages with and without).
 */
async function watchCsp(context: BrowserContext, problems: string[]): Promise<() => string[]> {
  const violations: string[] = [];
  await context.exposeBinding(
    'reportCspViolation',
    (_source, violation: string) => void violations.push(violation),
  );
  await context.addInitScript(() =>
    document.addEventListener('securitypolicyviolation', (event) => {
      const report = (window as unknown as { reportCspViolation: (violation: string) => void })
        .reportCspViolation;
      void report(`${event.effectiveDirective} ${event.blockedURI} at ${location.pathname}`);
    }),
  );
  return () => [
    ...violations,
    ...problems.filter((problem) => /Content Security Policy/i.test(problem)),
  ];
}

/** Clicks a button of a native form and waits for the server's answer. */
async function press(page: Page, name: string | RegExp): Promise<void> {
  await Promise.all([
    page.waitForNavigation(),
    page
      .getByRole('button', { name, exact: typeof name === 'string' })
      .first()
      .click(),
  ]);
}

async function logIn(page: Page): Promise<void> {
  await page.goto(site.url('/admin'));
  expect(new URL(page.url()).pathname).toBe('/admin/login');
  // From the keyboard: the fields in order, Enter submits.
  await page.getByLabel('Email address').focus();
  await page.keyboard.type('ops@example.org');
  await page.keyboard.press('Tab');
  await page.keyboard.type(PASSWORD);
  await Promise.all([page.waitForNavigation(), page.keyboard.press('Enter')]);
  expect(new URL(page.url()).pathname).toBe('/admin');
}

describe.each([
  ['with JavaScript', true],
  ['without JavaScript', false],
])('the console %s', (_name, javaScriptEnabled) => {
  it('logs in, shows the chart, finds and invites an address, removes another, shows the audit and logs out', async () => {
    const { page, context, problems } = await site.open({ javaScriptEnabled });
    const cspViolations = await watchCsp(context, problems);
    await logIn(page);
    await page.getByRole('img', { name: /Signups, invitations and activations per day/ }).waitFor();
    expect(
      await page
        .getByRole('row', { name: /waitlisted/ })
        .first()
        .textContent(),
    ).toMatch(/waitlisted\d+/);

    const invitee = javaScriptEnabled ? 'zoe@example.org' : 'yann@example.org';
    await page.goto(site.url('/admin/signups'));
    await page
      .getByRole('searchbox', { name: 'Address contains' })
      .fill(invitee.slice(0, 3).toUpperCase());
    await press(page, 'Search');
    const row = page.getByRole('row', { name: new RegExp(invitee) });
    await Promise.all([
      page.waitForNavigation(),
      row.getByRole('button', { name: 'Invite', exact: true }).click(),
    ]);
    await page.getByRole('heading', { name: `${invitee}: sent` }).waitFor();
    const mail = await mailedTo(site, invitee);
    expect(mail.subject).toBe('Your OrgNote activation key');

    if (javaScriptEnabled) {
      await page.goto(site.url('/admin/signups?q=gone'));
      await press(page, 'Remove');
      await page.getByRole('heading', { name: 'Remove gone@example.org?' }).waitFor();
      await press(page, 'Remove gone@example.org');
      await page.getByRole('heading', { name: 'Removed gone@example.org' }).waitFor();
    }

    await page.goto(site.url('/admin/audit'));
    const actions = await page.locator('tbody tr td:nth-child(3)').allTextContents();
    expect(actions.slice(0, javaScriptEnabled ? 3 : 2)).toEqual(
      javaScriptEnabled ? ['remove', 'invite', 'login'] : ['invite', 'login'],
    );
    expect(await page.locator('main').textContent()).not.toContain('gone@example.org');

    await press(page, 'Log out');
    expect(new URL(page.url()).pathname).toBe('/admin/login');
    await page.goto(site.url('/admin'));
    expect(new URL(page.url()).pathname).toBe('/admin/login');
    expect(cspViolations()).toEqual([]);
    await context.close();
  });
});

describe('bounces in the console', () => {
  it('shows the providers’ rates on the dashboard, and why an address is undeliverable', async () => {
    const { page, context } = await site.open({ javaScriptEnabled: false });
    await logIn(page);
    const rates = page.getByRole('table', { name: 'Bounces and complaints, the last 30 days' });
    // One bounce, and its share of the mail the other tests of this file had sent by then.
    expect(await rates.getByRole('row', { name: /permanent bounces/ }).textContent()).toMatch(
      /^permanent bounces1(\u00a0\(\d+\.\d\u00a0%\))?$/,
    );
    await page.goto(site.url('/admin/signups?state=undeliverable'));
    const row = page.getByRole('row', { name: /dead@example\.org/ });
    expect(await row.textContent()).toContain(
      'undeliverablebounced at Amazon SES: Permanent/General 5.1.1',
    );
    await context.close();
  });
});

describe.each([
  ['with JavaScript', true],
  ['without JavaScript', false],
])('importing a list from the console %s', (_name, javaScriptEnabled) => {
  it('checks the uploaded file first, then imports it once it is chosen again', async () => {
    const { page, context, problems } = await site.open({ javaScriptEnabled });
    const cspViolations = await watchCsp(context, problems);
    await logIn(page);
    await page.goto(site.url('/admin/signups'));
    await Promise.all([
      page.waitForNavigation(),
      page.getByRole('link', { name: 'Import CSV' }).click(),
    ]);
    const run = javaScriptEnabled ? 'js' : 'plain';
    const file = {
      name: 'subscribers.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(
        'uuid,email,name,attributes,status,created_at,updated_at\n' +
          `1,ann-${run}@example.org,"Ann, ""A""",{},enabled,2024-01-15 16:00:00 +0530 IST,x\n` +
          `2,spam-${run}@example.org,,{},blocklisted,2024-01-16 16:00:00 +0530 IST,x\n`,
      ),
    };
    await page.getByLabel(/CSV file/).setInputFiles(file);
    await press(page, 'Check the file');
    await page.getByRole('heading', { name: 'What the file holds' }).waitFor();
    expect(await page.getByRole('row', { name: /would be added/ }).textContent()).toBe(
      'would be added1line 2',
    );
    // axe-core runs as a script in the page: only where the page may run one.
    if (javaScriptEnabled) expect(await axeViolations(page)).toEqual([]);
    await page.getByLabel(/CSV file/).setInputFiles(file);
    await press(page, 'Import 1 row(s)');
    await page.getByRole('heading', { name: 'Imported 1 row(s)' }).waitFor();
    expect(await page.locator('main').textContent()).toContain(
      'refused, blocklisted in listmonk (now suppressed)1line 3',
    );
    await page.goto(site.url(`/admin/signups?q=ann-${run}`));
    const imported = page.getByRole('row', { name: new RegExp(`ann-${run}@example.org`) });
    expect(await imported.count()).toBe(1);
    expect(cspViolations()).toEqual([]);
    await context.close();
  });
});

describe.each(VIEWPORTS)('axe on the console at $name width', (viewport) => {
  it('finds 0 violations on the login, dashboard, signups, mail, outbox, audit and import pages', async () => {
    const { page, context, problems } = await site.open({
      width: viewport.width,
      height: viewport.height,
    });
    const cspViolations = await watchCsp(context, problems);
    await page.goto(site.url('/admin/login'));
    const found: Record<string, string[]> = { login: await axeViolations(page) };
    await logIn(page);
    for (const path of [
      '/admin',
      '/admin/signups',
      '/admin/mail',
      '/admin/outbox',
      '/admin/audit',
      '/admin/signups/next?n=5',
      '/admin/signups/import',
    ]) {
      await page.goto(site.url(path));
      found[path] = await axeViolations(page);
      if (path === '/admin' || path === '/admin/signups')
        await screenshot(
          page,
          `${viewport.name}-console${path.replace(/\//g, '-').replace('-admin', '')}`,
        );
    }
    expect(found).toEqual(Object.fromEntries(Object.keys(found).map((key) => [key, []])));
    expect(cspViolations()).toEqual([]);
    await context.close();
  });
});
