// The honeypot: a submission that fills it gets the normal answer, is neither stored nor
// forwarded, and is counted in the log.
import request from 'supertest';
import { createApp } from '../../../server/app';
import { openSqliteStore } from '../../../server/store';
import { HONEYPOT_FIELD } from '../../../shared/form-checks';
import { startBackend } from '../../support/backend';
import { capturingLogger, testConfig } from '../../support/config';

describe('honeypot', () => {
  it('answers the API like a real signup but stores nothing', async () => {
    const config = testConfig();
    const store = openSqliteStore(config);
    const { logger, lines } = capturingLogger();
    const app = createApp(config, { store, logger });
    const bot = await request(app)
      .post('/api/subscriptions')
      .field('email', 'bot@example.org')
      .field(HONEYPOT_FIELD, 'http://spam.example');
    const human = await request(app)
      .post('/api/subscriptions')
      .field('email', 'human@example.org')
      .field(HONEYPOT_FIELD, '');
    expect([bot.status, bot.body]).toEqual([201, { email: 'bot@example.org' }]);
    expect([human.status, human.body]).toEqual([201, { email: 'human@example.org' }]);
    expect((await store.signups.list()).map((r) => r.email)).toEqual(['human@example.org']);
    expect(lines.filter((l) => l.includes('"event":"honeypot"'))).toHaveLength(1);
    expect(lines.join('\n')).not.toContain('spam.example');
  });

  it('redirects the native form to the joined view but stores nothing', async () => {
    const config = testConfig();
    const store = openSqliteStore(config);
    const app = createApp(config, { store });
    const res = await request(app)
      .post('/?index')
      .field('email', 'bot@example.org')
      .field('description', 'hi')
      .field(HONEYPOT_FIELD, 'x');
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe('/?joined');
    expect(await store.signups.count()).toBe(0);
  });

  it('never forwards a honeypot submission to the backend', async () => {
    const backend = await startBackend();
    try {
      const app = createApp(testConfig({ BACKEND_URL: backend.url }));
      const res = await request(app)
        .post('/api/subscriptions')
        .send({ email: 'bot@example.org', [HONEYPOT_FIELD]: 'filled' });
      expect(res.status).toBe(201);
      expect(backend.received).toHaveLength(0);
    } finally {
      await backend.close();
    }
  });

  it('is in the form, hidden from people, assistive technology and the tab order', async () => {
    const { text } = await request(createApp(testConfig())).get('/');
    const block = text.match(/<div class="honeypot" aria-hidden="true">.*?<\/div>/)?.[0] ?? '';
    const input = block.match(/<input[^>]*>/)?.[0] ?? '';
    expect(input).toContain(`name="${HONEYPOT_FIELD}"`);
    expect(input).toContain('tabindex="-1"');
    expect(input).toContain('autoComplete="off"');
    expect(input).toContain('value=""');
  });
});
