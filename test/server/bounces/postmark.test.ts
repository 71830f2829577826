// Postmark's endpoint read directly, with the records Postmark's documentation shows and the Basic
// credentials Postmark sends from the webhook's URL: every bounce type maps as docs/operating.md's
// table says, a spam complaint is a complaint, other record types give no notice, and a request
// without the right credentials is refused before its body is read.
import { postmarkEndpoint } from '../../../server/bounces/postmark';
import { Unreadable, type BounceNotice } from '../../../server/bounces/notices';
import {
  POSTMARK_BOUNCE_TYPES,
  bouncePayload,
  deliveryPayload,
  signed,
  spamComplaintPayload,
} from '../../../scripts/lib/bounces/postmark';
import { refusalOf } from '../../support/bounce-refusal';

const CREDENTIALS = 'postmark:Wq3-secret-7Zk';
const NOW = Date.parse('2026-03-01T12:00:30Z');
const endpoint = postmarkEndpoint({ credentials: CREDENTIALS });

/** The kinds of docs/operating.md's Postmark rows, one a bounce type. */
const EXPECTED: Record<string, BounceNotice['kind']> = {
  HardBounce: 'permanent',
  BadEmailAddress: 'permanent',
  ManuallyDeactivated: 'permanent',
  Transient: 'transient',
  SoftBounce: 'transient',
  DnsError: 'transient',
  Unknown: 'transient',
  SpamNotification: 'transient',
  Blocked: 'transient',
  SpamComplaint: 'complaint',
  Unsubscribe: 'complaint',
  AutoResponder: 'ignored',
  AddressChange: 'ignored',
  Subscribe: 'ignored',
  ChallengeVerification: 'ignored',
  OpenRelayTest: 'ignored',
  VirusNotification: 'ignored',
  Unconfirmed: 'ignored',
  SMTPApiError: 'ignored',
  InboundError: 'ignored',
  DMARCPolicy: 'ignored',
  TemplateRenderingFailed: 'ignored',
};

/** What read() refused the request with (it fails the test when read() accepts it). */
const refusal = (request: { headers: Record<string, string>; body: Buffer }) =>
  refusalOf(endpoint.read(request, NOW));

describe("Postmark's endpoint", () => {
  it("has a kind for every bounce type of Postmark's table", () => {
    expect(POSTMARK_BOUNCE_TYPES.map(({ type }) => type).sort()).toEqual(
      Object.keys(EXPECTED).sort(),
    );
  });

  it.each(POSTMARK_BOUNCE_TYPES)(
    'reads a $type bounce as the table says',
    async ({ type, code }) => {
      const payload = bouncePayload({ email: 'Ann@Example.org', type, id: 692560173 });
      expect(await endpoint.read(signed(payload, CREDENTIALS), NOW)).toEqual({
        notices: [
          {
            id: 'Bounce:692560173',
            email: 'Ann@Example.org',
            kind: EXPECTED[type],
            detail: `${type} (${code})`,
          },
        ],
      });
    },
  );

  it('reads a SpamComplaint record as a complaint, whatever its TypeCode', async () => {
    const payload = spamComplaintPayload({ email: 'bea@example.org', id: 42 });
    expect(await endpoint.read(signed(payload, CREDENTIALS), NOW)).toEqual({
      notices: [
        {
          id: 'SpamComplaint:42',
          email: 'bea@example.org',
          kind: 'complaint',
          detail: 'SpamComplaint (512)',
        },
      ],
    });
  });

  it('gives no notice for a record type it does not read', async () => {
    const payload = deliveryPayload({ email: 'cy@example.org' });
    expect(await endpoint.read(signed(payload, CREDENTIALS), NOW)).toEqual({ notices: [] });
  });

  it('ignores a Type it does not know, even one named like a property every object has', async () => {
    for (const type of ['NewTypeFromPostmark', 'constructor', 'toString']) {
      const payload = { ...bouncePayload({ email: 'cy@example.org' }), Type: type };
      const { notices } = await endpoint.read(signed(payload, CREDENTIALS), NOW);
      expect(notices.map((notice) => notice.kind)).toEqual(['ignored']);
    }
  });

  it('keeps 64-bit bounce IDs exact, so two neighbouring bounces stay two', async () => {
    const read = (id: bigint) =>
      endpoint.read(signed(bouncePayload({ email: 'dee@example.org', id }), CREDENTIALS), NOW);
    const [first, second] = await Promise.all([
      read(4323372036854775807n),
      read(4323372036854775806n),
    ]);
    expect(first.notices[0].id).toBe('Bounce:4323372036854775807');
    expect(second.notices[0].id).toBe('Bounce:4323372036854775806');
  });

  it('never puts the bounce text in the detail, where an address may be', async () => {
    const payload = bouncePayload({
      email: 'eve@example.org',
      details: 'smtp;550 5.1.1 <eve@example.org>: Recipient address rejected',
    });
    const { notices } = await endpoint.read(signed(payload, CREDENTIALS), NOW);
    expect(notices[0].detail).toBe('HardBounce (1)');
  });

  it('takes a password that itself holds a colon', async () => {
    const withColon = postmarkEndpoint({ credentials: 'hooks:pa:ss' });
    const payload = bouncePayload({ email: 'fay@example.org' });
    expect((await withColon.read(signed(payload, 'hooks:pa:ss'), NOW)).notices).toHaveLength(1);
  });

  it('refuses a wrong password, a wrong user, no credentials and another scheme', async () => {
    const payload = bouncePayload({ email: 'gus@example.org' });
    const good = signed(payload, CREDENTIALS);
    const requests = [
      signed(payload, 'postmark:Wq3-secret-7Zj'),
      signed(payload, 'postmarc:Wq3-secret-7Zk'),
      signed(payload, `${CREDENTIALS}x`),
      signed(payload, ''),
      { ...good, headers: { 'content-type': 'application/json' } },
      {
        ...good,
        headers: {
          ...good.headers,
          authorization: good.headers.authorization.replace('Basic', 'Bearer'),
        },
      },
      { ...good, headers: { ...good.headers, authorization: 'Basic not base64!' } },
    ];
    for (const request of requests) {
      const refused = await refusal(request);
      expect(refused.reason).toBe('credentials');
      expect(refused.message).not.toContain('Wq3');
      expect(refused.message).not.toContain('gus@');
    }
  });

  it('checks the credentials before it reads the body', async () => {
    const request = { ...signed({}, 'postmark:wrong'), body: Buffer.from('not json') };
    expect((await refusal(request)).reason).toBe('credentials');
  });

  it('answers a body Postmark would not send as unreadable', async () => {
    const bounce = bouncePayload({ email: 'hal@example.org' });
    const { Email: _email, ...withoutEmail } = bounce;
    const { RecordType: _type, ...withoutType } = bounce;
    const bodies = [
      Buffer.from('{"RecordType": "Bounce",'),
      Buffer.from(JSON.stringify([bounce])),
      Buffer.from(JSON.stringify(withoutEmail)),
      Buffer.from(JSON.stringify(withoutType)),
      Buffer.from(JSON.stringify({ ...bounce, ID: 'forty-two' })),
    ];
    for (const body of bodies)
      await expect(
        endpoint.read({ headers: signed(bounce, CREDENTIALS).headers, body }, NOW),
      ).rejects.toBeInstanceOf(Unreadable);
  });

  it('will not start with credentials that are not a user and a password', () => {
    expect(() => postmarkEndpoint({ credentials: 'just-a-password' })).toThrow('user:password');
  });
});
