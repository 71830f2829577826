// What our test signer signs, checked by AWS's own validator (the sns-validator package, AWS's
// aws-js-sns-message-validator). An independent check: the signer in scripts/lib/bounces/ses.ts
// and the verifier in server/bounces/ses.ts were both written by us from the same AWS pages, so a
// misreading shared by the two would pass ses.test.ts unseen; AWS's library is the third reading.
// It fetches the signing certificate itself with https.get, so the certificate is served over TLS
// on loopback by a server holding the signer's own key and certificate (made for 127.0.0.1), and
// the client trusts it through https.globalAgent's CA for this file only, restored afterwards.
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import MessageValidator from 'sns-validator';
import {
  sesBounce,
  signedEnvelope,
  snsConfirmation,
  snsNotification,
  snsSigner,
  type SnsEnvelope,
  type SnsSigner,
} from '../../../scripts/lib/bounces/ses';

const PEM_PATH = '/SimpleNotificationService-test.pem';

let signer: SnsSigner;
let server: https.Server;
let certUrl: string;
/** The path of every request the certificate server answered, in order. */
const served: string[] = [];
let caBefore: https.AgentOptions['ca'];

beforeAll(async () => {
  signer = snsSigner({ ipAddress: '127.0.0.1' });
  server = https.createServer(
    { key: signer.privateKeyPem, cert: signer.certificate },
    (req, res) => {
      served.push(req.url ?? '');
      if (req.url === PEM_PATH) {
        res.writeHead(200, { 'content-type': 'application/x-pem-file' }).end(signer.certificate);
      } else {
        res.writeHead(404).end();
      }
    },
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  certUrl = `https://127.0.0.1:${(server.address() as AddressInfo).port}${PEM_PATH}`;
  caBefore = https.globalAgent.options.ca;
  https.globalAgent.options.ca = signer.certificate;
});

afterAll(async () => {
  https.globalAgent.options.ca = caBefore;
  server.closeAllConnections();
  await new Promise<void>((resolve, reject) =>
    server.close((error) => (error ? reject(error) : resolve())),
  );
});

// The host pattern is tested against url.parse's `host`, which keeps the port.
const validator = new MessageValidator(/^127\.0\.0\.1:\d+$/);

/** The validator's verdict: the message it hands back, or the error it calls back with. */
function validate(envelope: SnsEnvelope): Promise<Record<string, unknown> | undefined> {
  return new Promise((resolve, reject) =>
    validator.validate({ ...envelope }, (error, message) =>
      error ? reject(error) : resolve(message),
    ),
  );
}

const notification = () => snsNotification(sesBounce({ emails: ['ann@example.org'] }));

describe.each([1, 2] as const)('SignatureVersion %i', (version) => {
  it('accepts a Notification', async () => {
    const envelope = signedEnvelope(notification(), signer, { version, certUrl });

    await expect(validate(envelope)).resolves.toMatchObject({
      Type: 'Notification',
      SignatureVersion: String(version),
      Message: envelope.Message,
    });
    // Fetched from the loopback server once, then from the library's own cache.
    expect(served).toEqual([PEM_PATH]);
  });

  it('accepts a Notification with a Subject', async () => {
    const envelope = signedEnvelope(
      snsNotification(sesBounce({ emails: ['ann@example.org'] }), { subject: 'Bounce' }),
      signer,
      { version, certUrl },
    );

    await expect(validate(envelope)).resolves.toMatchObject({ Subject: 'Bounce' });
  });

  it('accepts a SubscriptionConfirmation', async () => {
    const envelope = signedEnvelope(snsConfirmation(), signer, { version, certUrl });

    await expect(validate(envelope)).resolves.toMatchObject({
      Type: 'SubscriptionConfirmation',
      Token: envelope.Token,
      SubscribeURL: envelope.SubscribeURL,
    });
    expect(served).toEqual([PEM_PATH]);
  });

  it('rejects a Notification whose Message was changed after signing', async () => {
    const envelope = signedEnvelope(notification(), signer, { version, certUrl });
    const tampered = {
      ...envelope,
      Message: JSON.stringify(sesBounce({ emails: ['someone-else@example.org'] })),
    };

    await expect(validate(tampered)).rejects.toThrow('The message signature is invalid.');
  });

  it('rejects a SubscriptionConfirmation whose SubscribeURL was changed after signing', async () => {
    const envelope = signedEnvelope(snsConfirmation(), signer, { version, certUrl });
    const tampered = { ...envelope, SubscribeURL: 'https://attacker.example/?Action=Confirm' };

    await expect(validate(tampered)).rejects.toThrow('The message signature is invalid.');
  });

  it('rejects a Notification signed by another key', async () => {
    const stranger = snsSigner();
    const envelope = signedEnvelope(notification(), stranger, { version, certUrl });

    await expect(validate(envelope)).rejects.toThrow('The message signature is invalid.');
  });
});
