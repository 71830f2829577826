// SES through SNS, read by the endpoint as POST /bounces/ses would: messages built from AWS's
// documentation and signed as SNS signs them (SignatureVersion 1 and 2) with a certificate the
// test makes, served by a stand-in for the SNS host that counts what it is asked for. Both SES
// formats and every kind they report; forgeries, a topic not allowed, certificates anywhere but
// on an SNS host over https (never fetched), a SubscriptionConfirmation confirmed once, and the
// certificate cache.
import { Refused, Unreadable, type ProviderRequest } from '../../../server/bounces/notices';
import { fetchHttpsText, sesEndpoint } from '../../../server/bounces/ses';
import {
  fakeSnsHost,
  SES_OTHER_KINDS,
  SES_TOPIC,
  sesBounce,
  sesComplaint,
  sesOther,
  signed,
  signedEnvelope,
  SNS_CERT_URL,
  snsConfirmation,
  snsNotification,
  snsRequest,
  snsSigner,
  subscribeUrl,
  type FakeSnsHost,
  type SnsSigner,
} from '../../../scripts/lib/bounces/ses';
import { refusalOf } from '../../support/bounce-refusal';

const NOW = Date.parse('2026-03-01T12:00:05.000Z');
const OTHER_TOPIC = 'arn:aws:sns:us-east-1:123456789012:someone-elses';

let signer: SnsSigner;
let stranger: SnsSigner;
beforeAll(() => {
  signer = snsSigner();
  stranger = snsSigner();
});

let host: FakeSnsHost;
beforeEach(() => {
  host = fakeSnsHost(signer.certificate);
});

const endpoint = (topicArns: readonly string[] = [SES_TOPIC]) =>
  sesEndpoint({ topicArns, fetchText: host.fetchText });

const read = (request: ProviderRequest) => endpoint().read(request, NOW);

/** The read's refusal, or a failure of the test when it was not refused. */
const refusal = refusalOf;

describe('signatures', () => {
  it.each([1, 2] as const)('accepts SignatureVersion %i', async (version) => {
    const request = signed(
      snsNotification(sesBounce({ emails: ['ann@example.org'] }), { messageId: 'msg-1' }),
      signer,
      { version },
    );
    expect(JSON.parse(request.body.toString()).SignatureVersion).toBe(String(version));

    await expect(read(request)).resolves.toEqual({
      notices: [
        {
          id: 'msg-1/0',
          email: 'ann@example.org',
          kind: 'permanent',
          detail: 'Permanent/General 5.1.1',
        },
      ],
    });
    expect(host.fetched).toEqual([SNS_CERT_URL]);
  });

  it('signs the Subject when the notification has one', async () => {
    const envelope = snsNotification(sesBounce({ emails: ['ann@example.org'] }), {
      subject: 'Amazon SES Email Event Notification',
    });
    const good = signedEnvelope(envelope, signer, { version: 2 });
    await expect(read(snsRequest(good))).resolves.toMatchObject({
      notices: [{ kind: 'permanent' }],
    });

    const otherSubject = { ...good, Subject: 'Something else' };
    expect((await refusal(read(snsRequest(otherSubject)))).reason).toBe('signature');
    const noSubject = { ...good };
    delete noSubject.Subject;
    expect((await refusal(read(snsRequest(noSubject)))).reason).toBe('signature');
  });

  it('refuses a message changed after signing', async () => {
    const good = signedEnvelope(
      snsNotification(sesBounce({ emails: ['ann@example.org'] })),
      signer,
    );
    const changes: Array<Record<string, string>> = [
      { Message: JSON.stringify(sesBounce({ emails: ['bob@example.org'] })) },
      { MessageId: 'another-id' },
      { Timestamp: '2026-03-02T12:00:01.000Z' },
      { Type: 'SubscriptionConfirmation', SubscribeURL: subscribeUrl(SES_TOPIC, 't'), Token: 't' },
      // A SHA-1 signature presented as SHA-256.
      { SignatureVersion: '2' },
    ];
    for (const change of changes) {
      const refused = await refusal(read(snsRequest({ ...good, ...change })));
      expect(refused.reason).toBe('signature');
    }
  });

  it('refuses a signature made with another key', async () => {
    const forged = signed(snsNotification(sesBounce({ emails: ['ann@example.org'] })), stranger);
    expect((await refusal(read(forged))).reason).toBe('signature');
    const garbage = signedEnvelope(
      snsNotification(sesBounce({ emails: ['a@example.org'] })),
      signer,
    );
    const notBase64 = snsRequest({ ...garbage, Signature: 'not a signature' });
    expect((await refusal(read(notBase64))).reason).toBe('signature');
  });

  it('refuses a SignatureVersion other than 1 or 2 without fetching anything', async () => {
    const good = signedEnvelope(
      snsNotification(sesBounce({ emails: ['ann@example.org'] })),
      signer,
    );
    for (const version of ['3', '0', '', 'constructor'])
      expect((await refusal(read(snsRequest({ ...good, SignatureVersion: version })))).reason).toBe(
        'signature',
      );
    expect(host.fetched).toEqual([]);
  });
});

describe('topics', () => {
  it('refuses a topic not allowed before fetching the certificate', async () => {
    const request = signed(
      snsNotification(sesBounce({ emails: ['ann@example.org'] }), { topicArn: OTHER_TOPIC }),
      signer,
    );
    const refused = await refusal(read(request));
    expect(refused.reason).toBe('topic');
    expect(host.fetched).toEqual([]);
  });

  it('accepts each topic allowed', async () => {
    const both = endpoint([SES_TOPIC, OTHER_TOPIC]);
    for (const topicArn of [SES_TOPIC, OTHER_TOPIC]) {
      const request = signed(
        snsNotification(sesBounce({ emails: ['ann@example.org'] }), { topicArn }),
        signer,
      );
      await expect(both.read(request, NOW)).resolves.toMatchObject({
        notices: [{ kind: 'permanent' }],
      });
    }
  });
});

describe('the signing certificate', () => {
  it.each([
    ['over http', 'http://sns.us-east-1.amazonaws.com/SimpleNotificationService-1.pem'],
    [
      'on a host that only begins like SNS',
      'https://sns.us-east-1.amazonaws.com.evil.example/a.pem',
    ],
    ['on a port', 'https://sns.us-east-1.amazonaws.com:8443/SimpleNotificationService-1.pem'],
    [
      'with credentials',
      'https://user:pw@sns.us-east-1.amazonaws.com/SimpleNotificationService-1.pem',
    ],
    ['on another AWS host', 'https://s3.amazonaws.com/SimpleNotificationService-1.pem'],
    ['on SNS without a region', 'https://sns.amazonaws.com/SimpleNotificationService-1.pem'],
    ['on a region of .com.cn outside China', 'https://sns.us-east-1.amazonaws.com.cn/a.pem'],
    [
      'on another host naming SNS in its path',
      'https://evil.example/sns.us-east-1.amazonaws.com/a.pem',
    ],
    ['not a .pem', 'https://sns.us-east-1.amazonaws.com/?Action=Anything'],
    ['not a URL', 'sns.us-east-1.amazonaws.com/SimpleNotificationService-1.pem'],
  ])('is refused %s, and not fetched', async (_, certUrl) => {
    const request = signed(snsNotification(sesBounce({ emails: ['ann@example.org'] })), signer, {
      certUrl,
    });
    expect((await refusal(read(request))).reason).toBe('signature');
    expect(host.fetched).toEqual([]);
  });

  it('is fetched from a China region SNS host', async () => {
    const certUrl = 'https://sns.cn-north-1.amazonaws.com.cn/SimpleNotificationService-1.pem';
    const request = signed(snsNotification(sesBounce({ emails: ['ann@example.org'] })), signer, {
      certUrl,
    });
    await expect(read(request)).resolves.toMatchObject({ notices: [{ kind: 'permanent' }] });
    expect(host.fetched).toEqual([certUrl]);
  });

  it('is fetched once for the messages that name it, even arriving together', async () => {
    const ses = endpoint();
    const message = (id: string) =>
      signed(
        snsNotification(sesBounce({ emails: ['ann@example.org'] }), { messageId: id }),
        signer,
      );
    await Promise.all([ses.read(message('a'), NOW), ses.read(message('b'), NOW)]);
    await ses.read(message('c'), NOW);
    expect(host.fetched).toEqual([SNS_CERT_URL]);
  });

  it('is kept for the 16 URLs used last', async () => {
    const ses = endpoint();
    const at = (n: number) =>
      `https://sns.us-east-1.amazonaws.com/SimpleNotificationService-${n}.pem`;
    const message = (n: number) =>
      signed(snsNotification(sesBounce({ emails: ['ann@example.org'] })), signer, {
        certUrl: at(n),
      });
    for (let n = 0; n < 16; n++) await ses.read(message(n), NOW);
    await ses.read(message(0), NOW); // still kept, and now the one used last
    expect(host.fetched).toHaveLength(16);
    await ses.read(message(16), NOW); // forgets 1, the least recently used
    await ses.read(message(0), NOW);
    expect(host.fetched).toHaveLength(17);
    await ses.read(message(1), NOW);
    expect(host.fetched).toHaveLength(18);
    expect(host.fetched.at(-1)).toBe(at(1));
  });

  it('failing to arrive is an error to retry, not a refusal, and is fetched again', async () => {
    let answers = [Promise.reject(new Error('ETIMEDOUT')), Promise.resolve('not a certificate')];
    const calls: string[] = [];
    const ses = sesEndpoint({
      topicArns: [SES_TOPIC],
      fetchText: (url) => {
        calls.push(url.href);
        const [next, ...rest] = answers;
        answers = rest;
        return next ?? Promise.resolve(signer.certificate);
      },
    });
    const request = signed(snsNotification(sesBounce({ emails: ['ann@example.org'] })), signer);

    for (let attempt = 0; attempt < 2; attempt++) {
      const error = await ses.read(request, NOW).catch((thrown: unknown) => thrown);
      expect(error).toBeInstanceOf(Error);
      expect(error).not.toBeInstanceOf(Refused);
      expect(error).not.toBeInstanceOf(Unreadable);
    }
    await expect(ses.read(request, NOW)).resolves.toMatchObject({
      notices: [{ kind: 'permanent' }],
    });
    expect(calls).toEqual([SNS_CERT_URL, SNS_CERT_URL, SNS_CERT_URL]);
  });

  it('is fetched by default over https only', async () => {
    await expect(fetchHttpsText(new URL('http://127.0.0.1:9/a.pem'))).rejects.toThrow('only https');
  });
});

describe('subscriptions', () => {
  it('confirms a SubscriptionConfirmation for an allowed topic by visiting its SubscribeURL once', async () => {
    const envelope = snsConfirmation('SubscriptionConfirmation', { token: 'tok123' });
    const request = signed(envelope, signer, { version: 2 });
    expect(request.headers['x-amz-sns-message-type']).toBe('SubscriptionConfirmation');

    await expect(read(request)).resolves.toEqual({ notices: [] });
    expect(host.fetched).toEqual([SNS_CERT_URL, subscribeUrl(SES_TOPIC, 'tok123')]);
  });

  it('does not confirm a subscription to another topic', async () => {
    const request = signed(
      snsConfirmation('SubscriptionConfirmation', { topicArn: OTHER_TOPIC }),
      signer,
    );
    expect((await refusal(read(request))).reason).toBe('topic');
    expect(host.fetched).toEqual([]);
  });

  it('does not visit a SubscribeURL off SNS, nor one changed after signing', async () => {
    const elsewhere = signed(
      snsConfirmation('SubscriptionConfirmation', {
        url: 'https://evil.example/?Action=ConfirmSubscription',
      }),
      signer,
    );
    expect((await refusal(read(elsewhere))).reason).toBe('signature');
    expect(host.fetched).toEqual([]);

    const good = signedEnvelope(
      snsConfirmation('SubscriptionConfirmation', { token: 'a' }),
      signer,
    );
    const changed = snsRequest({ ...good, SubscribeURL: subscribeUrl(SES_TOPIC, 'b') });
    expect((await refusal(read(changed))).reason).toBe('signature');
    expect(host.fetched).toEqual([SNS_CERT_URL]);
  });

  it('reads an UnsubscribeConfirmation, verified, as nothing to do', async () => {
    const request = signed(snsConfirmation('UnsubscribeConfirmation'), signer);
    await expect(read(request)).resolves.toEqual({ notices: [] });
    expect(host.fetched).toEqual([SNS_CERT_URL]);

    const changed = snsRequest({ ...JSON.parse(request.body.toString()), Token: 'other' });
    expect((await refusal(read(changed))).reason).toBe('signature');
  });
});

describe.each(['notification', 'event'] as const)('SES %s format', (format) => {
  const post = (message: object, messageId = 'msg-7') =>
    read(signed(snsNotification(message, { messageId }), signer, { version: 2 }));

  it.each([
    ['Permanent', 'General', 'permanent'],
    ['Permanent', 'NoEmail', 'permanent'],
    ['Permanent', 'OnAccountSuppressionList', 'permanent'],
    ['Transient', 'MailboxFull', 'transient'],
    ['Transient', 'General', 'transient'],
    ['Transient', 'MessageTooLarge', 'ignored'],
    ['Transient', 'ContentRejected', 'ignored'],
    ['Transient', 'AttachmentRejected', 'ignored'],
    ['Undetermined', 'Undetermined', 'transient'],
  ])('reads a %s/%s bounce as %s', async (bounceType, bounceSubType, kind) => {
    const status = bounceType === 'Permanent' ? '5.1.1' : '4.2.2';
    const { notices } = await post(
      sesBounce({ emails: ['ann@example.org'], format, bounceType, bounceSubType, status }),
    );
    expect(notices).toEqual([
      {
        id: 'msg-7/0',
        email: 'ann@example.org',
        kind,
        detail: `${bounceType}/${bounceSubType} ${status}`,
      },
    ]);
  });

  it('gives each bounced recipient its own notice, and never the diagnostic text', async () => {
    const emails = ['ann@example.org', 'bob@example.net', 'cy@example.com'];
    const { notices } = await post(sesBounce({ emails, format }), 'msg-9');
    expect(notices).toEqual(
      emails.map((email, index) => ({
        id: `msg-9/${index}`,
        email,
        kind: 'permanent',
        detail: 'Permanent/General 5.1.1',
      })),
    );
    for (const notice of notices) expect(notice.detail).not.toMatch(/@|smtp|550/);
  });

  it('ignores a bounceType SES does not document', async () => {
    const { notices } = await post(
      sesBounce({ emails: ['ann@example.org'], format, bounceType: 'constructor' }),
    );
    expect(notices).toEqual([
      {
        id: 'msg-7/0',
        email: 'ann@example.org',
        kind: 'ignored',
        detail: 'constructor/General 5.1.1',
      },
    ]);
  });

  it('leaves out a status that is not an enhanced status code', async () => {
    const { notices } = await post(
      sesBounce({ emails: ['ann@example.org'], format, status: '5.1.1 <ann@example.org>' }),
    );
    expect(notices[0].detail).toBe('Permanent/General');
    const none = await post(sesBounce({ emails: ['ann@example.org'], format, status: '' }));
    expect(none.notices[0].detail).toBe('Permanent/General');
  });

  it.each([
    ['abuse', 'complaint', 'complaint/abuse'],
    ['fraud', 'complaint', 'complaint/fraud'],
    ['virus', 'complaint', 'complaint/virus'],
    ['other', 'complaint', 'complaint/other'],
    ['auth-failure', 'complaint', 'complaint/auth-failure'],
    [null, 'complaint', 'complaint'],
    ['not-spam', 'ignored', 'complaint/not-spam'],
  ])('reads a complaint of type %s as %s', async (feedbackType, kind, detail) => {
    const emails = ['ann@example.org', 'bob@example.net'];
    const { notices } = await post(sesComplaint({ emails, format, feedbackType }));
    expect(notices).toEqual(
      emails.map((email, index) => ({ id: `msg-7/${index}`, email, kind, detail })),
    );
  });

  it('reads a complaint about an address on the suppression list', async () => {
    const { notices } = await post(
      sesComplaint({ emails: ['ann@example.org'], format, subType: 'OnAccountSuppressionList' }),
    );
    expect(notices).toEqual([
      {
        id: 'msg-7/0',
        email: 'ann@example.org',
        kind: 'complaint',
        detail: 'complaint/abuse/OnAccountSuppressionList',
      },
    ]);
  });

  it.each(SES_OTHER_KINDS[format].map((type) => [type]))(
    'reads %s as nothing to record',
    async (type) => {
      await expect(post(sesOther(type, 'ann@example.org', format))).resolves.toEqual({
        notices: [],
      });
    },
  );
});

describe('unreadable messages', () => {
  const unreadable = async (request: ProviderRequest) =>
    expect(await read(request).catch((thrown: unknown) => thrown)).toBeInstanceOf(Unreadable);

  it('refuses to read a body that is not an SNS message', async () => {
    const good = signedEnvelope(
      snsNotification(sesBounce({ emails: ['ann@example.org'] })),
      signer,
    );
    await unreadable({ headers: {}, body: Buffer.from('Type=Notification') });
    await unreadable({ headers: {}, body: Buffer.from('[1, 2]') });
    for (const field of ['Signature', 'SigningCertURL', 'TopicArn', 'Message', 'MessageId']) {
      const missing = { ...good };
      delete missing[field];
      await unreadable(snsRequest(missing));
    }
    await unreadable(snsRequest({ ...good, Type: 'Something' }));
    await unreadable(snsRequest({ ...good, Type: 'constructor' }));
    const confirmation = signedEnvelope(snsConfirmation(), signer);
    delete confirmation.SubscribeURL;
    await unreadable(snsRequest(confirmation));
    expect(host.fetched).toEqual([]);
  });

  it('refuses to read a verified Message that is not SES’s', async () => {
    await unreadable(signed(snsNotification('plain text, not JSON'), signer));
    await unreadable(signed(snsNotification({ mail: {} }), signer));
    const noRecipients = sesBounce({ emails: [] });
    await unreadable(signed(snsNotification(noRecipients), signer));
    const noAddress = sesComplaint({ emails: ['ann@example.org'] });
    noAddress.complaint.complainedRecipients = [{} as { emailAddress: string }];
    await unreadable(signed(snsNotification(noAddress), signer));
  });
});
