// Every script a first load of / fetches, as Chromium fetched it against the production server, is
// one the first-load count weighs (scripts/weights.ts firstLoadScripts): a script left out of the
// count would let the budget pass while visitors download more. Each is served content-hashed and
// cached immutably.
import { loadPageAssets } from '../../server/pages/static-files';
import { firstLoadScripts } from '../../scripts/weights';
import { until } from '../support/wait';
import { hydrated, startSite, VIEWPORTS, type Site } from '../support/site';

let site: Site;
beforeAll(async () => {
  site = await startSite();
});
afterAll(() => site?.close());

describe.each(VIEWPORTS)('a first load of / at $width px', ({ width, height }) => {
  it('fetches exactly the scripts the first-load count weighs, each cached immutably', async () => {
    const { page, context, problems } = await site.open({
      width,
      height,
      reducedMotion: 'no-preference',
    });
    const fetched = new Map<string, string | undefined>();
    page.on('response', (response) => {
      const url = new URL(response.url());
      if (['script', 'worker'].includes(response.request().resourceType()))
        fetched.set(url.pathname, response.headers()['cache-control']);
    });
    const workers: string[] = [];
    // The motion check is the first load's last step: its worker ends once it has answered.
    const motionChecked = new Promise<void>((resolve) =>
      page.on('worker', (worker) => {
        workers.push(new URL(worker.url()).pathname);
        worker.once('close', () => resolve());
      }),
    );

    await page.goto(site.url('/'));
    await hydrated(page);
    // The document's script starts the motion check once the browser is idle after hydration.
    await until('the motion-check worker has started', () => workers.length > 0, 10_000);
    await motionChecked;
    await until('its script has arrived', () => fetched.has(workers[0]), 5_000);

    const counted = firstLoadScripts(loadPageAssets());
    expect([...fetched.keys()].sort()).toEqual([...counted].sort());
    expect(workers).toEqual([loadPageAssets().workers['motion-check']]);
    for (const cacheControl of fetched.values())
      expect(cacheControl).toBe('public, max-age=31536000, immutable');
    expect(problems).toEqual([]);
    await context.close();
  });
});
