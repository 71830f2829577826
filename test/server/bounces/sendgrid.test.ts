// SendGrid's endpoint read directly, with the events of SendGrid's Event Webhook reference signed
// as the Signed Event Webhook signs them: each kind maps as docs/operating.md's table says; a
// tampered body, another key, a missing header and a timestamp more than 5 minutes away are
// refused; SendGrid's own library (@sendgrid/eventwebhook) accepts what the test signs and
// rejects it tampered, and the endpoint accepts deliveries SendGrid itself signed (its
// library's fixtures).
import { generateKeyPairSync } from 'node:crypto';
import { EventWebhook } from '@sendgrid/eventwebhook';
import { sendgridEndpoint } from '../../../server/bounces/sendgrid';
import { Unreadable, type ProviderRequest } from '../../../server/bounces/notices';
import {
  bounceEvent,
  droppedEvent,
  otherEvent,
  sendgridBody,
  sendgridKeys,
  sendgridSignature,
  signed,
  spamreportEvent,
} from '../../../scripts/lib/bounces/sendgrid';
import { refusalOf } from '../../support/bounce-refusal';

const NOW = Date.parse('2026-03-01T12:00:30Z');
const keys = sendgridKeys();
const endpoint = sendgridEndpoint({ publicKey: keys.publicKey });

/** The request SendGrid would send now for these events. */
const delivery = (events: Parameters<typeof signed>[0], at = NOW) =>
  signed(events, keys.privateKey, { at });

/** What read() refused the request with (it fails the test when read() accepts it). */
const refusal = (request: ProviderRequest, now = NOW) => refusalOf(endpoint.read(request, now));

/** One byte of the body changed (a digit of the first timestamp). */
function tampered(body: Buffer): Buffer {
  const copy = Buffer.from(body);
  const at = copy.indexOf('"timestamp":') + '"timestamp":'.length;
  copy[at] = copy[at] === 0x31 ? 0x32 : 0x31;
  return copy;
}

describe("SendGrid's endpoint", () => {
  it('reads a bounce as permanent and a blocked bounce as transient, with status and classification', async () => {
    const request = delivery([
      bounceEvent({ email: 'Ann@Example.org', id: 'ev-1', status: '5.1.1' }),
      bounceEvent({
        email: 'bea@example.org',
        id: 'ev-2',
        type: 'blocked',
        status: '4.7.1',
        classification: 'Reputation',
        reason: '421 4.7.1 Try again later',
      }),
    ]);
    expect(await endpoint.read(request, NOW)).toEqual({
      notices: [
        {
          id: 'ev-1',
          email: 'Ann@Example.org',
          kind: 'permanent',
          detail: 'bounce 5.1.1 (Invalid Address)',
        },
        {
          id: 'ev-2',
          email: 'bea@example.org',
          kind: 'transient',
          detail: 'blocked 4.7.1 (Reputation)',
        },
      ],
    });
  });

  it.each([
    ['Bounced Address', 'permanent', 'dropped: Bounced Address'],
    ['Invalid', 'permanent', 'dropped: Invalid'],
    ['Invalid Address', 'permanent', 'dropped: Invalid Address'],
    ['bounced address', 'permanent', 'dropped: Bounced Address'],
    ['Unsubscribed Address', 'ignored', 'dropped: Unsubscribed Address'],
    ['Spam Reporting Address', 'ignored', 'dropped: Spam Reporting Address'],
    ['Spam Content', 'ignored', 'dropped: Spam Content'],
    ['Invalid SMTPAPI header', 'ignored', 'dropped: Invalid SMTPAPI header'],
    ['Recipient List over Package Quota', 'ignored', 'dropped: Recipient List over Package Quota'],
    ['A reason not on the list', 'ignored', 'dropped: another reason'],
  ])('reads a drop for "%s" as %s', async (reason, kind, detail) => {
    const request = delivery([droppedEvent({ email: 'cy@example.org', id: 'ev-3', reason })]);
    expect(await endpoint.read(request, NOW)).toEqual({
      notices: [{ id: 'ev-3', email: 'cy@example.org', kind, detail }],
    });
  });

  it('reads a spam report as a complaint', async () => {
    const request = delivery([spamreportEvent({ email: 'dee@example.org', id: 'ev-4' })]);
    expect(await endpoint.read(request, NOW)).toEqual({
      notices: [{ id: 'ev-4', email: 'dee@example.org', kind: 'complaint', detail: 'spamreport' }],
    });
  });

  it('leaves out every other event, even one with no address', async () => {
    const others = ['processed', 'delivered', 'deferred', 'open', 'click', 'unsubscribe'].map(
      (event, n) => otherEvent({ email: 'eve@example.org', id: `other-${n}`, event }),
    );
    const accountEvent = {
      event: 'account_status_change',
      sg_event_id: 'MjEzNTg5OTcyOC10ZXJtaW5hdGUtMTcwNzg1MTUzMQ',
      timestamp: 1709142428,
      type: 'compliance_suspend',
    };
    const request = delivery([
      ...others,
      accountEvent,
      spamreportEvent({ email: 'eve@example.org', id: 'ev-5' }),
    ]);
    const { notices } = await endpoint.read(request, NOW);
    expect(notices.map(({ id }) => id)).toEqual(['ev-5']);
  });

  it('keeps only the status code of a bounce, never its text or a malformed status', async () => {
    const request = delivery([
      bounceEvent({
        email: 'fay@example.org',
        id: 'ev-6',
        status: '5.1.1 <fay@example.org>',
        reason: '550 5.1.1 <fay@example.org>: Recipient address rejected',
        classification: 'fay@example.org',
      }),
    ]);
    const { notices } = await endpoint.read(request, NOW);
    expect(notices[0].detail).toBe('bounce');
  });

  it('takes the verification key as PEM too', async () => {
    const fromPem = sendgridEndpoint({ publicKey: keys.publicKeyPem });
    const request = delivery([spamreportEvent({ email: 'gus@example.org', id: 'ev-7' })]);
    expect((await fromPem.read(request, NOW)).notices).toHaveLength(1);
  });

  it('refuses a tampered body, another key, a changed timestamp and a garbled signature', async () => {
    const good = delivery([bounceEvent({ email: 'hal@example.org', id: 'ev-8' })]);
    const other = sendgridKeys();
    const requests: ProviderRequest[] = [
      { ...good, body: tampered(good.body) },
      signed([bounceEvent({ email: 'hal@example.org', id: 'ev-8' })], other.privateKey, {
        at: NOW,
      }),
      {
        ...good,
        headers: {
          ...good.headers,
          'x-twilio-email-event-webhook-timestamp': String(Math.floor(NOW / 1000) - 1),
        },
      },
      {
        ...good,
        headers: { ...good.headers, 'x-twilio-email-event-webhook-signature': 'MEUCIQ==' },
      },
      { ...good, headers: { ...good.headers, 'x-twilio-email-event-webhook-timestamp': 'soon' } },
    ];
    for (const request of requests) expect((await refusal(request)).reason).toBe('signature');
  });

  it('refuses a delivery without either header', async () => {
    const good = delivery([bounceEvent({ email: 'ida@example.org', id: 'ev-9' })]);
    for (const name of [
      'x-twilio-email-event-webhook-signature',
      'x-twilio-email-event-webhook-timestamp',
    ]) {
      const headers = Object.fromEntries(
        Object.entries(good.headers).filter(([key]) => key !== name),
      );
      expect((await refusal({ headers, body: good.body })).reason).toBe('signature');
    }
  });

  it('refuses a timestamp more than 5 minutes from now either way, and takes one within', async () => {
    const events = [spamreportEvent({ email: 'jo@example.org', id: 'ev-10' })];
    for (const offset of [-5 * 60_000 - 1_000, 5 * 60_000 + 1_000])
      expect((await refusal(delivery(events, NOW + offset))).reason).toBe('stale');
    for (const offset of [-5 * 60_000 + 1_000, 5 * 60_000 - 1_000])
      expect((await endpoint.read(delivery(events, NOW + offset), NOW)).notices).toHaveLength(1);
  });

  it('checks the signature before it reads the body', async () => {
    const good = delivery([]);
    expect((await refusal({ ...good, body: Buffer.from('not json') })).reason).toBe('signature');
  });

  it('answers a signed body SendGrid would not send as unreadable', async () => {
    const { sg_event_id: _id, ...withoutId } = bounceEvent({ email: 'kit@example.org', id: 'x' });
    const { email: _email, ...withoutEmail } = bounceEvent({ email: 'kit@example.org', id: 'x' });
    const bodies = [
      Buffer.from('[{"event": "bounce",'),
      Buffer.from(JSON.stringify(spamreportEvent({ email: 'kit@example.org', id: 'ev-11' }))),
      sendgridBody([withoutId]),
      sendgridBody([withoutEmail]),
      Buffer.from('["bounce"]'),
    ];
    const timestamp = String(Math.floor(NOW / 1000));
    for (const body of bodies) {
      const request = {
        headers: {
          'x-twilio-email-event-webhook-signature': sendgridSignature(
            keys.privateKey,
            timestamp,
            body,
          ),
          'x-twilio-email-event-webhook-timestamp': timestamp,
        },
        body,
      };
      await expect(endpoint.read(request, NOW)).rejects.toBeInstanceOf(Unreadable);
    }
  });

  it('will not start with a key that is not an EC P-256 public key', () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;
    expect(() =>
      sendgridEndpoint({
        publicKey: rsa.export({ format: 'der', type: 'spki' }).toString('base64'),
      }),
    ).toThrow('not an EC P-256 key');
    expect(() => sendgridEndpoint({ publicKey: 'not a key' })).toThrow('not a public key');
  });
});

describe("SendGrid's own library", () => {
  const library = new EventWebhook();

  it('accepts what the test signs, and rejects it tampered', () => {
    const { headers, body } = delivery([
      bounceEvent({ email: 'lou@example.org', id: 'ev-12' }),
      droppedEvent({ email: 'max@example.org', id: 'ev-13', reason: 'Bounced Address' }),
    ]);
    const signature = headers['x-twilio-email-event-webhook-signature'];
    const timestamp = headers['x-twilio-email-event-webhook-timestamp'];
    for (const publicKey of [keys.publicKey, keys.publicKeyPem]) {
      const key = library.convertPublicKeyToECDSA(publicKey);
      expect(library.verifySignature(key, body, signature, timestamp)).toBe(true);
      expect(library.verifySignature(key, tampered(body), signature, timestamp)).toBe(false);
    }
  });
});

describe('deliveries SendGrid signed', () => {
  // @sendgrid/eventwebhook's own fixtures: a verification key, and two deliveries signed with
  // SendGrid's private half of it (bodies laid out as SendGrid posts them).
  const PUBLIC_KEY =
    'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE83T4O/n84iotIvIW4mdBgQ/7dAfSmpqIM8kF9mN1flpVKS3GRqe62gw+2fNNRaINXvVpiglSI8eNEc6wEA3F+g==';
  const SIGNATURE =
    'MEUCIGHQVtGj+Y3LkG9fLcxf3qfI10QysgDWmMOVmxG0u6ZUAiEAyBiXDWzM+uOe5W0JuG+luQAbPIqHh89M15TluLtEZtM=';
  const TIMESTAMP = '1600112502';
  const BODY = sendgridBody([
    {
      email: 'hello@world.com',
      event: 'dropped',
      reason: 'Bounced Address',
      sg_event_id: 'ZHJvcC0xMDk5NDkxOS1MUnpYbF9OSFN0T0doUTRrb2ZTbV9BLTA',
      sg_message_id: 'LRzXl_NHStOGhQ4kofSm_A.filterdrecv-p3mdw1-756b745b58-kmzbl-18-5F5FC76C-9.0',
      'smtp-id': '<LRzXl_NHStOGhQ4kofSm_A@ismtpd0039p1iad1.sendgrid.net>',
      timestamp: 1600112492,
    },
  ]);

  const MULTIPLE_KEY =
    'MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEQ4LIFtWztlsF7skFqOncjD1lun4H5w8XOhyOArHW9RcIx/FfEzx6cikC/yPfUvwaX/JScE7Fc9CJD2afQ9Ok3Q==';
  const MULTIPLE_SIGNATURE =
    'MEYCIQC/I4o6vCgqRYrTljjoVWB/GRWNtxeePlLMHr3x9ETeRQIhAIpV+03nREPTTHWSW0wIOA0EoMPdcNgXa70yCaqDJlu5';
  const MULTIPLE_TIMESTAMP = '1619651159';
  const MULTIPLE_BODY = sendgridBody([
    {
      email: 'invalid@gmail.com',
      event: 'processed',
      send_at: 0,
      sg_event_id: 'cHJvY2Vzc2VkLTE5OTQyMTEyLXFOd0JMZ1BRUWpXNkRKdktRd1NBYnctMA',
      sg_message_id: 'qNwBLgPQQjW6DJvKQwSAbw.filterdrecv-canary-547b64655b-cw6zx-1-6089EA4A-56.0',
      'smtp-id': '<qNwBLgPQQjW6DJvKQwSAbw@ismtpd0178p1mdw1.sendgrid.net>',
      timestamp: 1619651146,
    },
    {
      email: 'invalid@gmail.com',
      event: 'bounce',
      ip: '167.89.101.76',
      reason:
        '552 5.2.2 The email account that you tried to reach is over quota and inactive. Please direct the recipient to https://support.google.com/mail/?p=OverQuotaPerm c17si1130468pgv.34 - gsmtp',
      sg_event_id: 'Ym91bmNlLTAtMTk5NDIxMTItcU53QkxnUFFRalc2REp2S1F3U0Fidy0w',
      sg_message_id: 'qNwBLgPQQjW6DJvKQwSAbw.filterdrecv-canary-547b64655b-cw6zx-1-6089EA4A-56.0',
      'smtp-id': '<qNwBLgPQQjW6DJvKQwSAbw@ismtpd0178p1mdw1.sendgrid.net>',
      status: '5.2.2',
      timestamp: 1619651147,
      tls: 1,
      type: 'blocked',
    },
  ]);

  const request = (signature: string, timestamp: string, body: Buffer): ProviderRequest => ({
    headers: {
      'x-twilio-email-event-webhook-signature': signature,
      'x-twilio-email-event-webhook-timestamp': timestamp,
    },
    body,
  });

  it('are accepted, and read as the table says', async () => {
    const single = sendgridEndpoint({ publicKey: PUBLIC_KEY });
    expect(
      await single.read(request(SIGNATURE, TIMESTAMP, BODY), Number(TIMESTAMP) * 1000),
    ).toEqual({
      notices: [
        {
          id: 'ZHJvcC0xMDk5NDkxOS1MUnpYbF9OSFN0T0doUTRrb2ZTbV9BLTA',
          email: 'hello@world.com',
          kind: 'permanent',
          detail: 'dropped: Bounced Address',
        },
      ],
    });

    const multiple = sendgridEndpoint({ publicKey: MULTIPLE_KEY });
    const read = await multiple.read(
      request(MULTIPLE_SIGNATURE, MULTIPLE_TIMESTAMP, MULTIPLE_BODY),
      Number(MULTIPLE_TIMESTAMP) * 1000,
    );
    expect(read.notices).toEqual([
      {
        id: 'Ym91bmNlLTAtMTk5NDIxMTItcU53QkxnUFFRalc2REp2S1F3U0Fidy0w',
        email: 'invalid@gmail.com',
        kind: 'transient',
        detail: 'blocked 5.2.2',
      },
    ]);
  });

  it('are refused a day later, or tampered', async () => {
    const single = sendgridEndpoint({ publicKey: PUBLIC_KEY });
    const later = Number(TIMESTAMP) * 1000 + 86_400_000;
    await expect(single.read(request(SIGNATURE, TIMESTAMP, BODY), later)).rejects.toMatchObject({
      reason: 'stale',
    });
    await expect(
      single.read(request(SIGNATURE, TIMESTAMP, tampered(BODY)), Number(TIMESTAMP) * 1000),
    ).rejects.toMatchObject({ reason: 'signature' });
  });
});
