// The renderer streams: the shell leaves before slow parts finish, even through compression,
// and a render that fails before the shell gives a plain 500 page with nothing internal in it.
import http from 'node:http';
import type { Transform } from 'node:stream';
import zlib from 'node:zlib';
import { Suspense, use } from 'react';
import compression from 'compression';
import express from 'express';
import type { RouteObject } from 'react-router';
import { securityHeaders } from '../../../server/http/security-headers';
import { createRenderer } from '../../../server/pages/render';
import { DEFAULT_PUBLIC_CONFIG } from '../../../shared/public-config';
import { capturingLogger } from '../../support/config';
import { listen, rawGet } from '../../support/http';
import { until } from '../../support/wait';

function appWith(routes: RouteObject[]) {
  const app = express();
  app.use(compression());
  const { logger, lines } = capturingLogger();
  const { pagePolicy } = securityHeaders(DEFAULT_PUBLIC_CONFIG);
  const assets = {
    scripts: [],
    styles: [],
    preloads: [],
    languages: { en: { scripts: [], preloads: [] }, ru: { scripts: [], preloads: [] } },
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

/** A shell, and a part that waits for `ready`, which the test gives only once it has the shell. */
function SlowPage({ ready }: { ready: Promise<string> }) {
  return (
    <main>
      <h1>shell first</h1>
      <Suspense fallback={<p>loading…</p>}>
        <SlowPart ready={ready} />
      </Suspense>
    </main>
  );
}

/** The page's answer, and its body as it is decoded, chunk by chunk. */
async function streamedGet(port: number, encoding: string, decoder: Transform) {
  const res = await new Promise<http.IncomingMessage>((resolve, reject) => {
    const headers = { 'Accept-Encoding': encoding };
    http
      .get({ host: '127.0.0.1', port, path: '/', headers, agent: false }, resolve)
      .on('error', reject);
  });
  const decoded = res.pipe(decoder).setEncoding('utf8');
  let html = '';
  decoded.on('data', (chunk: string) => (html += chunk));
  const ended = new Promise((resolve, reject) => decoded.on('end', resolve).on('error', reject));
  return { res, html: () => html, ended };
}

describe('streamed rendering', () => {
  it.each([
    ['gzip', () => zlib.createGunzip()],
    ['br', () => zlib.createBrotliDecompress()],
  ])('sends the shell before the slow part, through %s compression', async (encoding, decoder) => {
    let finish!: (text: string) => void;
    const ready = new Promise<string>((resolve) => (finish = resolve));
    const { app } = appWith([{ path: '/', element: <SlowPage ready={ready} /> }]);
    const { server, port } = await listen(app);
    try {
      const { res, html, ended } = await streamedGet(port, encoding, decoder());
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-encoding']).toBe(encoding);
      // The slow part cannot finish before this: the shell reaches the client on its own.
      await until('the shell reaches the client', () => html().includes('shell first'));
      expect(html()).not.toContain('slow part done');
      finish('slow part done');
      await ended;
      expect(html()).toContain('slow part done');
    } finally {
      server.close();
    }
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
