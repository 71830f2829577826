// What Amazon SES sends through SNS, built from AWS's documentation: SES's JSON in both of its
// formats (the feedback notifications' `notificationType`, from "Amazon SNS notification
// examples for Amazon SES", and event publishing's `eventType`, from "Examples of event data
// that Amazon SES publishes to Amazon SNS"), wrapped in the SNS message an HTTPS subscription
// receives ("HTTP/HTTPS notification JSON format", "…subscription confirmation JSON format") and
// signed as SNS signs it ("Verifying the signatures of Amazon SNS messages"): RSA with SHA-1
// (SignatureVersion 1) or SHA-256 (2) over the message's fields, each name and value on a line.
// The signing certificate is one the test makes with openssl, served by a stand-in for the SNS
// host (the only thing mocked: the real host is on the internet).
import { execFileSync } from 'node:child_process';
import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ProviderRequest } from '../../../server/bounces/notices';

export const SES_TOPIC = 'arn:aws:sns:us-east-1:123456789012:ses-feedback';
export const SNS_CERT_URL =
  'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-9c6465fa7f48f5cacd23014631ec1136.pem';
const SUBSCRIPTION_ARN = `${SES_TOPIC}:c9135db0-26c4-47ec-8998-413945fb5a96`;

/** A key and the self-signed certificate that holds its public half, as SNS's signer. */
export interface SnsSigner {
  privateKey: KeyObject;
  /** The same key in PEM, for a TLS server that serves the certificate itself. */
  privateKeyPem: string;
  certificate: string;
}

export interface SnsSignerOptions {
  /** An IP address for the certificate's subjectAltName, so a TLS client on loopback trusts it. */
  ipAddress?: string;
}

/** A fresh RSA key and certificate (openssl, in a temporary folder removed at once). */
export function snsSigner({ ipAddress }: SnsSignerOptions = {}): SnsSigner {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'sns-cert-'));
  try {
    const keyFile = path.join(folder, 'key.pem');
    const certificateFile = path.join(folder, 'cert.pem');
    execFileSync(
      'openssl',
      [
        ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1'],
        ...['-subj', '/CN=sns.amazonaws.com', '-keyout', keyFile, '-out', certificateFile],
        ...(ipAddress === undefined ? [] : ['-addext', `subjectAltName=IP:${ipAddress}`]),
      ],
      { stdio: 'ignore' },
    );
    const privateKeyPem = fs.readFileSync(keyFile, 'utf8');
    return {
      privateKey: createPrivateKey(privateKeyPem),
      privateKeyPem,
      certificate: fs.readFileSync(certificateFile, 'utf8'),
    };
  } finally {
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

/** The SNS host as the endpoint reaches it: the certificate for a .pem, a confirmation's answer. */
export interface FakeSnsHost {
  fetchText: (url: URL) => Promise<string>;
  /** Every URL fetched, in order. */
  fetched: string[];
}

export function fakeSnsHost(certificate: string): FakeSnsHost {
  const fetched: string[] = [];
  return {
    fetched,
    fetchText: async (url) => {
      fetched.push(url.href);
      if (url.pathname.endsWith('.pem')) return certificate;
      if (url.searchParams.get('Action') === 'ConfirmSubscription')
        return confirmSubscriptionResponse();
      throw new Error('not found');
    },
  };
}

/** What SNS answers a visit to a SubscribeURL (the ConfirmSubscription action). */
function confirmSubscriptionResponse(): string {
  return [
    '<ConfirmSubscriptionResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/">',
    `<ConfirmSubscriptionResult><SubscriptionArn>${SUBSCRIPTION_ARN}</SubscriptionArn></ConfirmSubscriptionResult>`,
    '<ResponseMetadata><RequestId>075ecce8-8dac-11e1-bf80-f781d96e9307</RequestId></ResponseMetadata>',
    '</ConfirmSubscriptionResponse>',
  ].join('');
}

// SES's JSON.

export type SesFormat = 'notification' | 'event';

/** The type field of each format: `notificationType`, or event publishing's `eventType`. */
function typeField(format: SesFormat, type: string) {
  return format === 'notification' ? { notificationType: type } : { eventType: type };
}

/** The `mail` object SES adds to every notification (the sent message's envelope). */
function mailObject(destination: readonly string[], at: number) {
  return {
    timestamp: new Date(at - 60_000).toISOString(),
    source: 'OrgNote <news@orgnote.example>',
    sourceArn: 'arn:aws:ses:us-east-1:123456789012:identity/orgnote.example',
    sourceIp: '192.0.2.10',
    sendingAccountId: '123456789012',
    callerIdentity: 'orgnote-site',
    messageId: '0100018f2a7b6c1d-5e2b3c4d-7a8b-4c9d-8e0f-1a2b3c4d5e6f-000000',
    destination: [...destination],
  };
}

export interface SesBounce {
  emails: readonly string[];
  format?: SesFormat;
  /** Permanent, Transient or Undetermined. */
  bounceType?: string;
  bounceSubType?: string;
  /** Each recipient's enhanced status code; left out when empty. */
  status?: string;
  at?: number;
}

/** A bounce, as in SES's "Bounce notification with a DSN" (its diagnostic names the address). */
export function sesBounce({
  emails,
  format = 'notification',
  bounceType = 'Permanent',
  bounceSubType = 'General',
  status = '5.1.1',
  at = Date.parse('2026-03-01T12:00:00.000Z'),
}: SesBounce) {
  return {
    ...typeField(format, 'Bounce'),
    bounce: {
      bounceType,
      bounceSubType,
      reportingMTA: 'dns; mx.example.org',
      bouncedRecipients: emails.map((emailAddress) => ({
        emailAddress,
        action: 'failed',
        ...(status ? { status } : {}),
        diagnosticCode: `smtp; 550 ${status} <${emailAddress}>... User unknown`,
      })),
      timestamp: new Date(at).toISOString(),
      feedbackId: '0100018f2a7b6c1e-00000000-1111-2222-3333-444455556666-000000',
      remoteMtaIp: '192.0.2.25',
    },
    mail: mailObject(emails, at),
  };
}

export interface SesComplaint {
  emails: readonly string[];
  format?: SesFormat;
  /** The feedback report's Feedback-Type (abuse, not-spam…); null leaves it out. */
  feedbackType?: string | null;
  /** null or OnAccountSuppressionList (event publishing writes null). */
  subType?: string | null;
  at?: number;
}

/** A complaint from a feedback loop, as in SES's complaint examples. */
export function sesComplaint({
  emails,
  format = 'notification',
  feedbackType = 'abuse',
  subType = format === 'event' ? null : undefined,
  at = Date.parse('2026-03-01T12:00:00.000Z'),
}: SesComplaint) {
  return {
    ...typeField(format, 'Complaint'),
    complaint: {
      userAgent: 'ExampleCorp Feedback Loop (V0.01)',
      complainedRecipients: emails.map((emailAddress) => ({ emailAddress })),
      ...(feedbackType === null ? {} : { complaintFeedbackType: feedbackType }),
      ...(subType === undefined ? {} : { complaintSubType: subType }),
      arrivalDate: new Date(at - 30_000).toISOString(),
      timestamp: new Date(at).toISOString(),
      feedbackId: '0100018f2a7b6c1f-00000000-1111-2222-3333-444455556666-000000',
    },
    mail: mailObject(emails, at),
  };
}

/** The other kinds SES reports, each with the object its documentation shows. */
export const SES_OTHER_KINDS = {
  notification: ['Delivery'],
  event: [
    'Delivery',
    'Send',
    'Reject',
    'Open',
    'Click',
    'DeliveryDelay',
    'Rendering Failure',
    'Subscription',
  ],
} as const;

/** One of SES_OTHER_KINDS about `email`. */
export function sesOther(
  type: string,
  email: string,
  format: SesFormat = 'event',
  at = Date.parse('2026-03-01T12:00:00.000Z'),
) {
  const time = new Date(at).toISOString();
  const objects: Record<string, Record<string, unknown>> = {
    Delivery: {
      delivery: {
        timestamp: time,
        processingTimeMillis: 546,
        recipients: [email],
        smtpResponse: '250 ok:  Message 64111812 accepted',
        reportingMTA: 'a8-70.smtp-out.amazonses.com',
        remoteMtaIp: '192.0.2.25',
      },
    },
    Send: { send: {} },
    Reject: { reject: { reason: 'Bad content' } },
    Open: { open: { ipAddress: '192.0.2.1', timestamp: time, userAgent: 'Mozilla/5.0' } },
    Click: {
      click: {
        ipAddress: '192.0.2.1',
        link: 'https://orgnote.example/',
        linkTags: { samplekey0: ['samplevalue0'] },
        timestamp: time,
        userAgent: 'Mozilla/5.0',
      },
    },
    DeliveryDelay: {
      deliveryDelay: {
        timestamp: time,
        delayType: 'TransientCommunicationFailure',
        expirationTime: new Date(at + 86_400_000).toISOString(),
        delayedRecipients: [
          {
            emailAddress: email,
            status: '4.4.1',
            diagnosticCode: 'smtp; 421 4.4.1 Unable to connect to remote host',
          },
        ],
      },
    },
    'Rendering Failure': {
      failure: {
        errorMessage: "Attribute 'attributeName' is not present in the rendering data.",
        templateName: 'MyTemplate',
      },
    },
    Subscription: {
      subscription: {
        contactList: 'ContactListName',
        timestamp: time,
        source: 'UnsubscribeHeader',
        newTopicPreferences: { unsubscribeAll: true, topicSubscriptionStatus: [] },
        oldTopicPreferences: { unsubscribeAll: false, topicSubscriptionStatus: [] },
      },
    },
  };
  return { ...typeField(format, type), mail: mailObject([email], at), ...objects[type] };
}

// The SNS message around it.

/** An SNS message before it is signed: its fields as strings. */
export type SnsEnvelope = Record<string, string>;

export interface SnsFields {
  topicArn?: string;
  messageId?: string;
  at?: number;
}

/** A Notification carrying `message` (SES's JSON, or any text), with a Subject when given. */
export function snsNotification(
  message: object | string,
  {
    topicArn = SES_TOPIC,
    messageId = '22b80b92-fdea-4c2c-8f9d-bdfb0c7bf324',
    at = 0,
    subject,
  }: SnsFields & { subject?: string } = {},
): SnsEnvelope {
  return {
    Type: 'Notification',
    MessageId: messageId,
    TopicArn: topicArn,
    ...(subject === undefined ? {} : { Subject: subject }),
    Message: typeof message === 'string' ? message : JSON.stringify(message),
    Timestamp: new Date(at || Date.parse('2026-03-01T12:00:01.000Z')).toISOString(),
    UnsubscribeURL: `https://sns.us-east-1.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=${SUBSCRIPTION_ARN}`,
  };
}

/** The SubscribeURL SNS writes for a topic and token. */
export function subscribeUrl(topicArn: string, token: string): string {
  const region = topicArn.split(':')[3];
  return `https://sns.${region}.amazonaws.com/?Action=ConfirmSubscription&TopicArn=${topicArn}&Token=${token}`;
}

/** A SubscriptionConfirmation (or an UnsubscribeConfirmation) for the topic. */
export function snsConfirmation(
  type: 'SubscriptionConfirmation' | 'UnsubscribeConfirmation' = 'SubscriptionConfirmation',
  {
    topicArn = SES_TOPIC,
    messageId = '165545c9-2a5c-472c-8df2-7ff2be2b3b1b',
    at = 0,
    token = '2336412f37fb687f5d51e6e241d09c805a5a57b30d712f794cc5f6a988666d92768dd60a747ba6f3beb71854e285d6ad02428b09ceece29417f1f02d609c582afbacc99c583a916b9981dd2728f4ae6fdb82efd087cc3b7849e05798d2d2785c03b0879594eeac82c01f235d0e717736',
    url = subscribeUrl(topicArn, token),
  }: SnsFields & { token?: string; url?: string } = {},
): SnsEnvelope {
  const message =
    type === 'SubscriptionConfirmation'
      ? `You have chosen to subscribe to the topic ${topicArn}.\nTo confirm the subscription, visit the SubscribeURL included in this message.`
      : `You have chosen to deactivate subscription ${SUBSCRIPTION_ARN}.\nTo cancel this operation and restore the subscription, visit the SubscribeURL included in this message.`;
  return {
    Type: type,
    MessageId: messageId,
    Token: token,
    TopicArn: topicArn,
    Message: message,
    SubscribeURL: url,
    Timestamp: new Date(at || Date.parse('2026-03-01T12:00:01.000Z')).toISOString(),
  };
}

/** The fields SNS signs for each type, in its documented order (Subject only when present). */
const SIGNED = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  Confirmation: ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'],
};

/** The string SNS signs: `name\nvalue\n` for each signed field present, in order. */
export function snsStringToSign(envelope: SnsEnvelope): string {
  const fields = envelope.Type === 'Notification' ? SIGNED.Notification : SIGNED.Confirmation;
  return fields
    .filter((name) => envelope[name] !== undefined)
    .map((name) => `${name}\n${envelope[name]}\n`)
    .join('');
}

export interface SignOptions {
  /** SignatureVersion: 1 is SHA1withRSA, 2 is SHA256withRSA. */
  version?: 1 | 2;
  certUrl?: string;
}

/** The envelope signed, with its SignatureVersion, Signature and SigningCertURL. */
export function signedEnvelope(
  envelope: SnsEnvelope,
  signer: SnsSigner,
  { version = 1, certUrl = SNS_CERT_URL }: SignOptions = {},
): SnsEnvelope {
  const digest = version === 1 ? 'sha1' : 'sha256';
  const signature = sign(digest, Buffer.from(snsStringToSign(envelope)), signer.privateKey);
  // SNS's own order: the signature fields come after Timestamp, UnsubscribeURL last.
  const { UnsubscribeURL, ...fields } = envelope;
  return {
    ...fields,
    SignatureVersion: String(version),
    Signature: signature.toString('base64'),
    SigningCertURL: certUrl,
    ...(UnsubscribeURL === undefined ? {} : { UnsubscribeURL }),
  };
}

/** The POST SNS makes: its headers and its JSON body (sent as text/plain). */
export function snsRequest(
  envelope: SnsEnvelope,
): ProviderRequest & { headers: Record<string, string> } {
  const body = Buffer.from(JSON.stringify(envelope, null, 2));
  return {
    headers: {
      'x-amz-sns-message-type': envelope.Type,
      'x-amz-sns-message-id': envelope.MessageId,
      'x-amz-sns-topic-arn': envelope.TopicArn,
      ...(envelope.Type === 'Notification'
        ? { 'x-amz-sns-subscription-arn': SUBSCRIPTION_ARN }
        : {}),
      'content-type': 'text/plain; charset=UTF-8',
      'content-length': String(body.length),
      'user-agent': 'Amazon Simple Notification Service Agent',
    },
    body,
  };
}

/** Signed and posted at once: `signed(snsNotification(sesBounce({ emails })), signer)`. */
export function signed(
  envelope: SnsEnvelope,
  signer: SnsSigner,
  options: SignOptions = {},
): ProviderRequest & { headers: Record<string, string> } {
  return snsRequest(signedEnvelope(envelope, signer, options));
}
