// The store's rules, built once on an engine's Sql: all of a Store but what each engine does its
// own way (rate counters, readiness, backup, closing).
import { createAdminSessions } from './admin-sessions';
import { createAddressLinks, createLinkMail } from './address-links';
import { createAdmins } from './admins';
import { createAuditLog } from './audit-log';
import { createBounces } from './bounces';
import { createConsoleKeys } from './console-keys';
import { createDataRequests } from './data-requests';
import { createErasure } from './erasure';
import { createGuardTokens } from './guard-tokens';
import { createSignupImports } from './imports';
import type { QueueLimits } from './limits';
import { createLoginThrottle } from './login-throttle';
import { createMailQueue } from './mail-queue';
import { createOutbox } from './outbox';
import { createSignups } from './signups';
import type { Sql } from './sql';
import { createSubscriptions } from './subscriptions';
import { createAddressHash, createSuppressions } from './suppressions';
import type { Store } from './types';
import { createWebhooks } from './webhooks';
import { createSignupEvents } from './webhooks/signup-events';

export type StoreRules = Omit<Store, 'engine' | 'rate' | 'backup' | 'ping' | 'schema' | 'close'>;

export function createStoreRules(sql: Sql, limits: QueueLimits, now: () => number): StoreRules {
  const mail = createMailQueue(sql, limits, now);
  const hashAddress = createAddressHash(sql);
  const audit = createAuditLog(sql, now);
  return {
    signups: createSignups(sql, hashAddress, now),
    imports: createSignupImports(sql, now),
    addressLinks: createAddressLinks(sql, now, createLinkMail(sql, mail, limits, now)),
    admins: createAdmins(sql, now),
    sessions: createAdminSessions(sql, now),
    loginThrottle: createLoginThrottle(sql, now),
    consoleKeys: createConsoleKeys(sql, now),
    audit,
    dataRequests: createDataRequests(sql, mail, audit, limits, now),
    subscriptions: createSubscriptions(sql, mail, now),
    outbox: createOutbox(sql, limits, now),
    mail,
    webhooks: createWebhooks(sql, now),
    signupEvents: createSignupEvents(sql),
    guardTokens: createGuardTokens(sql, now),
    suppressions: createSuppressions(sql, hashAddress, now),
    erase: createErasure(sql, hashAddress, now),
    bounces: createBounces(sql, hashAddress, audit, mail, now),
  };
}
