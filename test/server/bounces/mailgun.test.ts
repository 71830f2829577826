// Mailgun's endpoint reading requests built from Mailgun's own samples and signed as Mailgun
// signs: each kind of `failed` and `complained` maps as the table in docs/operating.md says, an
// event the site does not read gives no notice, and the token comes back beside the event's id.
// A tampered signature, another key, a missing or malformed signature, and a timestamp more than
// 5 minutes either side of now are refused with their reasons.
import { mailgunEndpoint } from '../../../server/bounces/mailgun';
import { Unreadable, type ProviderRequest } from '../../../server/bounces/notices';
import {
  complainedEvent,
  deliveredEvent,
  failedEvent,
  mailgunSignature,
  signed,
} from '../../../scripts/lib/bounces/mailgun';
import { refusalOf } from '../../support/bounce-refusal';

const KEY = 'key-3ax6xnjp29jd6fds4gc373sgvjxteol0';
const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const endpoint = mailgunEndpoint({ signingKey: KEY });

/** What read() refused the request with (it fails the test when read() accepts it). */
const refusal = (request: ProviderRequest, now = NOW) => refusalOf(endpoint.read(request, now));

/** The body Mailgun posts, as the tests change it. */
interface Body {
  signature: { token: string; timestamp: string; signature: string; 'parent-signature'?: string };
  'event-data'?: Record<string, unknown>;
}

/** The signed body with one change to what it holds. */
function altered(request: ProviderRequest, change: (payload: Body) => void) {
  const payload = JSON.parse(request.body.toString('utf8')) as Body;
  change(payload);
  return { headers: request.headers, body: Buffer.from(JSON.stringify(payload)) };
}

describe("Mailgun's kinds", () => {
  const cases: [string, Parameters<typeof failedEvent>[0], string, string][] = [
    [
      'a hard bounce',
      { email: 'ann@example.org', severity: 'permanent', reason: 'bounce', enhancedCode: '5.1.1' },
      'permanent',
      'failed/permanent bounce 550 5.1.1',
    ],
    [
      'an address Mailgun suppresses after an earlier bounce',
      { email: 'ann@example.org', severity: 'permanent', reason: 'suppress-bounce', code: 605 },
      'permanent',
      'failed/permanent suppress-bounce 605',
    ],
    [
      'an address on the unsubscribe list',
      {
        email: 'ann@example.org',
        severity: 'permanent',
        reason: 'suppress-unsubscribe',
        code: 606,
      },
      'permanent',
      'failed/permanent suppress-unsubscribe 606',
    ],
    [
      'an address suppressed after a complaint',
      { email: 'ann@example.org', severity: 'permanent', reason: 'suppress-complaint', code: 607 },
      'complaint',
      'failed/permanent suppress-complaint 607',
    ],
    [
      "a temporary failure's first attempt",
      { email: 'ann@example.org', severity: 'temporary', reason: 'generic', code: 452 },
      'transient',
      'failed/temporary generic 452',
    ],
    [
      'a later attempt at the same message',
      { email: 'ann@example.org', severity: 'temporary', reason: 'generic', attemptNo: 3 },
      'ignored',
      'failed/temporary generic 421',
    ],
    [
      'a message given up on after its retries',
      { email: 'ann@example.org', severity: 'permanent', reason: 'old', code: 602 },
      'ignored',
      'failed/permanent old 602',
    ],
    [
      'a block of the sender by a mailbox provider',
      { email: 'ann@example.org', severity: 'temporary', reason: 'esp-block', code: 421 },
      'ignored',
      'failed/temporary esp-block 421',
    ],
  ];

  it.each(cases)('reads %s', async (_name, options, kind, detail) => {
    const event = failedEvent({ ...options, id: 'YusK9KhoTwe2C00iRxsEqQ', at: NOW - 2_000 });
    const read = await endpoint.read(signed(event, KEY, { at: NOW, token: 'a'.repeat(50) }), NOW);
    expect(read).toEqual({
      notices: [{ id: 'YusK9KhoTwe2C00iRxsEqQ', email: 'ann@example.org', kind, detail }],
      token: { value: 'a'.repeat(50), notice: 'YusK9KhoTwe2C00iRxsEqQ' },
    });
  });

  it('reads a complaint', async () => {
    const event = complainedEvent({ email: 'Bo@Example.org', id: 'rIVDlyk8SY-mJauQoYmNFA' });
    const read = await endpoint.read(signed(event, KEY, { at: NOW }), NOW);
    expect(read.notices).toEqual([
      {
        id: 'rIVDlyk8SY-mJauQoYmNFA',
        email: 'Bo@Example.org',
        kind: 'complaint',
        detail: 'complained',
      },
    ]);
  });

  it('gives no notice for an event it does not read, and still returns its token', async () => {
    const event = deliveredEvent({ email: 'cy@example.org', id: 'MXcc2gEpS-eN8HfkOnmK2w' });
    const read = await endpoint.read(signed(event, KEY, { at: NOW, token: 'b'.repeat(50) }), NOW);
    expect(read).toEqual({
      notices: [],
      token: { value: 'b'.repeat(50), notice: 'MXcc2gEpS-eN8HfkOnmK2w' },
    });
  });

  it('keeps the address and the SMTP text out of the detail', async () => {
    const event = failedEvent({
      email: 'di@example.org',
      severity: 'permanent',
      message: '550 5.1.1 <di@example.org>: no such user here',
    });
    const [notice] = (await endpoint.read(signed(event, KEY, { at: NOW }), NOW)).notices;
    expect(notice.detail).toBe('failed/permanent bounce 550');
    expect(notice.detail).not.toContain('@');
  });

  it('answers Unreadable for a signed body that is not an event it knows', async () => {
    const noSeverity = altered(
      signed(failedEvent({ email: 'e@example.org', severity: 'permanent' }), KEY, { at: NOW }),
      (p) => {
        Reflect.deleteProperty(p['event-data'] ?? {}, 'severity');
      },
    );
    await expect(endpoint.read(noSeverity, NOW)).rejects.toBeInstanceOf(Unreadable);
    const noEvent = altered(
      signed(complainedEvent({ email: 'e@example.org' }), KEY, { at: NOW }),
      (p) => {
        Reflect.deleteProperty(p, 'event-data');
      },
    );
    await expect(endpoint.read(noEvent, NOW)).rejects.toBeInstanceOf(Unreadable);
  });
});

describe("Mailgun's signature", () => {
  const event = () => failedEvent({ email: 'ann@example.org', severity: 'permanent' });

  it('takes a subaccount event whose parent signature is the one made with the key', async () => {
    const request = altered(signed(event(), 'key-of-the-subaccount', { at: NOW }), (p) => {
      const { timestamp, token } = p.signature;
      p.signature['parent-signature'] = mailgunSignature(KEY, timestamp, token);
    });
    expect((await endpoint.read(request, NOW)).notices).toHaveLength(1);
  });

  it('refuses another key, a changed token or timestamp, and a changed signature', async () => {
    expect((await refusal(signed(event(), 'key-somebody-else', { at: NOW }))).reason).toBe(
      'signature',
    );
    const good = signed(event(), KEY, { at: NOW });
    for (const change of [
      (p: Body) => (p.signature.token = `${p.signature.token.slice(1)}x`),
      (p: Body) => (p.signature.timestamp = String(Number(p.signature.timestamp) - 1)),
      (p: Body) =>
        (p.signature.signature = `${p.signature.signature.slice(0, -1)}${p.signature.signature.endsWith('0') ? '1' : '0'}`),
    ])
      expect((await refusal(altered(good, change))).reason).toBe('signature');
  });

  it('refuses a body without a signature, and one that is not JSON', async () => {
    const unsigned = altered(signed(event(), KEY, { at: NOW }), (p) =>
      Reflect.deleteProperty(p, 'signature'),
    );
    expect((await refusal(unsigned)).reason).toBe('signature');
    const empty = altered(signed(event(), KEY, { at: NOW }), (p) => (p.signature.signature = ''));
    expect((await refusal(empty)).reason).toBe('signature');
    const form = { headers: {}, body: Buffer.from('token=abc&timestamp=1&signature=00') };
    expect((await refusal(form)).reason).toBe('signature');
  });

  it('refuses a timestamp more than 5 minutes old or ahead, and takes one just inside', async () => {
    const old = signed(event(), KEY, { at: NOW - 5 * 60_000 - 1_000 });
    expect((await refusal(old)).reason).toBe('stale');
    const ahead = signed(event(), KEY, { at: NOW + 5 * 60_000 + 1_000 });
    expect((await refusal(ahead)).reason).toBe('stale');
    const inside = signed(event(), KEY, { at: NOW - 5 * 60_000 + 1_000 });
    expect((await endpoint.read(inside, NOW)).notices).toHaveLength(1);
  });

  it('refuses a stale forgery for its signature, not its age', async () => {
    expect(
      (await refusal(signed(event(), 'key-somebody-else', { at: NOW - 3_600_000 }))).reason,
    ).toBe('signature');
  });

  it('never puts the key or the address in a refusal', async () => {
    const refused = await refusal(signed(event(), 'key-somebody-else', { at: NOW }));
    expect(refused.message).not.toContain(KEY);
    expect(refused.message).not.toContain('ann@example.org');
  });
});
