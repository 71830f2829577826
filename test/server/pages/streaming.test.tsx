/** @jest-environment-options {"timed": true} */
// The renderer streams: the shell leaves before slow parts finish, even through compression,
// and a render that fails before the shell gives a plain 500 page with nothing internal in it.
import zlib from 'node:zlib';
import { Suspense, use } from 'react';
import compression from 'compression';
import express from 'express';
import type { RouteObject } from 'react-router';
import { securityHeaders } from '../../../server/http/security-headers';
import { createRenderer } from '../../../server/pages/render';
import { DEFAULT_PUBLIC_CONFIG } from '../../../shared/public-config';
import { capturingLogger } from '../../support/config';
import { rawGet } from '../../support/http';

// Wide enough that a busy machine's pause before the shell does not reach it.
const SLOW_MS = 800;

function appWith(routes: RouteObject[]) {
  const app = express();
  app.use(compression());
  const { logger, lines } = capturingLogger();
  const { pagePolicy } = securityHeaders(DEFAULT_PUBLIC_CONFIG);
  const assets = {
    scripts: [],
    styles: [],
    preloads: [],
    workers: { 'motion-check': '/assets/motion-check.js' },
    css: '',
  };
  // SITE_URL given: the renderer runs here without the request pipeline that works out the origin.
  app.use(
    createRenderer({
      assets,
      publicConfig: DEFAULT_PUBLIC_CONFIG,
      logger,
      routes,
      pagePolicy,
      siteUrl: 'http://localhost',
    }).streamPage,
  );
  return { app, lines };
}

function SlowPart({ ready }: { ready: Promise<string> }) {
  return <p>{use(ready)}</p>;
}

function SlowPage() {
  const ready = new Promise<string>((resolve) =>
    setTimeout(() => resolve('slow part done'), SLOW_MS),
  );
  return (
    <main>
      <h1>shell first</h1>
      <Suspense fallback={<p>loading…</p>}>
        <SlowPart ready={ready} />
      </Suspense>
    </main>
  );
}

describe('streamed rendering', () => {
  // The first render in a process loads and compiles React's server renderer and the compressors,
  // which takes hundreds of milliseconds on a busy machine; the timed requests measure streaming.
  beforeAll(async () => {
    const { app } = appWith([{ path: '/', element: <main>warm</main> }]);
    for (const encoding of ['gzip', 'br']) await rawGet(app, '/', { 'Accept-Encoding': encoding });
  });

  it.each([
    ['gzip', (b: Buffer) => zlib.gunzipSync(b)],
    ['br', (b: Buffer) => zlib.brotliDecompressSync(b)],
  ])('sends the shell before the slow part, through %s compression', async (encoding, decode) => {
    const { app } = appWith([{ path: '/', element: <SlowPage /> }]);
    const res = await rawGet(app, '/', { 'Accept-Encoding': encoding });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe(encoding);
    expect(res.chunkTimes.length).toBeGreaterThan(1);
    expect(res.chunkTimes[0]).toBeLessThan(SLOW_MS);
    expect(res.chunkTimes.at(-1)!).toBeGreaterThanOrEqual(SLOW_MS - 20);
    const html = decode(res.body).toString();
    expect(html).toContain('shell first');
    expect(html).toContain('slow part done');
  });

  it('answers a render that fails before the shell with a plain 500 page, no stack trace', async () => {
    function Broken(): never {
      throw new Error('secret internal detail at /srv/app/broken.tsx:12');
    }
    const { app, lines } = appWith([{ path: '/', element: <Broken /> }]);
    const res = await rawGet(app, '/');
    expect(res.status).toBe(500);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    const html = res.body.toString();
    expect(html).toContain('Something went wrong');
    expect(html).not.toMatch(/secret internal detail|broken\.tsx|at \w+ \(/);
    expect(lines.join('\n')).toContain('render failed before the shell was ready');
  });
});
