// What a mail provider tells the site about mail it accepted from us and could not deliver, or that
// its recipient marked as spam (decision 0038). Each provider has a module here that checks a
// request is the provider's own (its signature or credentials) and reads what it reports as
// notices, one an address; bounces/index.ts serves them at POST /bounces/<provider>, and the store
// (store/bounces.ts) applies each notice once.
import type { IncomingHttpHeaders } from 'node:http';

export const BOUNCE_PROVIDERS = ['ses', 'postmark', 'sendgrid', 'mailgun', 'resend'] as const;
export type BounceProvider = (typeof BOUNCE_PROVIDERS)[number];

/** How operators know each provider (the console, the docs). */
export const BOUNCE_PROVIDER_NAMES: Readonly<Record<BounceProvider, string>> = {
  ses: 'Amazon SES',
  postmark: 'Postmark',
  sendgrid: 'SendGrid',
  mailgun: 'Mailgun',
  resend: 'Resend',
};

/**
 * What a notice does to an address: `permanent` makes it undeliverable at once, `transient`
 * counts against it (three in 7 days make it undeliverable), `complaint` is a leave.
 */
export const BOUNCE_KINDS = ['permanent', 'transient', 'complaint'] as const;
export type BounceKind = (typeof BOUNCE_KINDS)[number];

export interface BounceNotice {
  /**
   * The provider's id for this notice, unique within the provider: a notice delivered again (a
   * retry, another replica) carries the same id and is applied once. One notification about
   * several recipients gives each its own id (the message id and the recipient's place in it).
   */
  id: string;
  /** The recipient the notice is about, as the provider wrote it. */
  email: string;
  /** `ignored`: the provider reports something that changes nothing (a delay, an open). */
  kind: BounceKind | 'ignored';
  /**
   * The provider's own words for it, short, never an address: its type and subtype or code
   * ("Permanent/General", "HardBounce", "550 5.1.1"). Shown in the console beside the mark.
   */
  detail: string;
}

/** A request as it reached POST /bounces/<provider>: its headers and its body, unparsed. */
export interface ProviderRequest {
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface ReadNotices {
  notices: BounceNotice[];
  /**
   * Mailgun's signature token, which signs one event: the store keeps it beside that event's
   * id, and refuses it with any other event.
   */
  token?: { value: string; notice: string };
}

/** Why a request was refused with 401: the label of bounce_refusals_total. */
export const REFUSAL_REASONS = ['credentials', 'signature', 'stale', 'topic', 'replay'] as const;
export type RefusalReason = (typeof REFUSAL_REASONS)[number];

/** Not the provider's: answered 401, counted, nothing changes. */
export class Refused extends Error {
  constructor(
    readonly reason: RefusalReason,
    message: string,
  ) {
    super(message);
    this.name = 'Refused';
  }
}

/** The provider's, verified, but not something it sends (not JSON, a field missing): a 400. */
export class Unreadable extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'Unreadable';
  }
}

/** One provider's endpoint, made from its settings. */
export interface ProviderEndpoint {
  provider: BounceProvider;
  /**
   * Checks the request is the provider's (throws Refused), and reads its notices (throws
   * Unreadable). `now` is the clock a signed timestamp is compared with (5 minutes either way).
   */
  read(request: ProviderRequest, now: number): Promise<ReadNotices>;
}

/** How far a signed timestamp may be from now, either way. */
export const TIMESTAMP_TOLERANCE_MS = 5 * 60_000;
