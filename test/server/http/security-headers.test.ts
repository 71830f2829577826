// Security headers: strict CSP with a fresh nonce per request that matches the rendered scripts.
import request from 'supertest';
import { createApp } from '../../../server/app';
import { testConfig } from '../../support/config';

const app = createApp(testConfig({ WEB_APP_URL: 'https://app.example.com/' }));

function directives(csp: string): Map<string, string[]> {
  return new Map(
    csp.split(';').map((part) => {
      const [name, ...values] = part.trim().split(/\s+/);
      return [name, values] as [string, string[]];
    }),
  );
}

describe('security headers', () => {
  it('sends a strict CSP whose nonce is on every script a personal page renders', async () => {
    const res = await request(app).get('/?email=a%40b.co');
    const csp = directives(res.headers['content-security-policy']);
    const scriptSrc = csp.get('script-src')!;
    const nonce = scriptSrc.find((v) => v.startsWith("'nonce-"))!.slice(7, -1);
    expect(nonce.length).toBeGreaterThanOrEqual(16);
    expect(scriptSrc).not.toContain("'unsafe-inline'");
    expect(scriptSrc).not.toContain("'unsafe-eval'");
    expect(csp.get('object-src')).toEqual(["'none'"]);
    expect(csp.get('base-uri')).toEqual(["'none'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(csp.get('form-action')).toEqual(["'self'", 'https://app.example.com']);

    // every executable script carries the nonce; the JSON config block is data, not script
    const scripts = [...res.text.matchAll(/<script\b([^>]*)>/g)].map((m) => m[1]);
    const executable = scripts.filter((attrs) => !attrs.includes('type="application/json"'));
    expect(executable.length).toBeGreaterThanOrEqual(2); // hydration data + entry module
    for (const attrs of executable) expect(attrs).toContain(`nonce="${nonce}"`);
  });

  it('uses a different nonce for every request', async () => {
    const a = await request(app).get('/activate?email=a%40b.co');
    const b = await request(app).get('/activate?email=a%40b.co');
    expect(a.headers['content-security-policy']).not.toBe(b.headers['content-security-policy']);
  });

  it('sets nosniff and a referrer policy, and hides the framework', async () => {
    const res = await request(app).get('/');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['referrer-policy']).toBe('strict-origin');
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('sends the headers on API answers and assets too', async () => {
    for (const path of ['/api/subscriptions', '/healthz', '/robots.txt']) {
      const res = await request(app).get(path);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['x-powered-by']).toBeUndefined();
    }
  });

  it('gives API answers, written outside Express, the same headers and fixed policy as the health probe', async () => {
    const helmetHeaders = (headers: Record<string, string>) =>
      Object.fromEntries(
        Object.entries(headers).filter(
          ([name]) =>
            name !== 'x-request-id' &&
            /^(content-security-policy|x-|cross-origin|origin-agent|referrer|strict-transport)/.test(
              name,
            ),
        ),
      );
    const probe = helmetHeaders((await request(app).get('/healthz')).headers);
    for (const call of [
      request(app).get('/api/nowhere'),
      request(app).post('/api/subscriptions').send({ email: 'not an address' }),
    ]) {
      const res = await call;
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(helmetHeaders(res.headers)).toEqual(probe);
    }
    const csp = directives(probe['content-security-policy']);
    expect(csp.get('script-src')).toEqual(["'self'"]);
    expect(csp.get('frame-ancestors')).toEqual(["'none'"]);
    expect(probe['x-frame-options']).toBe('SAMEORIGIN');
  });

  it('keeps nonces for pages: files, robots.txt and refused methods get the fixed policy', async () => {
    const probe = (await request(app).get('/healthz')).headers['content-security-policy'];
    for (const call of [
      request(app).get('/favicon.svg'),
      request(app).get('/robots.txt'),
      request(app).put('/activate'),
    ]) {
      const res = await call;
      expect(res.headers['content-security-policy']).toBe(probe);
    }
    for (const call of [request(app).get('/'), request(app).get('/no-such-page')]) {
      const res = await call;
      expect(
        directives(res.headers['content-security-policy']).get('script-src')!.join(' '),
      ).toMatch(/'nonce-|'sha256-/);
    }
  });
});
