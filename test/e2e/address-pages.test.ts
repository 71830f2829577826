// The address pages in Chromium against the production server, which stores signups
// itself with CONFIRM_SIGNUPS=on and writes its mail as .eml files: the links come out of real
// mail. A GET shows one button and changes nothing; the button's native POST acts, with JavaScript
// or without. The flows run in a phone's window; each page is laid out at both widths at the end.
import type { Page } from 'playwright-core';
import {
  atBothWidths,
  hydrated,
  mailedTo,
  mailTo,
  startSiteOfItsOwn,
  unexpected,
  type Site,
} from '../support/site';

const SENT = 'If this address is on the waitlist, we have sent it a link. Open it to leave.';
const ERASED = [
  'your address and what you wrote about yourself;',
  'your place on the waitlist;',
  'any activation key we sent you;',
  'mail still waiting to be sent to you.',
];
/** Shaped like a token (32 URL-safe characters) but nobody's. */
const UNKNOWN_TOKEN = 'A'.repeat(32);

let site: Site;
beforeAll(async () => {
  site = await startSiteOfItsOwn({ CONFIRM_SIGNUPS: 'on', MAIL_TO_FILES: 'on' });
});
afterAll(() => site?.close());

/** Joins through the waitlist form, as a visitor does. */
async function join(page: Page, address: string, javaScript: boolean): Promise<void> {
  await page.goto(site.url('/'));
  if (javaScript) await hydrated(page);
  await page.getByLabel('Email', { exact: true }).fill(address);
  await page.getByLabel('About me (or github profile)').fill('I write org files');
  await page.getByRole('button', { name: 'Join' }).click();
  await page.getByRole('heading', { name: 'Congratulations' }).waitFor();
}

/** Joins the way the API's clients do, when the test is about something else. */
async function joinByApi(address: string): Promise<void> {
  const form = new FormData();
  form.set('email', address);
  form.set('description', 'me');
  const res = await fetch(site.url('/api/subscriptions'), { method: 'POST', body: form });
  expect(res.status).toBeLessThan(300);
}

/** A mailed link as [the page it leads to, its token]. */
function pageAndToken(link: string | undefined): [string, string | null] {
  const url = new URL(link ?? 'about:blank');
  return [`${url.origin}${url.pathname}`, url.searchParams.get('token')];
}

/** Presses a page's button and returns the answer to the native POST it makes. */
async function press(page: Page, name: string) {
  const [response] = await Promise.all([
    page.waitForNavigation(),
    page.locator('main').getByRole('button', { name }).click(),
  ]);
  expect(response!.request().method()).toBe('POST');
  return response!;
}

const heading = (page: Page) => page.getByRole('heading', { level: 1 }).innerText();

describe.each([
  ['with JavaScript', true],
  ['without JavaScript', false],
])('%s', (_label, javaScript) => {
  const tag = javaScript ? 'js' : 'nojs';

  it('confirms an address by its mailed link: the GET shows one button and changes nothing, the POST confirms', async () => {
    const address = `confirm-${tag}@example.org`;
    const { page, context, problems } = await site.open({ javaScriptEnabled: javaScript });
    await join(page, address, javaScript);
    if (javaScript)
      expect(
        await page
          .getByText('Please confirm your address with the link we have mailed you.')
          .isVisible(),
      ).toBe(true);

    const mail = await mailedTo(site, address, 1);
    expect(mail.subject).toBe('Confirm your address for the OrgNote waitlist');
    expect(pageAndToken(mail.confirmLink)).toEqual([
      site.url('/confirm'),
      expect.stringMatching(/^[\w-]{32}$/),
    ]);

    for (const visit of ['first', 'second']) {
      const res = await page.goto(mail.confirmLink!);
      expect([visit, res!.status()]).toEqual([visit, 200]);
      if (javaScript) await hydrated(page);
      expect(await heading(page)).toBe('Confirm your address');
      expect(await page.title()).toBe('Confirm your address · OrgNote');
    }

    const confirmed = await press(page, 'Confirm my address');
    expect(confirmed.status()).toBe(200);
    if (javaScript) await hydrated(page);
    expect(await heading(page)).toBe('Your address is confirmed');
    expect(
      await page
        .getByText('We will write to you when your invitation is ready.', { exact: false })
        .isVisible(),
    ).toBe(true);

    const again = await page.goto(mail.confirmLink!);
    expect(again!.status()).toBe(410);
    expect(
      await page
        .getByText('This link has been used already: your address is confirmed.')
        .isVisible(),
    ).toBe(true);
    expect(unexpected(problems, [410])).toEqual([]);
    await context.close();
  });

  it('leaves by the link every mail carries: what leaving erases, one button, then nothing is left', async () => {
    const address = `leave-${tag}@example.org`;
    await joinByApi(address);
    const { leaveLink } = await mailedTo(site, address, 1);
    expect(pageAndToken(leaveLink)).toEqual([
      site.url('/leave'),
      expect.stringMatching(/^[\w-]{32}$/),
    ]);

    const { page, context, problems } = await site.open({ javaScriptEnabled: javaScript });
    expect((await page.goto(leaveLink!))!.status()).toBe(200);
    if (javaScript) await hydrated(page);
    expect(await heading(page)).toBe('Leave the waitlist');
    expect(await page.locator('main li').allInnerTexts()).toEqual(ERASED);
    expect(await page.getByText('Your free subscription is active', { exact: false }).count()).toBe(
      0,
    );

    const left = await press(page, 'Leave the waitlist');
    expect(left.status()).toBe(200);
    if (javaScript) await hydrated(page);
    expect(await heading(page)).toBe('You have left the waitlist');
    // Its mail went with it: no .eml to the address is left on disk.
    expect(await mailTo(site, address)).toEqual([]);

    expect((await page.goto(leaveLink!))!.status()).toBe(404);
    expect(
      await page.getByText('you may have left the waitlist already', { exact: false }).isVisible(),
    ).toBe(true);
    expect(unexpected(problems, [404])).toEqual([]);
    await context.close();
  });

  it('asks for a leave link on /leave, with the same answer for an address on the list and one that is not', async () => {
    const listed = `listed-${tag}@example.org`;
    const stranger = `stranger-${tag}@example.org`;
    await joinByApi(listed);
    await mailedTo(site, listed, 1);

    const { page, context, problems } = await site.open({ javaScriptEnabled: javaScript });
    const answers: string[] = [];
    for (const address of [stranger, listed]) {
      await page.goto(site.url('/leave'));
      if (javaScript) await hydrated(page);
      expect(await page.title()).toBe('Leave the waitlist · OrgNote');
      await page.getByLabel('Email address').fill(address);
      const res = await press(page, 'Send me a link');
      expect(res.status()).toBe(200);
      if (javaScript) await hydrated(page);
      answers.push(await page.locator('main').innerText());
    }
    expect(answers[0]).toContain(SENT);
    expect(answers[1]).toBe(answers[0]);

    const mail = await mailedTo(site, listed, 2);
    expect(mail.subject).toBe('Your link to leave the OrgNote waitlist');
    const link = /\S+\/leave\?token=[\w-]+/.exec(mail.text)![0];
    expect((await page.goto(link))!.status()).toBe(200);
    expect(
      await page.locator('main').getByRole('button', { name: 'Leave the waitlist' }).isVisible(),
    ).toBe(true);
    // The stranger asked first, so any mail to them would be on disk by now.
    expect(await mailTo(site, stranger)).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it("shows the server's refusal of an address as the field's error, keeping what was typed", async () => {
    const { page, context, problems } = await site.open({ javaScriptEnabled: javaScript });
    await page.goto(site.url('/leave'));
    if (javaScript) await hydrated(page);
    // The browser takes 'zoe@example' for an address; the waitlist's rule wants a dot in the
    // domain.
    await page.getByLabel('Email address').fill('zoe@example');
    expect((await press(page, 'Send me a link')).status()).toBe(400);
    if (javaScript) await hydrated(page);
    const field = page.getByLabel('Email address');
    expect(await field.inputValue()).toBe('zoe@example');
    expect(await field.getAttribute('aria-invalid')).toBe('true');
    const described = await field.getAttribute('aria-describedby');
    expect(await page.locator(`[id="${described}"]`).innerText()).toBe(
      'This is not an email address',
    );
    expect(await page.getByRole('alert').innerText()).toBe('This is not an email address');
    expect(unexpected(problems, [400])).toEqual([]);
    await context.close();
  });
});

describe('links that do nothing', () => {
  it.each([
    [
      '/confirm?token=bad',
      400,
      'This link is incomplete. Copy the whole link from the mail into your browser’s address bar.',
    ],
    [`/confirm?token=${UNKNOWN_TOKEN}`, 404, 'This link is not valid.'],
    [
      `/leave?token=${UNKNOWN_TOKEN}`,
      404,
      'This link is not valid. If you followed a link from our mail, you may have left the waitlist already.',
    ],
  ])('%s answers %i and says why', async (path, status, reason) => {
    const { page, context, problems } = await site.open();
    expect((await page.goto(site.url(path)))!.status()).toBe(status);
    await hydrated(page);
    expect(await heading(page)).toBe('This link does not work');
    expect(await page.getByText(reason, { exact: true }).isVisible()).toBe(true);
    expect(
      await page.getByRole('link', { name: 'Back to the waitlist' }).getAttribute('href'),
    ).toBe('/');
    expect(await page.locator('main').getByRole('button').count()).toBe(0);
    expect(unexpected(problems, [status])).toEqual([]);
    await context.close();
  });

  it('answers the one-click POST a mail provider sends (RFC 8058), after which the link is gone', async () => {
    const address = 'one-click@example.org';
    await joinByApi(address);
    const { leaveLink } = await mailedTo(site, address, 1);
    const res = await fetch(leaveLink!, {
      method: 'POST',
      body: new URLSearchParams({ 'List-Unsubscribe': 'One-Click' }),
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('You have left the waitlist');
    expect((await fetch(leaveLink!)).status).toBe(404);
  });
});

describe('the joined view after leaving', () => {
  it('gives the browser its waitlist form back once the address has left by its link', async () => {
    const address = 'back-again@example.org';
    const { page, context, problems } = await site.open();
    await join(page, address, true);
    await page.goto(site.url('/'));
    await hydrated(page);
    expect(await page.getByRole('button', { name: 'Join' }).count()).toBe(0);

    const { leaveLink } = await mailedTo(site, address, 1);
    await page.goto(leaveLink!);
    await hydrated(page);
    await press(page, 'Leave the waitlist');
    await hydrated(page);
    expect(await heading(page)).toBe('You have left the waitlist');

    await page.goto(site.url('/'));
    await hydrated(page);
    expect(await page.getByRole('button', { name: 'Join' }).isVisible()).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('a mailed token', () => {
  // A proxy's access log records each request's Referer: the page's own requests must not carry
  // the URL the token came in.
  it('never leaves the page in a Referer: not in its scripts, its button, or the next page', async () => {
    const address = 'referer@example.org';
    await joinByApi(address);
    const { confirmLink } = await mailedTo(site, address, 1);
    const [, token] = pageAndToken(confirmLink);
    const { page, context, problems } = await site.open();
    const referers: (string | undefined)[] = [];
    page.on('request', (request) => referers.push(request.headers().referer));

    await page.goto(confirmLink!);
    await hydrated(page);
    await press(page, 'Confirm my address');
    // The header's home link: a navigation of the browser's own once the page below is hydrated.
    await hydrated(page);
    await Promise.all([page.waitForURL(site.url('/')), page.locator('header a.brand').click()]);

    const sent = referers.filter((referer) => referer !== undefined);
    // The page's scripts, the POST and what the next page fetched: requests that did carry one.
    expect(sent.length).toBeGreaterThanOrEqual(3);
    expect(sent.filter((referer) => referer.includes(token!))).toEqual([]);
    expect(new Set(sent)).toEqual(new Set([`${new URL(site.url('/')).origin}/`]));
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('the way to /leave', () => {
  it('is a link under the form on /, answered by the server', async () => {
    const { page, context, problems } = await site.open();
    await page.goto(site.url('/'));
    await hydrated(page);
    const [res] = await Promise.all([
      page.waitForNavigation(),
      page.locator('.hero-form').getByRole('link', { name: 'Leave the waitlist' }).click(),
    ]);
    expect(res!.url()).toBe(site.url('/leave'));
    await hydrated(page);
    expect(await heading(page)).toBe('Leave the waitlist');
    expect(await page.getByLabel('Email address').isVisible()).toBe(true);
    expect(problems).toEqual([]);
    await context.close();
  });
});

describe('the address pages at both widths', () => {
  it('fit the window, phone and desktop, in each of their states', async () => {
    const address = 'widths@example.org';
    await joinByApi(address);
    const mail = await mailedTo(site, address, 1);
    const { page, context, problems } = await site.open();
    const states: [string, () => Promise<unknown>][] = [
      ['confirm', () => page.goto(mail.confirmLink!)],
      ['confirm-refused', () => page.goto(site.url('/confirm?token=bad'))],
      ['leave', () => page.goto(mail.leaveLink!)],
      ['leave-ask', () => page.goto(site.url('/leave'))],
      [
        'leave-ask-error',
        async () => {
          await page.getByLabel('Email address').fill('zoe@example');
          await press(page, 'Send me a link');
        },
      ],
    ];
    for (const [state, reach] of states) {
      await reach();
      await hydrated(page);
      await atBothWidths(page, state, [page.getByRole('heading', { level: 1 })]);
    }
    expect(unexpected(problems, [400])).toEqual([]);
    await context.close();
  });
});
