// Cached HTML: the same bytes for everyone except the CSP nonce, and never one visitor's ?email
// in another visitor's page.
import request from 'supertest';
import { createApp } from '../../server/app';
import { createPageCache, NONCE_PLACEHOLDER } from '../../server/page-cache';
import { testConfig } from '../support/config';

const nonceOf = (res: request.Response) => res.headers['content-security-policy'].match(/'nonce-([^']+)'/)![1];
const withoutNonce = (res: request.Response) => res.text.replaceAll(nonceOf(res), 'N');

describe('page cache', () => {
  it('serves the same page to everyone with a fresh nonce that matches the CSP header', async () => {
    const app = createApp(testConfig());
    const first = await request(app).get('/').set('Host', 'orgnote.test');
    const second = await request(app).get('/').set('Host', 'orgnote.test');
    expect(nonceOf(first)).not.toBe(nonceOf(second));
    for (const res of [first, second]) {
      expect(res.text).toContain(`nonce="${nonceOf(res)}"`);
      expect(res.text).not.toContain(NONCE_PLACEHOLDER);
    }
    expect(withoutNonce(second)).toBe(withoutNonce(first));
  });

  it("never shows one visitor's ?email to another, in either order", async () => {
    const app = createApp(testConfig());
    const personal = await request(app).get('/?email=alice%40example.org');
    expect(personal.text).toContain('value="alice@example.org"');
    const anonymous = await request(app).get('/');
    expect(anonymous.text).not.toContain('alice@example.org');
    expect(anonymous.text).toMatch(/name="email" value=""/);
    const other = await request(app).get('/?email=bob%40example.org');
    expect(other.text).toContain('value="bob@example.org"');
    expect(other.text).not.toContain('alice');
    const activate = await request(app).get('/activate?email=carol%40example.org');
    expect((await request(app).get('/activate')).text).not.toContain('carol');
    expect(activate.text).toContain('carol@example.org');
  });

  it('keeps each origin apart when SITE_URL is unset (canonical links follow the host)', async () => {
    const app = createApp(testConfig());
    const a = await request(app).get('/').set('Host', 'a.example');
    const b = await request(app).get('/').set('Host', 'b.example');
    expect(a.text).toContain('<link rel="canonical" href="http://a.example/"/>');
    expect(b.text).toContain('<link rel="canonical" href="http://b.example/"/>');
  });

  it('does not cache a 404', async () => {
    const app = createApp(testConfig());
    const res = await request(app).get('/missing');
    expect(res.status).toBe(404);
    expect((await request(app).get('/missing')).status).toBe(404);
  });

  it('holds a bounded number of pages, dropping the least recently used', () => {
    const cache = createPageCache(2);
    cache.set('a', { html: 'A', status: 200 });
    cache.set('b', { html: 'B', status: 200 });
    cache.get('a');
    cache.set('c', { html: 'C', status: 200 });
    expect(cache.size).toBe(2);
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.html).toBe('A');
  });
});
