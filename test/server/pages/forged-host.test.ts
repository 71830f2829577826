// A forged Host or X-Forwarded-Host never reaches a shared cache (docs/decisions/0019). Without
// SITE_URL the pages, robots.txt and sitemap.xml name the origin a request was addressed to, so
// they are private; with SITE_URL they name it whatever a request says, and stay publicly
// cacheable. Checked over the site's routes, then through a real nginx that caches by path.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import path from 'node:path';
import request from 'supertest';
import { releasePort, reservePort } from '../../../scripts/lib/launch/ports';
import { createApp } from '../../../server/app';
import { INDEXED_PATHS } from '../../../server/pages/seo';
import { tempDataDir, testConfig } from '../../support/config';
import { listen, rawRequest } from '../../support/http';
import { until } from '../../support/wait';

const FORGED = 'evil.example';
const SITE_URL = 'https://orgnote.example';

/** What names the origin, and some of what does not (a page per request, a 404, files, probes). */
const NAMING_THE_ORIGIN = [...INDEXED_PATHS, '/robots.txt', '/sitemap.xml'];
const OTHERS = ['/?email=a%40b.co', '/activate/', '/missing', '/favicon.svg', '/healthz'];
const PATHS = [...NAMING_THE_ORIGIN, ...OTHERS];

/** The two ways a request names its origin; the peer (loopback) is a trusted proxy by default. */
const FORGERIES: Record<string, Record<string, string>> = {
  Host: { Host: FORGED },
  'X-Forwarded-Host': { Host: 'orgnote.test', 'X-Forwarded-Host': FORGED },
};
const FORGERY_CASES = Object.entries(FORGERIES);

/**
 * May a shared cache (a CDN, the reverse proxy) store this response? A 200 or a 404 it may, even
 * without a lifetime (heuristic freshness), unless it is private or no-store (RFC 9111 §3).
 */
function sharedCacheable(headers: IncomingHttpHeaders): boolean {
  return !/\b(private|no-store)\b/i.test(String(headers['cache-control'] ?? ''));
}

describe('a forged Host or X-Forwarded-Host, without SITE_URL', () => {
  const app = createApp(testConfig());

  it.each(FORGERY_CASES)('shows in nothing a shared cache may keep (%s)', async (_, headers) => {
    const naming: string[] = [];
    for (const url of PATHS) {
      const res = await request(app).get(url).set(headers);
      expect({ url, status: res.status < 500 }).toEqual({ url, status: true });
      const body = res.text ?? String(res.body);
      if (!body.includes(FORGED)) continue;
      naming.push(url);
      const shared = sharedCacheable(res.headers);
      expect({ url, shared }).toEqual({ url, shared: false });
    }
    // The pages and files that name the origin did name the forged one: the check above held.
    expect(naming).toEqual(expect.arrayContaining(NAMING_THE_ORIGIN));
  });

  it('leaves browsers a copy: pages revalidate by ETag, the two files keep an hour', async () => {
    const get = (url: string) => request(app).get(url).set('Host', 'orgnote.test');
    const page = await get('/activate');
    expect(page.headers['cache-control']).toBe('private, no-cache');
    const again = await get('/activate').set('If-None-Match', page.headers.etag);
    expect(again.status).toBe(304);
    expect(again.headers['cache-control']).toBe('private, no-cache');
    for (const url of ['/robots.txt', '/sitemap.xml']) {
      expect((await get(url)).headers['cache-control']).toBe('private, max-age=3600');
    }
  });
});

describe('a forged Host or X-Forwarded-Host, with SITE_URL', () => {
  const app = createApp(testConfig({ SITE_URL }));

  it.each(FORGERY_CASES)('shows nowhere; pages stay publicly cacheable, %s', async (_, headers) => {
    for (const url of PATHS) {
      const res = await request(app).get(url).set(headers);
      const seen = `${JSON.stringify(res.headers)}\n${res.text ?? String(res.body)}`;
      expect({ url, forged: seen.includes(FORGED) }).toEqual({ url, forged: false });
    }
    for (const url of INDEXED_PATHS) {
      const res = await request(app).get(url).set(headers);
      expect(res.headers['cache-control']).toBe('public, max-age=0, s-maxage=300');
      expect(res.text).toContain(`<link rel="canonical" href="${SITE_URL}${url}"/>`);
    }
    for (const url of ['/robots.txt', '/sitemap.xml']) {
      const res = await request(app).get(url).set(headers);
      expect(res.headers['cache-control']).toBe('public, max-age=3600');
      expect(res.text).toContain(`${SITE_URL}/`);
    }
  });
});

/**
 * nginx caching by path (its default key, plus the test's round), passing the client's Host and
 * X-Forwarded-Host on: the setup a forged Host poisons when the site lets it cache such a page.
 */
async function startCachingNginx(upstreamPort: number) {
  const prefix = tempDataDir();
  const port = reservePort(30_000, 32_000);
  const conf = path.join(prefix, 'nginx.conf');
  fs.writeFileSync(
    conf,
    `${process.getuid?.() === 0 ? 'user root;\n' : ''}pid ${prefix}/nginx.pid;
error_log stderr warn;
events {}
http {
  access_log off;
  client_body_temp_path ${prefix}/body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  proxy_cache_path ${prefix}/cache keys_zone=pages:1m;
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://127.0.0.1:${upstreamPort};
      proxy_set_header Host $http_host;
      proxy_set_header X-Forwarded-Host $http_x_forwarded_host;
      proxy_cache pages;
      proxy_cache_key $scheme$proxy_host$request_uri$http_x_test_round;
      add_header X-Cache-Status $upstream_cache_status always;
    }
  }
}
`,
  );
  const args = ['-p', prefix, '-c', conf, '-g', 'daemon off;'];
  const nginx: ChildProcess = spawn('nginx', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let errors = '';
  nginx.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const exited = new Promise<void>((resolve) => nginx.once('exit', () => resolve()));
  const stop = async () => {
    nginx.kill('SIGQUIT');
    await exited;
    releasePort(port);
  };
  const probe = () => rawRequest(port, '/healthz').catch(() => undefined);
  try {
    await until('nginx answers', async () => (await probe())?.status === 200);
  } catch (err) {
    await stop();
    throw new Error(`${(err as Error).message}\n${errors}`);
  }
  return {
    port,
    async stop() {
      await stop();
      expect(errors).toBe('');
    },
  };
}

describe('behind a real nginx that caches by path', () => {
  it.each([
    ['without SITE_URL', {}],
    ['with SITE_URL', { SITE_URL }],
  ])('%s, a forged request leaves the next visitor an unpoisoned page', async (_case, env) => {
    const { server, port: sitePort } = await listen(createApp(testConfig(env)));
    const nginx = await startCachingNginx(sitePort);
    try {
      for (const [name, forgery] of FORGERY_CASES) {
        for (const url of NAMING_THE_ORIGIN) {
          // Each forgery starts from an empty entry: the test's round is in the key, no Host is.
          const round = { 'X-Test-Round': name };
          const forged = await rawRequest(nginx.port, url, { ...forgery, ...round });
          expect(forged.status).toBe(200);
          const visitor = await rawRequest(nginx.port, url, { Host: 'orgnote.test', ...round });
          const cache = visitor.headers['x-cache-status'];
          const seen = { name, url, cache, forged: visitor.body.toString().includes(FORGED) };
          // With SITE_URL the cache does keep the page (a HIT), and the page names SITE_URL only.
          const kept = 'SITE_URL' in env ? 'HIT' : 'MISS';
          expect(seen).toEqual({ name, url, cache: kept, forged: false });
        }
      }
    } finally {
      await nginx.stop();
      server.close();
    }
  });
});
