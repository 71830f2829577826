// The built server (dist/, as `npm start` and the image run it) with every provider's route on:
// one payload of each provider's, signed as the provider signs, changes the list, and /metrics
// counts it. SNS's certificate host cannot be reached from here, so a preload answers its fetches
// (scripts/lib/bounces/sns-host-stand-in.cjs); everything else is the site as shipped.
import fs from 'node:fs';
import path from 'node:path';
import { releasePort, reservePort } from '../../../scripts/lib/launch/ports';
import { startBuiltServer, type BuiltServer } from '../../../scripts/lib/launch/server';
import type { BounceProvider } from '../../../server/bounces/notices';
import { tempDataDir } from '../../support/config';
import * as mailgun from '../../../scripts/lib/bounces/mailgun';
import * as postmark from '../../../scripts/lib/bounces/postmark';
import * as resend from '../../../scripts/lib/bounces/resend';
import * as sendgrid from '../../../scripts/lib/bounces/sendgrid';
import * as ses from '../../../scripts/lib/bounces/ses';

const POSTMARK_AUTH = 'orgnote:Jx7pQ2vLr9sT4wZk';
const MAILGUN_KEY = 'key-3ax6xnjp29jd6fds4gc373sgvjxteol0';
const STAND_IN = path.resolve(__dirname, '../../../scripts/lib/bounces/sns-host-stand-in.cjs');

describe('the built server with every provider on', () => {
  const metricsPort = reservePort(30_000, 32_000);
  const signer = ses.snsSigner();
  const keys = sendgrid.sendgridKeys();
  const resendSecret = resend.newSecret();
  const folder = tempDataDir();
  const visits = path.join(folder, 'sns-visits');
  let server: BuiltServer;

  beforeAll(async () => {
    fs.writeFileSync(path.join(folder, 'sns.pem'), signer.certificate);
    fs.writeFileSync(visits, '');
    fs.writeFileSync(path.join(folder, 'mailgun-key'), `${MAILGUN_KEY}\n`);
    server = await startBuiltServer({
      nodeArgs: ['--require', STAND_IN],
      env: {
        LOG_LEVEL: 'info',
        SIGNUP_RATE_LIMIT: '0',
        METRICS_PORT: String(metricsPort),
        BOUNCE_SES_TOPIC_ARNS: ses.SES_TOPIC,
        BOUNCE_POSTMARK_AUTH: POSTMARK_AUTH,
        BOUNCE_SENDGRID_PUBLIC_KEY: keys.publicKey,
        // A secret from a file, as the Compose kit's Docker secrets give it.
        BOUNCE_MAILGUN_SIGNING_KEY_FILE: path.join(folder, 'mailgun-key'),
        BOUNCE_RESEND_SECRET: resendSecret,
        SNS_STAND_IN_CERTIFICATE: path.join(folder, 'sns.pem'),
        SNS_STAND_IN_VISITS: visits,
      },
    });
  });
  afterAll(async () => {
    await server?.stop();
    releasePort(metricsPort);
    fs.rmSync(folder, { recursive: true, force: true });
  });

  const post = (
    provider: BounceProvider,
    sent: { headers: Record<string, string>; body: Buffer },
  ) =>
    fetch(`${server.url}/bounces/${provider}`, {
      method: 'POST',
      headers: sent.headers,
      body: new Uint8Array(sent.body),
    });
  const metrics = async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();

  it('applies a bounce from each provider, confirms the SNS subscription, and counts them', async () => {
    const people = ['ses', 'postmark', 'sendgrid', 'mailgun', 'resend', 'complains'].map(
      (name) => `${name}@example.org`,
    );
    for (const email of people) {
      const res = await fetch(`${server.url}/api/subscriptions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email, description: '' }),
      });
      expect(res.status).toBe(201);
    }

    const subscription = ses.snsConfirmation('SubscriptionConfirmation', {
      topicArn: ses.SES_TOPIC,
    });
    expect((await post('ses', ses.signed(subscription, signer, { version: 2 }))).status).toBe(200);
    expect(fs.readFileSync(visits, 'utf8')).toContain('Action=ConfirmSubscription');

    const sent: [BounceProvider, { headers: Record<string, string>; body: Buffer }][] = [
      ['ses', ses.signed(ses.snsNotification(ses.sesBounce({ emails: [people[0]] })), signer)],
      ['postmark', postmark.signed(postmark.bouncePayload({ email: people[1] }), POSTMARK_AUTH)],
      [
        'sendgrid',
        sendgrid.signed([sendgrid.bounceEvent({ email: people[2], id: 'sg-1' })], keys.privateKey, {
          at: Date.now(),
        }),
      ],
      [
        'mailgun',
        mailgun.signed(
          mailgun.failedEvent({ email: people[3], severity: 'permanent' }),
          MAILGUN_KEY,
        ),
      ],
      [
        'resend',
        resend.signed(
          resend.bouncedEvent({ to: people[4], type: 'Permanent', subType: 'General' }),
          resendSecret,
        ),
      ],
      [
        'ses',
        ses.signed(
          ses.snsNotification(ses.sesComplaint({ emails: [people[5]] }), { messageId: 'c-1' }),
          signer,
          { version: 2 },
        ),
      ],
    ];
    for (const [provider, request] of sent)
      expect((await post(provider, request)).status).toBe(200);

    const text = await metrics();
    for (const provider of ['ses', 'postmark', 'sendgrid', 'mailgun', 'resend'])
      expect(text).toContain(`bounces_total{provider="${provider}",kind="permanent"} 1`);
    expect(text).toContain('bounces_total{provider="ses",kind="complaint"} 1');
    expect(text).toContain('address_events_total{event="undeliverable"} 5');
    expect(text).toContain('address_events_total{event="left"} 1');
    // The certificate was fetched once, and kept.
    expect(fs.readFileSync(visits, 'utf8').match(/\.pem/g)).toHaveLength(1);
    // Nobody's address reached the log.
    for (const email of people) expect(server.output()).not.toContain(email);
  });
});
