// The waitlist form in Chromium with JavaScript (docs/product.md §3–§5, §7), against the production
// server and a real multer backend, in a phone's window; each state the form shows is laid out at
// both widths (atBothWidths).
import { atBothWidths, hydrated, startSite, unexpected, type Site } from '../support/site';
import { until } from '../support/wait';

let site: Site;
beforeAll(async () => {
  site = await startSite();
});
afterAll(() => site?.close());
beforeEach(() => {
  site.backend.received.length = 0;
  site.backend.respondWith((req, res) => res.status(201).json({ email: 'ok' }));
});

describe('waitlist', () => {
  it('validates on submit with the product §5 messages, then re-validates while typing', async () => {
    const { page, context, problems } = await site.open();
    await page.goto(site.url('/'));
    await hydrated(page);
    const email = page.getByLabel('Email', { exact: true });
    await page.getByRole('button', { name: 'Join' }).click();
    await page.getByText('Email address is required').waitFor();
    await page.getByText('Required', { exact: true }).waitFor();
    expect(await email.getAttribute('aria-invalid')).toBe('true');
    expect(await email.evaluate((el) => el === document.activeElement)).toBe(true);
    await atBothWidths(page, 'waitlist-validation', [
      page.getByText('Email address is required'),
      page.getByText('Required', { exact: true }),
    ]);

    await email.fill('not an email');
    expect(await page.getByText('Email address is required').count()).toBe(0);
    expect(await email.getAttribute('aria-invalid')).toBe('true');
    await email.fill('a@b.co');
    expect(await email.getAttribute('aria-invalid')).toBeNull();
    expect(site.backend.received).toHaveLength(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows a spinner while submitting, then the joined view; the backend got the fields and the flag is set', async () => {
    // Every request is held on one promise and released together. A callback reassigned per
    // request answered only the last one: on a busy machine the site's outbox can retry a signup
    // whose answer took longer than UPSTREAM_TIMEOUT_MS, and such a retry arriving before the
    // browser's request left the browser's unanswered until the test timed out.
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let arrived!: () => void;
    const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
    site.backend.respondWith(async (req, res) => {
      arrived();
      await released;
      res.status(201).json({ email: 'ok' });
    });
    const { page, context, problems } = await site.open();
    await page.goto(site.url('/'));
    await hydrated(page);
    await page.getByLabel('Email', { exact: true }).fill('zoë@example.org');
    await page.getByLabel('About me (or github profile)').fill('github.com/zoe\nsecond line');
    await page.getByRole('button', { name: 'Join' }).click();

    const button = page.getByRole('button', { name: 'Join' });
    await page.locator('.submit-button .spinner').waitFor();
    expect(await button.isDisabled()).toBe(true);
    expect(await button.getAttribute('aria-busy')).toBe('true');
    await atBothWidths(page, 'waitlist-submitting', [page.locator('.submit-button .spinner')]);
    await requestArrived;
    release();

    await page.getByRole('heading', { name: 'Congratulations' }).waitFor();
    const text = await page.locator('.result-body').innerText();
    expect(text.trim()).toBe(
      'You are successfully joined to the wait list. Want to get your invitation faster? Join patreon',
    );
    expect(await page.getByRole('link', { name: 'Join patreon' }).getAttribute('href')).toBe(
      'https://www.patreon.com/artawower',
    );
    expect(await page.evaluate(() => localStorage.getItem('subscribed'))).toBe('true');
    // browsers send textarea line breaks as CRLF in multipart bodies
    await reachedBackend();
    expect(site.backend.received.map((r) => r.fields)).toEqual([
      { email: 'zoë@example.org', description: 'github.com/zoe\r\nsecond line' },
    ]);
    await atBothWidths(page, 'waitlist-joined', [
      page.getByRole('heading', { name: 'Congratulations' }),
    ]);

    // the flag makes joined the starting state on the next visit
    await page.reload();
    await hydrated(page);
    await page.getByRole('heading', { name: 'Congratulations' }).waitFor();
    expect(await page.getByRole('button', { name: 'Join' }).count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('still ends in joined, showing no error, when the backend refuses the signup', async () => {
    site.backend.respondWith((req, res) => res.status(422).json({ error: 'Nope' }));
    const { page, context, problems } = await site.open();
    await page.goto(site.url('/'));
    await hydrated(page);
    await page.getByLabel('Email', { exact: true }).fill('a@b.co');
    await page.getByLabel('About me (or github profile)').fill('me');
    await page.getByRole('button', { name: 'Join' }).click();
    await page.getByRole('heading', { name: 'Congratulations' }).waitFor();
    expect(await page.getByText('Nope').count()).toBe(0);
    expect(await page.evaluate(() => localStorage.getItem('subscribed'))).toBe('true');
    expect(unexpected(problems, [422])).toEqual([]);
    await context.close();
  });
});

/**
 * The signup reached the backend: at once, or through the outbox when the backend answered later
 * than UPSTREAM_TIMEOUT_MS (a busy machine), which the visitor is congratulated for just the same.
 */
const reachedBackend = () =>
  until('the backend has the signup', () => site.backend.received.length > 0, 15_000);

describe('waitlist by keyboard', () => {
  it('goes email → about me → Join, and Enter on the button submits', async () => {
    const { page, context, problems } = await site.open();
    await page.goto(site.url('/'));
    await hydrated(page);
    const focused = () =>
      page.evaluate(
        () => document.activeElement?.getAttribute('name') ?? document.activeElement?.textContent,
      );
    expect(await focused()).toBe('email');
    await page.keyboard.type('keys@example.org');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('description');
    await page.keyboard.type('typed with a keyboard');
    await page.keyboard.press('Tab');
    expect(await focused()).toBe('Join');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Congratulations' }).waitFor();
    await reachedBackend();
    expect(site.backend.received.map((r) => r.fields)).toEqual([
      { email: 'keys@example.org', description: 'typed with a keyboard' },
    ]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('prefills ?email= and puts focus on the second field', async () => {
    const { page, context } = await site.open();
    await page.goto(site.url('/?email=pre%40example.org'));
    await hydrated(page);
    expect(await page.getByLabel('Email', { exact: true }).inputValue()).toBe('pre@example.org');
    expect(await page.evaluate(() => document.activeElement?.getAttribute('name'))).toBe(
      'description',
    );
    await context.close();
  });
});
