// The store contract: what the site keeps and how, whichever engine keeps it. SQLite under
// DATA_DIR (one instance) and PostgreSQL at DATABASE_URL (several replicas) both implement it,
// and one contract test suite runs against both, so their behaviour cannot drift. Every method
// is async and resolves only once its write is committed.
import type { LinkCheck, LinkPurpose, LinkRefusal, LinkUse } from '../../shared/address-links';
import type { Signup, SignupRequest } from '../../shared/form-checks';
import type { Webhooks } from './webhook-types';

export interface SignupRow {
  email: string;
  description: string;
  created_at: string;
  invited_at: string | null;
  activated_at: string | null;
  /** Null while the address has not followed its confirmation link (CONFIRM_SIGNUPS=on). */
  confirmed_at: string | null;
  state: SignupState;
}

/**
 * Where a signup stands; each is in exactly one (store/signups.ts, STATE):
 * unconfirmed → waitlisted (confirmed, waiting) → invited → activated, and undeliverable when the
 * mail server refused the address for good before it activated.
 */
export type SignupState = 'unconfirmed' | 'waitlisted' | 'invited' | 'activated' | 'undeliverable';

export const SIGNUP_STATES: readonly SignupState[] = [
  'unconfirmed',
  'waitlisted',
  'invited',
  'activated',
  'undeliverable',
];

export type WaitlistStats = Record<SignupState | 'total', number>;

/**
 * The links a confirmation mail carries: its confirmation token and a leave token, both shown only
 * in it.
 */
export interface ConfirmationTokens {
  confirm: string;
  leave: string;
}

/** The confirmation mail the mail worker writes for a signup that owes one (CONFIRM_SIGNUPS=on). */
export interface ConfirmationMail {
  /** The mail around the tokens (server/mail/confirmation.ts). */
  compose(to: string, tokens: ConfirmationTokens): OutgoingMail;
  /**
   * False for an address no mail can go to as it is written (server/mail/message.ts, isMailable):
   * it is stored unconfirmed with no mail and no link, and erased when a link would have expired.
   */
  canMail(address: string): boolean;
  /**
   * How long the confirmation link works (CONFIRM_WITHIN_HOURS); the address is erased once the
   * last one has expired.
   */
  validMs: number;
}

/** The welcome mail the mail worker writes for a signup that owes one (WELCOME_MAIL=on). */
export interface WelcomeMail {
  /** The mail around the leave token (server/mail/welcome.ts). */
  compose(to: string, leaveToken: string): OutgoingMail;
  /** As ConfirmationMail's: an address no mail can go to as written gets none. */
  canMail(address: string): boolean;
}

export interface Signups {
  /**
   * Adds a signup in one statement that writes one row, new or not, so both cost the same; true if
   * new. A repeat (same address, any case or spacing) keeps the row and clears an undeliverable
   * mark. With `confirm`, a new signup is unconfirmed and owes a confirmation mail, recorded in
   * that same statement (links.mailConfirmations writes it); a repeat of an address still
   * unconfirmed owes a new one at most once an hour; a confirmed one is owed nothing. With
   * `welcome` and without `confirm`, a new signup owes a welcome mail, recorded the same way
   * (links.mailWelcomes writes it); a repeat owes none.
   */
  add(signup: Signup, options?: { confirm?: boolean; welcome?: boolean }): Promise<boolean>;
  count(): Promise<number>;
  /** Newest first; `since` is an ISO date or timestamp. */
  list(since?: string): Promise<SignupRow[]>;
  /** The same rows as they are read, never all held at once (export of millions of rows). */
  stream(since?: string): AsyncIterable<SignupRow>;
  /**
   * The `limit` oldest waitlisted addresses: confirmed, neither invited nor activated, not
   * undeliverable (invite --next).
   */
  oldestWaiting(limit: number): Promise<string[]>;
  /** Totals by state; each signup counts in exactly one. */
  stats(): Promise<WaitlistStats>;
  /**
   * Up to `limit` addresses still unconfirmed whose every confirmation link has expired, oldest
   * first; only signups created at or before `createdBefore` (ISO) are looked at (the expiry
   * sweep).
   */
  expiredUnconfirmed(createdBefore: string, limit: number): Promise<string[]>;
  /**
   * One page of the console's table: addresses containing `q` (any case), in `state` if given,
   * newest or oldest first, `limit` rows after the keyset `after` (the last row of the page
   * before).
   */
  page(options: SignupPageQuery): Promise<(SignupRow & { id: number })[]>;
  /**
   * Per UTC day from `sinceDay` (YYYY-MM-DD) on: signups, invitations and activations that day;
   * days without any are left out.
   */
  daily(sinceDay: string): Promise<DailyCounts[]>;
  /**
   * Confirmation mails owed and not written yet: a few while the worker keeps up, growing when it
   * does not.
   */
  confirmationsOwed(): Promise<number>;
  /** Welcome mails owed and not written yet (WELCOME_MAIL=on). */
  welcomesOwed(): Promise<number>;
}

export interface SignupPageQuery {
  q?: string;
  state?: SignupState;
  order: 'newest' | 'oldest';
  limit: number;
  after?: { createdAt: string; id: number };
}

export interface DailyCounts {
  day: string;
  signups: number;
  invited: number;
  activated: number;
}

/** The links mailed to an address (confirm, leave): tokens kept only as hashes. */
export interface AddressLinks {
  /** What a token is worth for `purpose`, without using it. */
  check(purpose: LinkPurpose, token: string): Promise<LinkCheck>;
  /**
   * Confirms the address a confirmation link was mailed to, and spends the link. With `welcome`,
   * the address's first confirmation owes a welcome mail, recorded in the same transaction.
   */
  confirm(token: string, options?: { welcome?: boolean }): Promise<LinkUse>;
  /** The address a good leave link belongs to; the caller erases it (waitlist/remove.ts). */
  leaver(token: string): Promise<{ ok: true; email: string } | { ok: false; refusal: LinkRefusal }>;
  /**
   * Writes the confirmation mails owed (up to `limit`, oldest first): for each, new confirm and
   * leave tokens and the mail, queued and claimed for the caller, in one transaction that also
   * clears what was owed. On PostgreSQL, rows another replica is writing are passed over.
   */
  mailConfirmations(limit: number, mail: ConfirmationMail): Promise<QueuedMail[]>;
  /**
   * Writes the welcome mails owed (up to `limit`, oldest first) as mailConfirmations writes
   * confirmations, each with a new leave token. An address no longer waitlisted by then (invited,
   * undeliverable) is owed nothing more and gets none.
   */
  mailWelcomes(limit: number, mail: WelcomeMail): Promise<QueuedMail[]>;
  /**
   * Records that /leave was asked for a link to `email`, with one insert whether or not the
   * address is stored, so the answer costs the same either way. QueueFullError past the mail
   * queue's size (for every address alike).
   */
  askLeaveLink(email: string): Promise<void>;
  /**
   * Answers the recorded requests (up to `limit`, oldest first) in one transaction that deletes
   * them: for an address on the waitlist, a new leave link and its mail, queued and claimed for the
   * caller, unless three went to it within the hour or the mail queue is full (`queueFull`); for
   * any other, nothing. On PostgreSQL, requests another replica is answering are passed over.
   */
  mailLeaveLinks(
    limit: number,
    compose: (to: string, leaveToken: string) => OutgoingMail,
  ): Promise<LeaveLinksMailed>;
}

/** What one round of mailLeaveLinks did. */
export interface LeaveLinksMailed {
  mail: QueuedMail[];
  /** Requests answered (and deleted), mailed or not. */
  requests: number;
  /** Requests for a stored address that got no mail because the mail queue was full. */
  queueFull: number;
}

/** issueKey for an address that is not on the waitlist. */
export class UnknownEmailError extends Error {}

/** The OrgNote account a subscription is bound to: its sign-in provider and its id there. */
export interface Account {
  provider: string;
  id: string;
  email?: string;
}

/** A message ready for the transport: everything the mail server gets, fixed when it is queued. */
export interface OutgoingMail {
  from: string;
  to: string;
  subject: string;
  text: string;
  html: string;
  messageId: string;
  /** ISO time for the Date header. */
  date: string;
  /**
   * Further header fields, written as given (List-Unsubscribe and List-Unsubscribe-Post, RFC 8058).
   */
  headers?: Record<string, string>;
}

export interface QueuedMail {
  id: number;
  message: OutgoingMail;
  attempts: number;
}

export type Invitation =
  | { outcome: 'invited'; email: string; mail: QueuedMail }
  | { outcome: 'skipped'; email: string }
  /** Not confirmed yet (CONFIRM_SIGNUPS=on): never invited, named or not. */
  | { outcome: 'unconfirmed'; email: string }
  | { outcome: 'not-on-waitlist'; email: string };

/**
 * Writes an invitation around its secrets: the activation key, and the leave link's token
 * (List-Unsubscribe).
 */
export type ComposeInvitation = (to: string, key: string, leaveToken: string) => OutgoingMail;

export type Activation =
  | { outcome: 'active'; email: string }
  | { outcome: 'invalid' }
  | { outcome: 'bound-elsewhere' }
  | { outcome: 'account-has-one' };

export interface Subscriptions {
  /** Creates a new activation key for a waitlisted address and returns it (shown once). */
  issueKey(email: string): Promise<string>;
  /**
   * Invites a waitlisted address: revokes any earlier key (and drops a first mail still waiting),
   * makes a new key and queues the mail `compose` writes around it, all in one transaction. An
   * address already invited is skipped unless `again`; an unconfirmed one always is. An
   * undeliverable one is invited (the operator named it), and the mark is cleared. The queued mail
   * is claimed for the caller.
   */
  invite(
    email: string,
    options: { again: boolean; compose: ComposeInvitation },
  ): Promise<Invitation>;
  /**
   * Checks a key against the address it was issued for and activates that subscription, bound to
   * `account` when one is given. The same account (or none) may repeat it.
   */
  activate(email: string, key: string, account?: Account): Promise<Activation>;
  /** Where an address stands, without changing anything (invite --dry-run). */
  stateOf(email: string): Promise<SignupState | undefined>;
  /** The subscription bound to an account, if any. */
  ofAccount(provider: string, id: string): Promise<{ email: string } | undefined>;
}

export interface OutboxItem {
  id: number;
  request: SignupRequest;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  createdAt: string;
  /** 'dead': older than the maximum age; kept for the operator (outbox retry <id>). */
  state: 'pending' | 'dead';
}

export interface Outbox {
  /** Stores a signup request for later delivery; QueueFullError past the configured size. */
  enqueue(request: SignupRequest): Promise<number>;
  /** Claims up to `limit` due items for one lease: no other replica takes them meanwhile. */
  claim(limit: number): Promise<OutboxItem[]>;
  /**
   * The backend took the item. Like every outcome, it counts only while this store instance's claim
   * is the current one (leases.ts): false when another worker has claimed the item since.
   */
  delivered(id: number): Promise<boolean>;
  /**
   * A failed attempt: due again after the backoff, or dead once older than the maximum age. False
   * as for delivered.
   */
  failed(item: OutboxItem, error: string): Promise<boolean>;
  /** Pending and dead items, oldest first. */
  all(): Promise<OutboxItem[]>;
  /** Pending items. */
  depth(): Promise<number>;
  /** Dead items, waiting for the operator (outbox retry <id>). */
  deadCount(): Promise<number>;
  /** When the next pending item is due, or undefined when none is. */
  nextDueAt(): Promise<number | undefined>;
  /** Makes a dead item pending again, due now. False if there is no dead item with that id. */
  retry(id: number): Promise<boolean>;
}

export type MailState = 'queued' | 'sent' | 'failed' | 'dead';

/** What `mail` lists: no body, no key. */
export interface MailSummary {
  id: number;
  to: string;
  state: MailState;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  createdAt: string;
}

export interface MailQueue {
  /** How long a claim lasts unless renewed, ms (QueueLimits.mailLeaseMs). */
  readonly leaseMs: number;
  /** Claims up to `limit` due messages for one lease. */
  claim(limit: number): Promise<QueuedMail[]>;
  /**
   * Extends this instance's claim on a message by a whole lease from now, while its send goes on.
   * False when it holds no claim on it, or another sender has claimed it since (leases.ts).
   */
  renew(id: number): Promise<boolean>;
  /**
   * False when the row was no longer queued (another sender finished it, or it was erased) or
   * another sender has claimed it since this instance's lease ran out (leases.ts).
   */
  sent(id: number): Promise<boolean>;
  /** False once the message is erased (its address left or was removed) or never was. */
  exists(id: number): Promise<boolean>;
  /**
   * Refused for good (a 5xx for this message): recorded, never retried. `undeliverable`: the server
   * refused the recipient itself (a 5xx to RCPT TO), so its signup is marked undeliverable too.
   */
  failed(id: number, error: string, undeliverable?: boolean): Promise<void>;
  /**
   * A temporary failure: due again after the backoff (or dead past the maximum age); returns when.
   */
  retry(item: QueuedMail, error: string): Promise<number>;
  /** Gives a claimed message back unsent (its sender knows the server is down). */
  release(id: number): Promise<void>;
  /** Queued, failed and dead messages, oldest first. */
  pending(): Promise<MailSummary[]>;
  counts(): Promise<Record<MailState, number>>;
  /** Makes a dead message queued again, due now. False if there is no dead message with that id. */
  requeue(id: number): Promise<boolean>;
}

export interface Erased {
  signup: boolean;
  keys: number;
  /** Ids of the removed mail, so the caller can delete their .eml copies too. */
  mailIds: number[];
  outbox: number;
}

/** Hits per key in fixed one-minute windows, shared by every replica using the store. */
export interface RateCounter {
  /**
   * Counts one hit for `key` in the current window; resolves with the window's total and its end.
   */
  hit(key: string, windowMs: number): Promise<{ count: number; resetAt: number }>;
}

/** An operator's account of the console, as `waitlist admin list` shows it. */
export interface AdminAccount {
  email: string;
  createdAt: string;
  /** Two-factor authentication enrolled: a login needs the code. */
  totp: boolean;
}

/** What a login checks against. */
export interface AdminCredentials {
  email: string;
  passwordHash: string;
  totpSecret: string | null;
  /**
   * What every device cookie of the account signs; a new password or second factor changes it
   * ('' for an account from before device cookies, until then).
   */
  deviceGeneration: string;
}

export interface Admins {
  /** False when the account exists already (any case or spacing). */
  add(email: string, passwordHash: string): Promise<boolean>;
  list(): Promise<AdminAccount[]>;
  count(): Promise<number>;
  /** Its sessions and device cookies go with it. False when there is no such account. */
  remove(email: string): Promise<boolean>;
  /**
   * A new password hash; every session and device cookie of the account ends. False when there is
   * no such account.
   */
  setPassword(email: string, passwordHash: string): Promise<boolean>;
  /**
   * Enrols (or with null, drops) two-factor authentication; every session and device cookie of the
   * account ends, and the new secret starts with no step accepted. False when there is no such
   * account.
   */
  setTotp(email: string, secret: string | null): Promise<boolean>;
  /**
   * Claims a TOTP time step for a login: true only when it is later than every step the account
   * accepted before (RFC 6238 §5.2: a code works once). Of two concurrent claims of one step,
   * whichever replica makes them, one is true.
   */
  acceptTotpStep(email: string, step: number): Promise<boolean>;
  credentials(email: string): Promise<AdminCredentials | undefined>;
}

/** Console sessions, kept only as the SHA-256 of their id. */
export interface AdminSessions {
  start(email: string, idHash: string): Promise<void>;
  /**
   * The account of a live session, seen now: undefined when the session is unknown, has been idle
   * longer than `idleMs` or is older than `maxMs` (then it is deleted).
   */
  touch(
    idHash: string,
    limits: { idleMs: number; maxMs: number },
  ): Promise<{ email: string } | undefined>;
  end(idHash: string): Promise<void>;
}

/**
 * Login attempts per key (an account's untrusted attempts, a client IP, a trusted browser) in a
 * sliding window (the current fixed window's count plus the previous one's, weighed by how much of
 * it the last windowMs still covers), shared by every replica. An attempt is counted before its
 * password is checked, so a burst of a hundred at once checks only as many as the limit allows; a
 * successful one is taken back, so only failures stay counted. A refused attempt is not counted:
 * a flood cannot push the end of the lock further away.
 */
export interface LoginThrottle {
  /**
   * Counts one attempt for each key, unless one of them is at the limit already. A refusal
   * writes nothing: this process remembers a key at the limit for a few seconds and refuses it
   * again without asking the store. `retryAfterMs`: how soon the worst key falls below the limit
   * if nothing more is counted; `window`: the start of the fixed window it was refused in;
   * `remembered`: the refusal came from this process's memory, not from the store.
   */
  attempt(
    keys: string[],
    limits: { windowMs: number; limit: number },
  ): Promise<
    | { allowed: true }
    | { allowed: false; retryAfterMs: number; window: number; remembered: boolean }
  >;
  /** Takes back the attempt that succeeded. */
  succeeded(keys: string[], windowMs: number): Promise<void>;
  /**
   * Forgets every attempt of these keys, here and in the store (another replica's memory lets go
   * within seconds).
   */
  clear(keys: string[]): Promise<void>;
}

/** Keys the console keeps in the store, made by whichever replica needs one first. */
export interface ConsoleKeys {
  /** The key of that name: 32 random bytes as base64url, the same on every replica, for good. */
  get(name: string): Promise<string>;
}

export interface AuditEntry {
  id: string;
  at: string;
  account: string;
  action: string;
  /** How many addresses the action touched; the addresses themselves are never recorded. */
  addresses: number;
  /**
   * The client address of the request that acted; null for the CLI, and once AUDIT_CLIENT_DAYS
   * have passed.
   */
  client: string | null;
}

export interface AuditLog {
  /** `client` is absent when no request acted (the CLI). */
  record(
    entry: Pick<AuditEntry, 'account' | 'action' | 'addresses'> & { client?: string },
  ): Promise<void>;
  /**
   * Records the entry unless the account already has an entry with this action at or after
   * `since`: one entry per window however often the action repeats. True when it recorded.
   */
  recordOnce(
    entry: Pick<AuditEntry, 'account' | 'action' | 'addresses'> & { client?: string },
    since: string,
  ): Promise<boolean>;
  /** Newest first, `limit` at a time; `before` is the last entry of the page before (keyset). */
  list(options: { limit: number; before?: Pick<AuditEntry, 'at' | 'id'> }): Promise<AuditEntry[]>;
  /** Walks the hash chain from its first entry, and stops at the first link that does not hold. */
  verify(): Promise<AuditVerdict>;
}

/**
 * What a walk of the audit log's chain found. `unchained`: entries from before the chain began
 * (schema 8 of SQLite, 5 of PostgreSQL), which it does not cover.
 */
export type AuditVerdict =
  | { kind: 'intact'; verified: number; unchained: number }
  | {
      kind: 'broken';
      verified: number;
      unchained: number;
      /** The first entry whose link does not hold. */
      entry: Pick<AuditEntry, 'id' | 'at'>;
      /**
       * 'changed': its fields are not what was hashed; 'gap': the entry before it is not the one
       * it followed (deleted, or changed).
       */
      reason: 'changed' | 'gap';
    };

/** The bot guard's spent tokens (guard-tokens.ts), shared by every replica. */
export interface GuardTokens {
  /**
   * Counts one use of `token` (a solved proof-of-work challenge, a form's signed issue time),
   * kept until `expiresAt` (ms): true while its uses are within `limit` (1: once only).
   */
  use(token: string, limit: number, expiresAt: number): Promise<boolean>;
  /** Deletes up to `limit` tokens past their expiry; how many. */
  prune(limit: number): Promise<number>;
}

/** Why an address is erased: its `signup.left` webhook event says it. */
export type ErasureReason = 'left' | 'removed' | 'expired';

export interface EraseOptions {
  /**
   * Only when it is still unconfirmed with every confirmation link expired, checked under the
   * row's lock (the sweep); the reason is then 'expired'.
   */
  onlyIfExpired?: boolean;
  /** 'removed' (an operator) unless given. */
  reason?: ErasureReason;
}

/** The `signup.created` webhook events new signups owe (webhook-events.ts). */
export interface SignupEvents {
  /**
   * Writes up to `limit` owed events, oldest first, in the transaction that clears their marks;
   * how many. Signups another replica's round holds are passed over.
   */
  writeOwedCreations(limit: number): Promise<number>;
}

export interface Store {
  readonly engine: 'sqlite' | 'postgres';
  signups: Signups;
  subscriptions: Subscriptions;
  outbox: Outbox;
  mail: MailQueue;
  /** The per-client signup counters (SIGNUP_RATE_LIMIT), shared by every replica on the store. */
  rate: RateCounter;
  links: AddressLinks;
  admins: Admins;
  sessions: AdminSessions;
  loginThrottle: LoginThrottle;
  consoleKeys: ConsoleKeys;
  audit: AuditLog;
  /** Outgoing webhooks: the endpoints, and the deliveries waiting for them (webhooks.ts). */
  webhooks: Webhooks;
  signupEvents: SignupEvents;
  guardTokens: GuardTokens;
  /**
   * Deletes everything kept about an address (waitlist remove, a leave link, the expiry sweep),
   * and queues its `signup.left` webhook event.
   */
  erase(email: string, options?: EraseOptions): Promise<Erased>;
  /**
   * A consistent copy of the whole store in one file, safe while the site runs (waitlist backup).
   * Only engines that keep a file have it: PostgreSQL is backed up with pg_dump
   * (docs/operating.md).
   */
  backup?(file: string): Promise<void>;
  /** Resolves when the store answers and its schema is current (GET /readyz). */
  ping(): Promise<void>;
  /** The schema version the store is at (0: none yet), beside the one this release migrates to. */
  schema(): Promise<{ found: number; release: number }>;
  close(): Promise<void>;
}

/**
 * The store cannot take this now; try again later. Handlers answer 503 with Retry-After and this
 * message (it names no internals), never a 2xx for something not stored.
 */
export class UnavailableError extends Error {
  readonly unavailable = true;
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
    this.name = 'UnavailableError';
  }
}

/** A queue is at its configured size: the new item is refused (503), never dropped silently. */
export class QueueFullError extends UnavailableError {
  constructor(readonly queue: 'outbox' | 'mail') {
    super(
      queue === 'outbox'
        ? 'Too many signups are waiting for the backend; please try again later'
        : 'Too many invitations are waiting to be sent',
      60,
    );
    this.name = 'QueueFullError';
  }
}

/** The database did not answer (PostgreSQL down or unreachable, or too slow). */
export class StoreUnavailableError extends UnavailableError {
  constructor(readonly cause?: unknown) {
    super('The waitlist is unavailable right now; please try again shortly', 5);
    this.name = 'StoreUnavailableError';
  }
}

/**
 * Queue bounds, from the settings (OUTBOX_MAX_ITEMS, MAIL_QUEUE_MAX_ITEMS, QUEUE_MAX_AGE_HOURS).
 */
export interface QueueLimits {
  outboxMaxItems: number;
  mailMaxItems: number;
  maxAgeMs: number;
  /**
   * How long a claimed outbox item stays with its worker: longer than any delivery can take
   * (UPSTREAM_TIMEOUT_MS bounds each one; leases.ts), short enough that a replica killed
   * mid-delivery holds its items back only briefly.
   */
  outboxLeaseMs: number;
  /** The same for a claimed message, from the mail server's send timeout (SMTP_TIMEOUT_MS). */
  mailLeaseMs: number;
}
