// Refused domains (server/guard/domains.ts): throwaway addresses from the maintained list, and the
// operator's BLOCKED_EMAIL_DOMAINS and ALLOWED_EMAIL_DOMAINS. A refused address gets its message
// under the email field of either form, is neither stored nor sent on, and is counted.
import request from 'supertest';
import { createApp } from '../../../server/app';
import { ConfigError, loadConfig } from '../../../server/config';
import { domainRefusal, REFUSED_DOMAIN } from '../../../server/guard/domains';
import { createMetrics } from '../../../server/metrics';
import { openSqliteStore } from '../../../server/store';
import { startBackend } from '../../support/backend';
import { testConfig } from '../../support/config';

function site(env: Record<string, string> = {}) {
  const config = testConfig(env);
  const store = openSqliteStore(config);
  const metrics = createMetrics({ pending: { outbox: () => 0, mail: () => 0 } });
  const app = createApp(config, { store, metrics });
  /** signup_guard_refusals_total for one route and reason. */
  const refusals = async (route: string, reason: string) => {
    const text = await metrics.registry.metrics();
    const sample = `signup_guard_refusals_total{route="${route}",reason="${reason}"} `;
    const line = text.split('\n').find((l) => l.startsWith(sample));
    return Number(line?.slice(sample.length));
  };
  const join = (email: string) => request(app).post('/api/subscriptions').field('email', email);
  const stored = async () => (await store.signups.list()).map((row) => row.email).sort();
  return { app, store, join, stored, refusals };
}

/** The plain form's page as React escapes it (an apostrophe becomes &#x27;). */
const inHtml = (text: string) => text.replace(/'/g, '&#x27;');

describe('a throwaway address (DISPOSABLE_ADDRESSES=refuse, the default)', () => {
  it('gets 400 with the message and its field from the API, is not stored, and is counted', async () => {
    const s = site();
    const res = await s.join('someone@mailinator.com');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: REFUSED_DOMAIN, field: 'email', code: 'domain-refused' });
    expect(await s.stored()).toEqual([]);
    expect(await s.refusals('api', 'domain')).toBe(1);
    expect(await s.refusals('form', 'domain')).toBe(0);

    expect((await s.join('someone@example.org')).status).toBe(201);
    expect(await s.stored()).toEqual(['someone@example.org']);
    expect(await s.refusals('api', 'domain')).toBe(1);
  });

  it('gets the plain form back with the message under the email field, as typed', async () => {
    const s = site();
    const res = await request(s.app)
      .post('/?index')
      .field('email', 'someone@mailinator.com')
      .field('description', 'github.com/someone');
    expect(res.status).toBe(400);
    const input = /<input[^>]*name="email"[^>]*>/.exec(res.text)?.[0] ?? '';
    expect(input).toContain('aria-invalid="true"');
    expect(input).toContain('value="someone@mailinator.com"');
    const describedBy = /aria-describedby="([^"]+)"/.exec(input)?.[1];
    expect(res.text).toContain(
      `<p id="${describedBy}" class="field-message" role="alert">${inHtml(REFUSED_DOMAIN)}</p>`,
    );
    expect(res.text).toContain('github.com/someone</textarea>');
    expect(await s.stored()).toEqual([]);
    expect(await s.refusals('form', 'domain')).toBe(1);
  });

  it('is refused at any subdomain of a listed domain, and a wildcard one', async () => {
    const s = site();
    for (const email of ['a@mail.mailinator.com', 'a@x.y.mailinator.com', 'a@anyone.33mail.com'])
      expect([email, (await s.join(email)).status]).toEqual([email, 400]);
    // A name that only ends like a listed one is another domain.
    expect((await s.join('a@xmailinator.com')).status).toBe(201);
    expect(await s.stored()).toEqual(['a@xmailinator.com']);
    expect(await s.refusals('api', 'domain')).toBe(3);
  });

  it('is refused whatever the case, with a trailing dot, and in Unicode or punycode', () => {
    const refused = domainRefusal(testConfig());
    for (const email of [
      'A@MailInator.COM',
      'a@mailinator.com.',
      // Listed in Unicode: its punycode form is the same domain.
      'a@instágram.com',
      'a@xn--instgram-cza.com',
      'a@INSTÁGRAM.com',
    ])
      expect([email, refused(email)]).toEqual([email, REFUSED_DOMAIN]);
    expect(refused('a@example.org')).toBeUndefined();
    expect(refused('"odd@name"@example.org')).toBeUndefined();
  });

  it('is let in with DISPOSABLE_ADDRESSES=allow', async () => {
    const s = site({ DISPOSABLE_ADDRESSES: 'allow' });
    expect((await s.join('someone@mailinator.com')).status).toBe(201);
    expect(await s.stored()).toEqual(['someone@mailinator.com']);
    expect(await s.refusals('api', 'domain')).toBe(0);
  });

  it('never reaches the backend (BACKEND_URL)', async () => {
    const backend = await startBackend();
    try {
      const app = createApp(testConfig({ BACKEND_URL: backend.url }));
      const res = await request(app).post('/api/subscriptions').field('email', 'a@mailinator.com');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: REFUSED_DOMAIN, field: 'email', code: 'domain-refused' });
      expect(backend.received).toHaveLength(0);
      expect((await request(app).post('/api/subscriptions').field('email', 'a@b.co')).status).toBe(
        201,
      );
      expect(backend.received).toHaveLength(1);
    } finally {
      await backend.close();
    }
  });
});

describe('BLOCKED_EMAIL_DOMAINS', () => {
  it('refuses those domains and their subdomains, in any case or script', async () => {
    const s = site({ BLOCKED_EMAIL_DOMAINS: 'Example.NET., bücher.de' });
    for (const email of ['a@example.net', 'a@eu.EXAMPLE.net', 'a@BÜCHER.de', 'a@xn--bcher-kva.de'])
      expect([email, (await s.join(email)).body]).toEqual([
        email,
        { error: REFUSED_DOMAIN, field: 'email', code: 'domain-refused' },
      ]);
    expect((await s.join('a@example.org')).status).toBe(201);
    expect(await s.stored()).toEqual(['a@example.org']);
    expect(await s.refusals('api', 'domain')).toBe(4);
  });
});

describe('ALLOWED_EMAIL_DOMAINS', () => {
  it('lets in only those domains and their subdomains, and names them in the message', async () => {
    const s = site({ ALLOWED_EMAIL_DOMAINS: 'example.org,bücher.de' });
    expect((await s.join('a@example.org')).status).toBe(201);
    expect((await s.join('b@team.example.org')).status).toBe(201);
    expect((await s.join('c@xn--bcher-kva.de')).status).toBe(201);
    const refused = await s.join('d@example.net');
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error: 'Only addresses at example.org or bücher.de can join',
      field: 'email',
      code: 'domain-not-allowed',
      domains: ['example.org', 'bücher.de'],
    });
    expect(await s.stored()).toEqual(['a@example.org', 'b@team.example.org', 'c@xn--bcher-kva.de']);
    expect(await s.refusals('api', 'domain')).toBe(1);
  });

  it('says so without naming a long list', () => {
    const refused = domainRefusal(testConfig({ ALLOWED_EMAIL_DOMAINS: 'a.org,b.org,c.org,d.org' }));
    expect(refused('x@e.org')).toBe('Only addresses at invited domains can join');
    const three = domainRefusal(testConfig({ ALLOWED_EMAIL_DOMAINS: 'a.org,b.org,c.org' }));
    expect(three('x@e.org')).toBe('Only addresses at a.org, b.org or c.org can join');
  });

  it('is overruled by a blocked subdomain, and overrules the throwaway list', () => {
    const refused = domainRefusal(
      testConfig({
        ALLOWED_EMAIL_DOMAINS: 'example.org,mailinator.com',
        BLOCKED_EMAIL_DOMAINS: 'guests.example.org',
      }),
    );
    expect(refused('a@guests.example.org')).toBe(REFUSED_DOMAIN);
    expect(refused('a@example.org')).toBeUndefined();
    // The operator's own word over the maintained list.
    expect(refused('a@mailinator.com')).toBeUndefined();
  });
});

describe('the settings', () => {
  it('keep the domains in lower-case ASCII without a trailing dot', () => {
    const config = testConfig({
      BLOCKED_EMAIL_DOMAINS: ' Example.COM. ,,bücher.de',
      ALLOWED_EMAIL_DOMAINS: 'ÉCOLE.fr',
    });
    expect(config.blockedEmailDomains).toEqual(['example.com', 'xn--bcher-kva.de']);
    expect(config.allowedEmailDomains).toEqual(['xn--cole-9oa.fr']);
    expect(config.disposableAddresses).toBe('refuse');
  });

  it.each([
    ['BLOCKED_EMAIL_DOMAINS', 'someone@example.com'],
    ['BLOCKED_EMAIL_DOMAINS', '@example.com'],
    ['ALLOWED_EMAIL_DOMAINS', 'example.org, *.example.com'],
    ['ALLOWED_EMAIL_DOMAINS', 'exa mple.org'],
    ['ALLOWED_EMAIL_DOMAINS', 'https://example.org'],
  ])('stop the start on %s=%s, naming the variable and the item', (name, value) => {
    const load = () => loadConfig({ [name]: value });
    expect(load).toThrow(ConfigError);
    expect(load).toThrow(new RegExp(`${name}: not a domain such as example\\.com: `));
  });

  it('stop the start on a DISPOSABLE_ADDRESSES that is neither refuse nor allow', () => {
    expect(() => loadConfig({ DISPOSABLE_ADDRESSES: 'off' })).toThrow(/DISPOSABLE_ADDRESSES: /);
  });
});
