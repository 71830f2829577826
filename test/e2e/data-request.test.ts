// A person's own data in Chromium against the production server, which stores signups itself and
// writes its mail as .eml files: from /privacy's form, through the link in the real mail, to the
// downloaded file, in English and in Russian, in a phone's window. The form works without
// JavaScript and answers every address alike; the link's page downloads nothing until its
// button is pressed, and the file comes once.
import type { Download, Page } from 'playwright-core';
import {
  atBothWidths,
  hydrated,
  mailTo,
  startSiteOfItsOwn,
  unexpected,
  type Site,
} from '../support/site';
import { until } from '../support/wait';

let site: Site;
beforeAll(async () => {
  site = await startSiteOfItsOwn({ MAIL_TO_FILES: 'on' });
});
afterAll(() => site?.close());

/** Joins the way the API's clients do: the test is about what comes after. */
async function joinByApi(address: string, language: 'en' | 'ru'): Promise<void> {
  const form = new FormData();
  form.set('email', address);
  form.set('description', 'I write org files');
  if (language === 'ru') form.set('language', 'ru');
  const res = await fetch(site.url('/api/subscriptions'), { method: 'POST', body: form });
  expect(res.status).toBeLessThan(300);
}

const WORDS = {
  en: {
    prefix: '',
    label: 'Email address',
    ask: 'Send me what you hold about me',
    sent: 'If this address is on the waitlist, we have sent it a link to download its data.',
    subject: 'What the OrgNote waitlist holds about you',
    heading: 'Download your data',
    code: 'Code from the mail',
    download: 'Download my data',
    spent: 'This link has been used already: it downloads the file once.',
  },
  ru: {
    prefix: '/ru',
    label: 'Адрес электронной почты',
    ask: 'Пришлите мне всё, что вы обо мне храните',
    sent: 'Если этот адрес есть в листе ожидания, мы отправили на него ссылку для скачивания данных.',
    subject: 'Что лист ожидания OrgNote хранит о вас',
    heading: 'Скачать ваши данные',
    code: 'Код из письма',
    download: 'Скачать мои данные',
    spent: 'Эта ссылка уже использована: файл по ней скачивается один раз.',
  },
} as const;

/** Fills /privacy's form and presses its button: the native POST's answer. */
async function askForData(page: Page, language: 'en' | 'ru', address: string, js: boolean) {
  const words = WORDS[language];
  await page.goto(site.url(`${words.prefix}/privacy`));
  if (js) await hydrated(page);
  const section = page.locator('#data-request');
  await section.scrollIntoViewIfNeeded();
  if (js)
    await atBothWidths(page, `data-request-form-${language}`, [
      section.getByRole('button', { name: words.ask }),
    ]);
  await section.getByLabel(words.label).fill(address);
  const [response] = await Promise.all([
    page.waitForNavigation(),
    section.getByRole('button', { name: words.ask }).click(),
  ]);
  expect(response!.request().method()).toBe('POST');
  expect(response!.status()).toBe(200);
  // The answer is in view: the form posted to its own section.
  expect(new URL(page.url()).hash).toBe('#data-request');
  const status = page.locator('#data-request [role="status"]');
  expect(await status.innerText()).toContain(words.sent);
  expect(await status.isVisible()).toBe(true);
}

/** The data link in the mail to `address`, once the site has written it. */
async function dataLinkTo(
  address: string,
  subject: string,
): Promise<{ link: string; code: string }> {
  let found: { link: string; code: string } | undefined;
  await until(
    `the data link mailed to ${address}`,
    async () => {
      const mail = (await mailTo(site, address)).find((each) => each.subject === subject);
      const match = /(\S+\/privacy\/data)#([\w-]{32})/.exec(mail?.text ?? '');
      found = match ? { link: match[0], code: match[2] } : undefined;
      return found !== undefined;
    },
    10_000,
  );
  return found!;
}

/** The downloaded file's text. */
async function contentOf(download: Download): Promise<string> {
  const stream = await download.createReadStream();
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Presses the page's download button and returns the file it downloads. */
async function pressDownload(page: Page, name: string) {
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.locator('main').getByRole('button', { name }).click(),
  ]);
  return download;
}

describe.each([['en'], ['ru']] as const)('in %s, with JavaScript', (language) => {
  it('goes from /privacy’s form through the mailed link to the downloaded file, once', async () => {
    const words = WORDS[language];
    const address = `data-${language}@example.org`;
    await joinByApi(address, language);
    const { page, context, problems } = await site.open();

    await askForData(page, language, address, true);
    await atBothWidths(page, `data-request-sent-${language}`, [
      page.locator('#data-request [role="status"]'),
    ]);
    const { link, code } = await dataLinkTo(address, words.subject);
    expect(link).toBe(`${site.url(`${words.prefix}/privacy/data`)}#${code}`);

    const opened = await page.goto(link);
    expect(opened!.status()).toBe(200);
    await hydrated(page);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe(words.heading);
    // The code came from the link: the field is filled and out of the way, the address bar clean.
    await page.locator('.field[hidden] #data-code').waitFor({ state: 'attached' });
    expect(await page.locator('#data-code').inputValue()).toBe(code);
    expect(await page.getByLabel(words.code).isVisible()).toBe(false);
    expect(new URL(page.url()).hash).toBe('');
    await atBothWidths(page, `data-link-${language}`, [
      page.getByRole('button', { name: words.download }),
    ]);

    const download = await pressDownload(page, words.download);
    expect(download.suggestedFilename()).toMatch(/^orgnote-data-\d{4}-\d{2}-\d{2}\.json$/);
    const held = JSON.parse(await contentOf(download)) as {
      signup: Record<string, unknown>;
      mail: { kind: string; subject: string }[];
    };
    expect(held.signup).toMatchObject({
      email: address,
      description: 'I write org files',
      language,
      state: 'waitlisted',
    });
    expect(held.mail).toContainEqual(
      expect.objectContaining({ kind: 'data-link', subject: words.subject }),
    );
    // The page stays; pressing again finds the link spent.
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe(words.heading);
    const [again] = await Promise.all([
      page.waitForNavigation(),
      page.locator('main').getByRole('button', { name: words.download }).click(),
    ]);
    expect(again!.status()).toBe(410);
    expect(await page.getByText(words.spent).isVisible()).toBe(true);
    await atBothWidths(page, `data-link-spent-${language}`, [page.getByText(words.spent)]);
    expect(unexpected(problems, [410])).toEqual([]);
    await context.close();
  });
});

describe('without JavaScript', () => {
  it('answers a listed and an unlisted address alike, and the code from the mail downloads the file', async () => {
    const words = WORDS.en;
    const address = 'data-nojs@example.org';
    await joinByApi(address, 'en');
    const { page, context, problems } = await site.open({ javaScriptEnabled: false });

    await askForData(page, 'en', 'nobody-nojs@example.org', false);
    const unlisted = await page.locator('main').innerHTML();
    await askForData(page, 'en', address, false);
    expect(await page.locator('main').innerHTML()).toBe(unlisted);

    const { link, code } = await dataLinkTo(address, words.subject);
    expect((await mailTo(site, 'nobody-nojs@example.org')).length).toBe(0);
    // A mail scanner's GET, or a page without script: nothing is downloaded, the code is asked.
    await page.goto(link);
    const field = page.getByLabel(words.code);
    expect(await field.isVisible()).toBe(true);
    expect(await field.inputValue()).toBe('');
    await field.fill(code);
    const download = await pressDownload(page, words.download);
    expect(JSON.parse(await contentOf(download))).toMatchObject({ signup: { email: address } });
    expect(unexpected(problems)).toEqual([]);
    await context.close();
  });
});
