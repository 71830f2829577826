// POST /bounces/<provider> through the site's own handler (createApp, a real SQLite store in a temp
// folder): each provider's real payloads, signed as the provider signs (scripts/lib/bounces/),
// change the list as an operator expects; forgeries, stale timestamps, a wrong topic and replays
// get 401 and are counted; duplicates are applied once; an address not on the list leaves
// nothing; nothing reaches the log that names an address. SNS's certificate host is the one part
// stood in for (fakeSnsHost): it cannot be reached from here.
import request from 'supertest';
import { createApp } from '../../../server/app';
import type { BounceProvider } from '../../../server/bounces/notices';
import { createMetrics } from '../../../server/metrics';
import { openSqliteStore, type SqliteStore } from '../../../server/store';
import { capturingLogger, testConfig } from '../../support/config';
import * as mailgun from '../../../scripts/lib/bounces/mailgun';
import * as postmark from '../../../scripts/lib/bounces/postmark';
import * as resend from '../../../scripts/lib/bounces/resend';
import * as sendgrid from '../../../scripts/lib/bounces/sendgrid';
import * as ses from '../../../scripts/lib/bounces/ses';
import { countRows } from '../../support/stores';

const POSTMARK_AUTH = 'orgnote:Jx7pQ2vLr9sT4wZk';
const MAILGUN_KEY = 'key-3ax6xnjp29jd6fds4gc373sgvjxteol0';

type Sent = { headers: Record<string, string>; body: Buffer };

/** A site with every provider's route on, its store, its metrics and its log. */
function bounceSite(env: Record<string, string> = {}) {
  const signer = ses.snsSigner();
  const snsHost = ses.fakeSnsHost(signer.certificate);
  const sendgridKeys = sendgrid.sendgridKeys();
  const resendSecret = resend.newSecret();
  const config = testConfig({
    BOUNCE_SES_TOPIC_ARNS: ses.SES_TOPIC,
    BOUNCE_POSTMARK_AUTH: POSTMARK_AUTH,
    BOUNCE_SENDGRID_PUBLIC_KEY: sendgridKeys.publicKey,
    BOUNCE_MAILGUN_SIGNING_KEY: MAILGUN_KEY,
    BOUNCE_RESEND_SECRET: resendSecret,
    ...env,
  });
  const store: SqliteStore = openSqliteStore(config);
  const metrics = createMetrics({ pending: { outbox: () => 0, mail: () => 0 } });
  const { logger, lines } = capturingLogger();
  const app = createApp(config, { store, metrics, logger, bounceFetch: snsHost.fetchText });
  const post = (provider: BounceProvider, { headers, body }: Sent) =>
    // The bytes as the provider signed them (superagent would serialise a Buffer sent as JSON).
    request(app).post(`/bounces/${provider}`).set(headers).send(body.toString('utf8'));
  /** The request each provider sends for a permanent bounce of `email` (`id`: its own id). */
  const permanent: Record<BounceProvider, (email: string, id: string) => Sent> = {
    ses: (email, id) =>
      ses.signed(
        ses.snsNotification(ses.sesBounce({ emails: [email] }), { messageId: id }),
        signer,
      ),
    postmark: (email, id) =>
      postmark.signed(
        postmark.bouncePayload({ email, id: Number(id.replace(/\D/g, '')) || 1 }),
        POSTMARK_AUTH,
      ),
    sendgrid: (email, id) =>
      sendgrid.signed([sendgrid.bounceEvent({ email, id })], sendgridKeys.privateKey, {
        at: Date.now(),
      }),
    mailgun: (email, id) =>
      mailgun.signed(mailgun.failedEvent({ email, id, severity: 'permanent' }), MAILGUN_KEY),
    resend: (email, id) =>
      resend.signed(
        resend.bouncedEvent({ to: email, type: 'Permanent', subType: 'General' }),
        resendSecret,
        { id },
      ),
  };
  const complaint: Record<BounceProvider, (email: string) => Sent> = {
    ses: (email) =>
      ses.signed(
        ses.snsNotification(ses.sesComplaint({ emails: [email] }), { messageId: 'c-1' }),
        signer,
      ),
    postmark: (email) => postmark.signed(postmark.spamComplaintPayload({ email }), POSTMARK_AUTH),
    sendgrid: (email) =>
      sendgrid.signed(
        [sendgrid.spamreportEvent({ email, id: 'sg-c-1' })],
        sendgridKeys.privateKey,
        {
          at: Date.now(),
        },
      ),
    mailgun: (email) => mailgun.signed(mailgun.complainedEvent({ email }), MAILGUN_KEY),
    resend: (email) => resend.signed(resend.complainedEvent({ to: email }), resendSecret),
  };
  const metric = async (name: string, labels: string) => {
    const line = (await metrics.text())
      .split('\n')
      .find((each) => each.startsWith(`${name}{${labels}}`));
    return Number(line?.split(' ').pop());
  };
  return {
    app,
    store,
    post,
    permanent,
    complaint,
    metric,
    lines,
    signer,
    snsHost,
    sendgridKeys,
    resendSecret,
    config,
  };
}

const PROVIDERS: BounceProvider[] = ['ses', 'postmark', 'sendgrid', 'mailgun', 'resend'];

/** The state the console shows for an address. */
async function stateOf(store: SqliteStore, email: string) {
  return (await store.signups.list()).find((row) => row.email === email)?.state;
}

describe('POST /bounces/<provider>', () => {
  let site: ReturnType<typeof bounceSite>;
  beforeEach(async () => {
    site = bounceSite();
    for (const email of ['ann@example.org', 'bo@example.org'])
      await site.store.signups.add({ email, description: '' });
  });
  afterEach(() => site.store.close());

  it.each(PROVIDERS)(
    '%s: a permanent bounce makes the address undeliverable, once, and is counted',
    async (provider) => {
      const sent = site.permanent[provider]('ann@example.org', 'n-101');
      const first = await site.post(provider, sent);
      expect(first.status).toBe(200);
      expect(await stateOf(site.store, 'ann@example.org')).toBe('undeliverable');
      expect(await stateOf(site.store, 'bo@example.org')).toBe('waitlisted');
      const [row] = await site.store.signups.page({ limit: 1, order: 'oldest' });
      expect(row.undeliverable_by).toBe(provider);
      // The provider delivers it again: the same answer, nothing applied twice.
      const again = await site.post(provider, sent);
      expect(again.status).toBe(200);
      expect(await site.metric('bounces_total', `provider="${provider}",kind="permanent"`)).toBe(1);
      expect(await countRows(site.store, 'bounce_notices')).toBe(1);
      expect(site.lines.join('\n')).not.toContain('ann@example.org');
    },
  );

  it.each(PROVIDERS)('%s: a complaint is a leave, erased and suppressed', async (provider) => {
    const res = await site.post(provider, site.complaint[provider]('bo@example.org'));
    expect(res.status).toBe(200);
    expect(await stateOf(site.store, 'bo@example.org')).toBeUndefined();
    expect(await site.store.suppressions.has('bo@example.org')).toBe(true);
    expect(await site.metric('bounces_total', `provider="${provider}",kind="complaint"`)).toBe(1);
    expect(await site.metric('address_events_total', 'event="left"')).toBe(1);
    expect(site.lines.join('\n')).not.toContain('bo@example.org');
  });

  it.each(PROVIDERS)(
    '%s: an address not on the list gets the same 200, and nothing is stored',
    async (provider) => {
      const res = await site.post(provider, site.permanent[provider]('nobody@example.org', 'n-7'));
      expect(res.status).toBe(200);
      expect(await countRows(site.store, 'bounce_notices')).toBe(0);
      expect(await site.store.signups.count()).toBe(2);
    },
  );

  it.each(PROVIDERS)('%s: a body over 1 MB gets 413, and nothing changes', async (provider) => {
    const sent = site.permanent[provider]('ann@example.org', 'n-9');
    const big = { headers: sent.headers, body: Buffer.alloc(1024 * 1024 + 1, 0x20) };
    delete big.headers['content-length'];
    const res = await site.post(provider, big);
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ error: expect.any(String) });
    expect(await stateOf(site.store, 'ann@example.org')).toBe('waitlisted');
  });

  it('refuses forged and stale requests with 401, counts them by reason, and changes nothing', async () => {
    const forged: [BounceProvider, Sent, string][] = [];
    // Postmark: the wrong password.
    forged.push([
      'postmark',
      postmark.signed(
        postmark.bouncePayload({ email: 'ann@example.org' }),
        'orgnote:wrong-password',
      ),
      'credentials',
    ]);
    // SendGrid: signed by another key; and a signature 6 minutes old.
    forged.push([
      'sendgrid',
      sendgrid.signed(
        [sendgrid.bounceEvent({ email: 'ann@example.org', id: 'sg-1' })],
        sendgrid.sendgridKeys().privateKey,
        { at: Date.now() },
      ),
      'signature',
    ]);
    forged.push([
      'sendgrid',
      sendgrid.signed(
        [sendgrid.bounceEvent({ email: 'ann@example.org', id: 'sg-2' })],
        site.sendgridKeys.privateKey,
        { at: Date.now() - 6 * 60_000 },
      ),
      'stale',
    ]);
    // Mailgun: another key; and 6 minutes in the future.
    forged.push([
      'mailgun',
      mailgun.signed(
        mailgun.failedEvent({ email: 'ann@example.org', severity: 'permanent' }),
        'key-other',
      ),
      'signature',
    ]);
    forged.push([
      'mailgun',
      mailgun.signed(
        mailgun.failedEvent({ email: 'ann@example.org', severity: 'permanent' }),
        MAILGUN_KEY,
        { at: Date.now() + 6 * 60_000 },
      ),
      'stale',
    ]);
    // Resend: another secret; and an old timestamp.
    const bounced = resend.bouncedEvent({
      to: 'ann@example.org',
      type: 'Permanent',
      subType: 'General',
    });
    forged.push(['resend', resend.signed(bounced, resend.newSecret()), 'signature']);
    forged.push([
      'resend',
      resend.signed(bounced, site.resendSecret, { at: Date.now() - 6 * 60_000 }),
      'stale',
    ]);
    // SES: another signer's key; and a topic not allowed.
    forged.push([
      'ses',
      ses.signed(
        ses.snsNotification(ses.sesBounce({ emails: ['ann@example.org'] })),
        ses.snsSigner(),
      ),
      'signature',
    ]);
    forged.push([
      'ses',
      ses.signed(
        ses.snsNotification(ses.sesBounce({ emails: ['ann@example.org'] }), {
          topicArn: 'arn:aws:sns:us-east-1:999999999999:someone-else',
        }),
        site.signer,
      ),
      'topic',
    ]);
    for (const [provider, sent, reason] of forged) {
      const res = await site.post(provider, sent);
      expect({ provider, reason, status: res.status }).toEqual({ provider, reason, status: 401 });
      expect(res.body).toEqual({ error: expect.any(String) });
    }
    for (const [provider, , reason] of forged)
      expect(
        await site.metric('bounce_refusals_total', `provider="${provider}",reason="${reason}"`),
      ).toBeGreaterThanOrEqual(1);
    expect(await stateOf(site.store, 'ann@example.org')).toBe('waitlisted');
    expect(await countRows(site.store, 'bounce_notices')).toBe(0);
  });

  it('refuses a Mailgun token seen before with another event, and applies the same event once', async () => {
    const token = mailgun.newToken();
    const event = mailgun.failedEvent({ email: 'ann@example.org', severity: 'permanent' });
    const sent = mailgun.signed(event, MAILGUN_KEY, { token });
    expect((await site.post('mailgun', sent)).status).toBe(200);
    expect((await site.post('mailgun', sent)).status).toBe(200);
    const other = mailgun.failedEvent({ email: 'bo@example.org', severity: 'permanent' });
    const replayed = await site.post('mailgun', mailgun.signed(other, MAILGUN_KEY, { token }));
    expect(replayed.status).toBe(401);
    expect(await stateOf(site.store, 'bo@example.org')).toBe('waitlisted');
    expect(await site.metric('bounce_refusals_total', 'provider="mailgun",reason="replay"')).toBe(
      1,
    );
    expect(await site.metric('bounces_total', 'provider="mailgun",kind="permanent"')).toBe(1);
  });

  it('confirms an SNS subscription of an allowed topic by visiting its SubscribeURL once', async () => {
    const confirmation = ses.snsConfirmation('SubscriptionConfirmation', {
      topicArn: ses.SES_TOPIC,
    });
    const res = await site.post('ses', ses.signed(confirmation, site.signer));
    expect(res.status).toBe(200);
    const visits = site.snsHost.fetched.filter((url) => url.includes('ConfirmSubscription'));
    expect(visits).toHaveLength(1);
    // Another topic's subscription is refused and never confirmed.
    const foreign = ses.snsConfirmation('SubscriptionConfirmation', {
      topicArn: 'arn:aws:sns:us-east-1:999999999999:other',
    });
    expect((await site.post('ses', ses.signed(foreign, site.signer))).status).toBe(401);
    expect(site.snsHost.fetched.filter((url) => url.includes('ConfirmSubscription'))).toHaveLength(
      1,
    );
  });

  it('answers 400 for a verified body that is not what the provider sends, 405 for a GET', async () => {
    const notJson = { ...postmark.signed({}, POSTMARK_AUTH), body: Buffer.from('not json') };
    const res = await site.post('postmark', notJson);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: expect.any(String) });
    const get = await request(site.app).get('/bounces/postmark');
    expect(get.status).toBe(405);
    expect(get.headers.allow).toBe('POST');
  });
});

describe('POST /bounces/<provider> without its setting', () => {
  it('answers 404 for every provider, and for an unknown one', async () => {
    const config = testConfig();
    const store = openSqliteStore(config);
    try {
      const app = createApp(config, { store });
      for (const provider of [...PROVIDERS, 'brevo'])
        expect((await request(app).post(`/bounces/${provider}`).send('{}')).status).toBe(404);
    } finally {
      await store.close();
    }
  });

  it('turns on only the provider whose setting is there', async () => {
    const config = testConfig({ BOUNCE_POSTMARK_AUTH: POSTMARK_AUTH });
    const store = openSqliteStore(config);
    try {
      const app = createApp(config, { store });
      expect((await request(app).post('/bounces/ses').send('{}')).status).toBe(404);
      expect((await request(app).post('/bounces/postmark').send('{}')).status).toBe(401);
    } finally {
      await store.close();
    }
  });
});
