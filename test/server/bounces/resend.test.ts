// Resend's endpoint reading requests built from Resend's own examples and signed as Svix signs
// them for Resend: each bounce type and subtype and a complaint map as the table in
// docs/operating.md says, several recipients get one notice each, a type the site does not read
// gives none. The standardwebhooks package takes what the test signed and refuses it tampered. A
// changed body, id or timestamp, another secret, a missing header, and a timestamp more than 5
// minutes either side of now are refused with their reasons.
import { Webhook } from 'standardwebhooks';
import { Unreadable, type ProviderRequest } from '../../../server/bounces/notices';
import { resendEndpoint } from '../../../server/bounces/resend';
import {
  bouncedEvent,
  complainedEvent,
  deliveredEvent,
  newSecret,
  resendSignature,
  signed,
} from '../../../scripts/lib/bounces/resend';
import { refusalOf } from '../../support/bounce-refusal';

const SECRET = newSecret();
const NOW = Date.parse('2026-03-01T12:00:00.000Z');
const ID = 'msg_2LhkyJb8VHbsAUl6fD1vPTeCsYt';
const endpoint = resendEndpoint({ secret: SECRET });

/** What read() refused the request with (it fails the test when read() accepts it). */
const refusal = (request: ProviderRequest, now = NOW) => refusalOf(endpoint.read(request, now));

describe("Resend's kinds", () => {
  const cases: [string, string, string, string[] | undefined, string, string][] = [
    ['a hard bounce', 'Permanent', 'General', undefined, 'permanent', 'Permanent/General'],
    [
      'an address Resend suppresses',
      'Permanent',
      'Suppressed',
      undefined,
      'permanent',
      'Permanent/Suppressed',
    ],
    [
      'a bounce with its diagnostic, keeping only the codes',
      'Permanent',
      'NoEmail',
      ['smtp; 550 5.1.1 <ann@example.org>: Recipient address rejected: User unknown'],
      'permanent',
      'Permanent/NoEmail 550 5.1.1',
    ],
    ['a full mailbox', 'Transient', 'MailboxFull', undefined, 'transient', 'Transient/MailboxFull'],
    ['a general soft bounce', 'Transient', 'General', undefined, 'transient', 'Transient/General'],
    [
      'a message too large',
      'Transient',
      'MessageTooLarge',
      undefined,
      'ignored',
      'Transient/MessageTooLarge',
    ],
    [
      'content refused',
      'Transient',
      'ContentRejected',
      undefined,
      'ignored',
      'Transient/ContentRejected',
    ],
    [
      'an attachment refused',
      'Transient',
      'AttachmentRejected',
      undefined,
      'ignored',
      'Transient/AttachmentRejected',
    ],
    [
      'an undetermined bounce',
      'Undetermined',
      'Undetermined',
      undefined,
      'transient',
      'Undetermined/Undetermined',
    ],
  ];

  it.each(cases)('reads %s', async (_name, type, subType, diagnosticCode, kind, detail) => {
    const event = bouncedEvent({ to: 'ann@example.org', type, subType, diagnosticCode, at: NOW });
    const read = await endpoint.read(signed(event, SECRET, { id: ID, at: NOW }), NOW);
    expect(read).toEqual({ notices: [{ id: ID, email: 'ann@example.org', kind, detail }] });
  });

  it('reads a complaint', async () => {
    const event = complainedEvent({ to: 'Bo@Example.org', at: NOW });
    const read = await endpoint.read(signed(event, SECRET, { id: ID, at: NOW }), NOW);
    expect(read.notices).toEqual([
      { id: ID, email: 'Bo@Example.org', kind: 'complaint', detail: 'complained' },
    ]);
  });

  it('gives each recipient of one message its own notice id', async () => {
    const event = bouncedEvent({
      to: ['cy@example.org', 'di@example.org'],
      type: 'Permanent',
      subType: 'General',
      at: NOW,
    });
    const read = await endpoint.read(signed(event, SECRET, { id: ID, at: NOW }), NOW);
    expect(read.notices.map(({ id, email }) => ({ id, email }))).toEqual([
      { id: `${ID}/0`, email: 'cy@example.org' },
      { id: `${ID}/1`, email: 'di@example.org' },
    ]);
  });

  it('gives no notice for a type it does not read', async () => {
    const event = deliveredEvent({ to: 'ann@example.org', at: NOW });
    expect(await endpoint.read(signed(event, SECRET, { at: NOW }), NOW)).toEqual({ notices: [] });
  });

  it('answers Unreadable for a signed body that is not an event it knows', async () => {
    const noBounce = { type: 'email.bounced', data: { to: ['ann@example.org'] } };
    await expect(endpoint.read(signed(noBounce, SECRET, { at: NOW }), NOW)).rejects.toBeInstanceOf(
      Unreadable,
    );
    const noRecipient = { type: 'email.complained', data: { to: [] } };
    await expect(
      endpoint.read(signed(noRecipient, SECRET, { at: NOW }), NOW),
    ).rejects.toBeInstanceOf(Unreadable);
    const text = signed({}, SECRET, { at: NOW });
    const notJson = Buffer.from('not json');
    const headers = {
      ...text.headers,
      'svix-signature': resendSignature(
        SECRET,
        text.headers['svix-id'],
        text.headers['svix-timestamp'],
        notJson,
      ),
    };
    await expect(endpoint.read({ headers, body: notJson }, NOW)).rejects.toBeInstanceOf(Unreadable);
  });
});

describe("Resend's signature", () => {
  const event = () =>
    bouncedEvent({ to: 'ann@example.org', type: 'Permanent', subType: 'General' });

  it('is what the standardwebhooks package verifies, and it refuses the body tampered', () => {
    const request = signed(event(), SECRET, { id: ID });
    const headers = {
      'webhook-id': request.headers['svix-id'],
      'webhook-timestamp': request.headers['svix-timestamp'],
      'webhook-signature': request.headers['svix-signature'],
    };
    expect(new Webhook(SECRET).verify(request.body, headers)).toMatchObject({
      type: 'email.bounced',
      data: { to: ['ann@example.org'], bounce: { type: 'Permanent', subType: 'General' } },
    });
    const tampered = Buffer.from(request.body.toString().replace('Permanent', 'Transient'));
    expect(() => new Webhook(SECRET).verify(tampered, headers)).toThrow();
    expect(() => new Webhook(newSecret()).verify(request.body, headers)).toThrow();
  });

  it('takes the Standard Webhooks header names, and a second signature from a rotation', async () => {
    const standard = signed(event(), SECRET, { at: NOW, names: 'webhook' });
    expect((await endpoint.read(standard, NOW)).notices).toHaveLength(1);

    const request = signed(event(), SECRET, { at: NOW });
    const old = resendSignature(
      newSecret(),
      request.headers['svix-id'],
      request.headers['svix-timestamp'],
      request.body,
    );
    const rotated = {
      headers: {
        ...request.headers,
        'svix-signature': `${old} ${request.headers['svix-signature']}`,
      },
      body: request.body,
    };
    expect((await endpoint.read(rotated, NOW)).notices).toHaveLength(1);
  });

  it('refuses a tampered body, id or timestamp, and another secret', async () => {
    const good = signed(event(), SECRET, { at: NOW });
    const tampered = [
      { ...good, body: Buffer.from(good.body.toString().replace('Permanent', 'Transient')) },
      { ...good, headers: { ...good.headers, 'svix-id': `${good.headers['svix-id']}x` } },
      { ...good, headers: { ...good.headers, 'svix-timestamp': String(NOW / 1000 - 1) } },
      signed(event(), newSecret(), { at: NOW }),
    ];
    for (const request of tampered) expect((await refusal(request)).reason).toBe('signature');
  });

  it('refuses a request missing any of the three headers, or with no v1 signature', async () => {
    const good = signed(event(), SECRET, { at: NOW });
    for (const name of ['svix-id', 'svix-timestamp', 'svix-signature']) {
      const headers: Record<string, string> = { ...good.headers };
      delete headers[name];
      expect((await refusal({ headers, body: good.body })).reason).toBe('signature');
    }
    const v2 = good.headers['svix-signature'].replace('v1,', 'v2,');
    const other = { headers: { ...good.headers, 'svix-signature': v2 }, body: good.body };
    expect((await refusal(other)).reason).toBe('signature');
  });

  it('refuses a timestamp more than 5 minutes old or ahead, and takes one just inside', async () => {
    const old = signed(event(), SECRET, { at: NOW - 5 * 60_000 - 1_000 });
    expect((await refusal(old)).reason).toBe('stale');
    const ahead = signed(event(), SECRET, { at: NOW + 5 * 60_000 + 1_000 });
    expect((await refusal(ahead)).reason).toBe('stale');
    const inside = signed(event(), SECRET, { at: NOW + 5 * 60_000 - 1_000 });
    expect((await endpoint.read(inside, NOW)).notices).toHaveLength(1);
  });

  it('refuses a stale forgery for its signature, not its age', async () => {
    const forged = signed(event(), newSecret(), { at: NOW - 3_600_000 });
    expect((await refusal(forged)).reason).toBe('signature');
  });

  it('will not start with a secret that is not whsec_ and base64', () => {
    expect(() => resendEndpoint({ secret: 'whsec_' })).toThrow('not whsec_ and base64');
    expect(() => resendEndpoint({ secret: 'whsec_not base64!' })).toThrow('not whsec_ and base64');
  });
});
