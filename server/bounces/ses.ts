// Amazon SES reports bounces and complaints through an SNS topic, which posts each message to
// POST /bounces/ses. A message is the provider's when its TopicArn is one the settings allow
// (BOUNCE_SES_TOPIC_ARNS) and its RSA signature (SignatureVersion 1: SHA-1, 2: SHA-256) verifies
// against the certificate at its SigningCertURL, fetched over https from an SNS host only
// (sns.<region>.amazonaws.com, or sns.cn-<region>.amazonaws.com.cn in the China partition) and
// kept for the next messages. A SubscriptionConfirmation for an allowed topic is confirmed by
// fetching its SubscribeURL (from an SNS host too). A Notification's Message is SES's own JSON,
// in either of its formats: the feedback notifications' `notificationType` or event publishing's
// `eventType`. SNS messages carry no timestamp window: a retry keeps its MessageId, and the
// notices' ids are made from it, so the store applies each once.
import { verify, X509Certificate, type KeyObject } from 'node:crypto';
import { isRecord, MESSAGE_BOUNCE_SUBTYPES } from './checks';
import {
  Refused,
  Unreadable,
  type BounceNotice,
  type ProviderEndpoint,
  type ReadNotices,
} from './notices';

export interface SesOptions {
  /** The SNS topics SES publishes to (BOUNCE_SES_TOPIC_ARNS); any other topic is refused. */
  topicArns: readonly string[];
  /**
   * Fetches an https URL and resolves with its body: the signing certificate, and a
   * SubscribeURL. Tests give their own; the default is `fetchHttpsText`.
   */
  fetchText?: FetchText;
}

/** Fetches an https URL's body: SNS's signing certificates, and its subscription confirmations. */
export type FetchText = (url: URL) => Promise<string>;

/** How many signing certificates are kept (SNS uses one a region, changed now and then). */
const CERTIFICATE_CACHE_SIZE = 16;
/** How long the default fetcher waits for an answer. */
const FETCH_TIMEOUT_MS = 5_000;
/** A certificate is a couple of kilobytes; a SubscribeURL's answer is a short XML document. */
const MAX_FETCHED_CHARS = 64 * 1024;

const SNS_HOST = /^sns\.[a-z0-9-]+\.amazonaws\.com$/;
const SNS_CHINA_HOST = /^sns\.cn-[a-z0-9-]+\.amazonaws\.com\.cn$/;

/** The digest of each SignatureVersion SNS documents. */
const DIGESTS: Record<string, string> = { '1': 'sha1', '2': 'sha256' };

/** What a subscription's confirmation (or its end's) signs: the same fields for both. */
const CONFIRMATION_FIELDS = [
  'Message',
  'MessageId',
  'SubscribeURL',
  'Timestamp',
  'Token',
  'TopicArn',
  'Type',
] as const;

/** The fields each message type signs, in the order AWS documents for the string to sign. */
const SIGNED_FIELDS = {
  Notification: ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'],
  SubscriptionConfirmation: CONFIRMATION_FIELDS,
  UnsubscribeConfirmation: CONFIRMATION_FIELDS,
} as const;
type SnsType = keyof typeof SIGNED_FIELDS;

/** The fields every message must carry as strings, whatever else its type signs. */
const REQUIRED = [
  'Type',
  'MessageId',
  'TopicArn',
  'Message',
  'Timestamp',
  'SignatureVersion',
  'Signature',
  'SigningCertURL',
] as const;

type SnsMessage = Record<string, unknown> & { [K in (typeof REQUIRED)[number]]: string };

/**
 * The default fetcher: a GET over https only, that follows no redirect, and gives up after 5 s.
 * Its errors name neither the URL nor what answered.
 */
export async function fetchHttpsText(url: URL): Promise<string> {
  if (url.protocol !== 'https:') throw new Error('SNS: only https URLs are fetched');
  const response = await fetch(url, {
    redirect: 'error',
    signal: AbortSignal.timeout(FETCH_TIMEOUT_MS),
  });
  if (!response.ok) throw new Error(`SNS: a fetch was answered ${response.status}`);
  const text = await response.text();
  if (text.length > MAX_FETCHED_CHARS) throw new Error('SNS: a fetched answer was too long');
  return text;
}

/**
 * The URL when it is an https URL of an SNS host with no port and no credentials; undefined
 * otherwise.
 */
export function snsUrl(value: string): URL | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  const plain = url.protocol === 'https:' && !url.port && !url.username && !url.password;
  return plain && (SNS_HOST.test(url.hostname) || SNS_CHINA_HOST.test(url.hostname))
    ? url
    : undefined;
}

/** SES through SNS: POST /bounces/ses. */
export function sesEndpoint(options: SesOptions): ProviderEndpoint {
  const topics = new Set(options.topicArns);
  const fetchText = options.fetchText ?? fetchHttpsText;
  const certificates = certificateCache(fetchText);

  return {
    provider: 'ses',
    async read({ body }): Promise<ReadNotices> {
      const message = snsMessage(body);
      if (!topics.has(message.TopicArn)) throw new Refused('topic', 'SNS: a topic not allowed');
      const digest = own(DIGESTS, message.SignatureVersion);
      if (!digest) throw new Refused('signature', 'SNS: an unknown SignatureVersion');
      const certificateUrl = snsUrl(message.SigningCertURL);
      if (!certificateUrl || !certificateUrl.pathname.endsWith('.pem'))
        throw new Refused('signature', 'SNS: a signing certificate not on an SNS host');
      const subscribeUrl =
        message.Type === 'SubscriptionConfirmation'
          ? snsUrl(String(message.SubscribeURL))
          : undefined;
      if (message.Type === 'SubscriptionConfirmation' && !subscribeUrl)
        throw new Refused('signature', 'SNS: a SubscribeURL not on an SNS host');

      const key = await certificates.get(certificateUrl);
      if (!signatureVerifies(message, digest, key))
        throw new Refused('signature', 'SNS: the signature does not verify');

      if (subscribeUrl) {
        await fetchText(subscribeUrl);
        return { notices: [] };
      }
      if (message.Type === 'UnsubscribeConfirmation') return { notices: [] };
      return { notices: sesNotices(message.MessageId, message.Message) };
    },
  };
}

/** The body as an SNS message of a known type with the fields it signs; else Unreadable. */
function snsMessage(body: Buffer): SnsMessage {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw new Unreadable('SNS: the body is not JSON');
  }
  if (!isRecord(parsed)) throw new Unreadable('SNS: the body is not an object');
  for (const field of REQUIRED)
    if (typeof parsed[field] !== 'string') throw new Unreadable(`SNS: no ${field}`);
  const type = parsed.Type as string;
  if (!own(SIGNED_FIELDS, type)) throw new Unreadable('SNS: an unknown message Type');
  if (type !== 'Notification')
    for (const field of ['SubscribeURL', 'Token'])
      if (typeof parsed[field] !== 'string') throw new Unreadable(`SNS: no ${field}`);
  if (parsed.Subject !== undefined && typeof parsed.Subject !== 'string')
    throw new Unreadable('SNS: a Subject that is not text');
  return parsed as SnsMessage;
}

/** True when the message's Signature is the certificate's over its string to sign. */
function signatureVerifies(message: SnsMessage, digest: string, key: KeyObject): boolean {
  const signature = Buffer.from(message.Signature, 'base64');
  try {
    return verify(digest, Buffer.from(stringToSign(message), 'utf8'), key, signature);
  } catch {
    // A key that is not RSA, or a signature of the wrong length for it.
    return false;
  }
}

/** Each signed field's name and value on lines of their own, a field absent left out. */
function stringToSign(message: SnsMessage): string {
  return SIGNED_FIELDS[message.Type as SnsType]
    .filter((field) => typeof message[field] === 'string')
    .map((field) => `${field}\n${message[field] as string}\n`)
    .join('');
}

/**
 * The public keys of the certificates fetched, by URL, the least recently used forgotten past
 * CERTIFICATE_CACHE_SIZE. Messages arriving together share one fetch; a fetch that fails is
 * forgotten, so SNS's retry fetches again.
 */
function certificateCache(fetchText: FetchText) {
  const keys = new Map<string, Promise<KeyObject>>();
  const load = async (url: URL) => {
    const pem = await fetchText(url);
    try {
      return new X509Certificate(pem).publicKey;
    } catch {
      throw new Error('SNS: the signing certificate is not a certificate');
    }
  };
  return {
    get(url: URL): Promise<KeyObject> {
      const cached = keys.get(url.href);
      if (cached) {
        keys.delete(url.href);
        keys.set(url.href, cached);
        return cached;
      }
      const loading = load(url);
      loading.catch(() => {
        if (keys.get(url.href) === loading) keys.delete(url.href);
      });
      keys.set(url.href, loading);
      if (keys.size > CERTIFICATE_CACHE_SIZE) keys.delete(keys.keys().next().value as string);
      return loading;
    },
  };
}

/** The notices of SES's JSON (a Notification's Message); `id` is the SNS MessageId. */
export function sesNotices(id: string, text: string): BounceNotice[] {
  let ses: unknown;
  try {
    ses = JSON.parse(text);
  } catch {
    throw new Unreadable('SES: the Message is not JSON');
  }
  if (!isRecord(ses)) throw new Unreadable('SES: the Message is not an object');
  const type = ses.notificationType ?? ses.eventType;
  if (typeof type !== 'string') throw new Unreadable('SES: no notificationType or eventType');
  if (type === 'Bounce') return bounceNotices(id, ses.bounce);
  if (type === 'Complaint') return complaintNotices(id, ses.complaint);
  // Delivery, Send, Reject, Open, Click, DeliveryDelay, Rendering Failure, Subscription: no
  // address becomes undeliverable or leaves, so nothing is recorded.
  return [];
}

/** Permanent makes the address undeliverable; Transient and Undetermined count against it. */
const BOUNCE_KINDS: Record<string, BounceNotice['kind']> = {
  Permanent: 'permanent',
  Transient: 'transient',
  Undetermined: 'transient',
};

function bounceNotices(id: string, bounce: unknown): BounceNotice[] {
  if (!isRecord(bounce) || typeof bounce.bounceType !== 'string')
    throw new Unreadable('SES: a Bounce without its bounceType');
  const byType = own(BOUNCE_KINDS, bounce.bounceType) ?? 'ignored';
  const ofMessage =
    typeof bounce.bounceSubType === 'string' && MESSAGE_BOUNCE_SUBTYPES.has(bounce.bounceSubType);
  const kind = byType === 'transient' && ofMessage ? 'ignored' : byType;
  const type = `${word(bounce.bounceType)}/${word(bounce.bounceSubType)}`;
  return recipients(bounce.bouncedRecipients).map((recipient, index) => {
    const status = typeof recipient.status === 'string' ? statusCode(recipient.status) : '';
    return {
      id: `${id}/${index}`,
      email: recipient.emailAddress,
      kind,
      detail: status ? `${type} ${status}` : type,
    };
  });
}

function complaintNotices(id: string, complaint: unknown): BounceNotice[] {
  if (!isRecord(complaint)) throw new Unreadable('SES: a Complaint without its complaint');
  const feedback =
    typeof complaint.complaintFeedbackType === 'string' ? complaint.complaintFeedbackType : '';
  const subType = typeof complaint.complaintSubType === 'string' ? complaint.complaintSubType : '';
  // RFC 6430: `not-spam` reports mail mistakenly marked as spam, the opposite of a complaint.
  const kind = feedback === 'not-spam' ? 'ignored' : 'complaint';
  const detail = ['complaint', feedback, subType].filter(Boolean).map(word).join('/');
  return recipients(complaint.complainedRecipients).map((recipient, index) => ({
    id: `${id}/${index}`,
    email: recipient.emailAddress,
    kind,
    detail,
  }));
}

/** The recipients a bounce or complaint lists, each with its address. */
function recipients(list: unknown): Array<Record<string, unknown> & { emailAddress: string }> {
  if (!Array.isArray(list) || list.length === 0) throw new Unreadable('SES: no recipients listed');
  return list.map((recipient: unknown) => {
    if (!isRecord(recipient) || typeof recipient.emailAddress !== 'string')
      throw new Unreadable('SES: a recipient without its emailAddress');
    return recipient as Record<string, unknown> & { emailAddress: string };
  });
}

/** One of SES's type words ("Permanent", "MailboxFull", "abuse"), or "?" for anything else. */
function word(value: unknown): string {
  return typeof value === 'string' && /^[A-Za-z][A-Za-z0-9-]{0,31}$/.test(value) ? value : '?';
}

/** An enhanced status code ("5.1.1"), or nothing: never the rest of what the MTA wrote. */
function statusCode(value: string): string {
  return /^[245]\.\d{1,3}\.\d{1,3}$/.test(value) ? value : '';
}

/** The table's own entry for a key from the request (never one of Object's properties). */
function own<T>(table: Record<string, T>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}
