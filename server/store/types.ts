// The store contract: what the site keeps and how, whichever engine keeps it. SQLite under
// DATA_DIR (one instance) and PostgreSQL at DATABASE_URL (several replicas) both implement it,
// and one contract test suite runs against both, so their behaviour cannot drift. Every method
// is async and resolves only once its write is committed. Each part's interface lives beside the
// rules that implement it (signups.ts, subscriptions.ts, outbox.ts, mail-queue.ts, …); this file
// puts them together, with the one part each engine keeps its own way (RateCounter).
import type { AdminSessions } from './admin-sessions';
import type { AddressLinks } from './address-links';
import type { Admins } from './admins';
import type { Bounces } from './bounces';
import type { AuditLog } from './audit-log';
import type { ConsoleKeys } from './console-keys';
import type { DataRequests } from './data-requests';
import type { Erased, EraseOptions } from './erasure';
import type { GuardTokens } from './guard-tokens';
import type { SignupImports } from './imports';
import type { LoginThrottle } from './login-throttle';
import type { MailQueue } from './mail-queue';
import type { Outbox } from './outbox';
import type { Signups } from './signups';
import type { Subscriptions } from './subscriptions';
import type { Suppressions } from './suppressions';
import type { SignupEvents, Webhooks } from './webhooks';

/** Hits per key in fixed one-minute windows, shared by every replica using the store. */
export interface RateCounter {
  /**
   * Counts one hit for `key` in the current window; resolves with the window's total and its end.
   */
  hit(key: string, windowMs: number): Promise<{ count: number; resetAt: number }>;
}

export interface Store {
  readonly engine: 'sqlite' | 'postgres';
  signups: Signups;
  /** Lists brought in from a file (waitlist import), and their confirmation mails on request. */
  imports: SignupImports;
  subscriptions: Subscriptions;
  outbox: Outbox;
  mail: MailQueue;
  /** The per-client signup counters (SIGNUP_RATE_LIMIT), shared by every replica on the store. */
  rate: RateCounter;
  addressLinks: AddressLinks;
  /** A person's own data: /privacy's requests, the links they mail, the download (0036). */
  dataRequests: DataRequests;
  admins: Admins;
  sessions: AdminSessions;
  loginThrottle: LoginThrottle;
  consoleKeys: ConsoleKeys;
  audit: AuditLog;
  /** Outgoing webhooks: the endpoints, and the deliveries waiting for them (webhooks/). */
  webhooks: Webhooks;
  signupEvents: SignupEvents;
  guardTokens: GuardTokens;
  /** Addresses never to be brought back by an import, as keyed hashes (suppressions.ts). */
  suppressions: Suppressions;
  /** What mail providers report after they took our mail: bounces and complaints (bounces.ts). */
  bounces: Bounces;
  /**
   * Deletes everything kept about an address (waitlist remove, a leave link, the expiry sweep),
   * queues its `signup.left` webhook event and suppresses it.
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
