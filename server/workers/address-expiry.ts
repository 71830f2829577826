// The running site's expiry sweep: erases the addresses nobody confirmed in time, through the
// operation in waitlist/address.ts, and deletes webhook deliveries past their month of history
// (waitlist/webhooks.ts), the bot guard's expired tokens (store/guard-tokens.ts), the data links
// and requests past their day (store/data-requests.ts) and the providers' bounce ids and
// transient bounces past theirs (store/bounces.ts), once a minute and again at once after a
// full batch. Every replica sweeps: each is a delete of rows past a time, which changes nothing
// when another did it first.
import type { Store } from '../store';
import { sweepUnconfirmed, SWEEP_BATCH, type AddressDeps } from '../waitlist/address';
import { PRUNE_BATCH, pruneWebhookDeliveries } from '../waitlist/webhooks';
import { startPoller, type Poller } from './poller';

/** How often the running site looks for expired unconfirmed addresses. */
const SWEEP_EVERY_MS = 60_000;

interface SweepOptions {
  pollMs?: number;
  /** Injectable so a test can move past the confirmation deadline without waiting. */
  now?: () => number;
}

export function startExpirySweep(
  deps: AddressDeps & {
    store: Pick<Store, 'webhooks' | 'guardTokens' | 'dataRequests' | 'bounces'>;
  },
  { pollMs = SWEEP_EVERY_MS, now = Date.now }: SweepOptions = {},
): Poller {
  /** One task's round: whether it found a full batch, false when it failed (logged). */
  const round = async (name: string, task: () => Promise<boolean>) => {
    try {
      return await task();
    } catch (err) {
      deps.logger.error({ err }, `${name} failed`);
      return false;
    }
  };
  return startPoller(async () => {
    const expired = await round(
      'expiry sweep',
      async () => (await sweepUnconfirmed(deps, now())) === SWEEP_BATCH,
    );
    const pruned = await round(
      'webhook delivery pruning',
      async () => (await pruneWebhookDeliveries(deps, now())) === PRUNE_BATCH,
    );
    const spent = await round(
      'guard token pruning',
      async () => (await deps.store.guardTokens.prune(PRUNE_BATCH)) === PRUNE_BATCH,
    );
    const data = await round(
      'data link pruning',
      async () => (await deps.store.dataRequests.prune(PRUNE_BATCH)) >= PRUNE_BATCH,
    );
    // A delete by time of a month of one site's bounces: never a batch to come back for.
    await round('bounce pruning', async () => {
      await deps.store.bounces.sweep();
      return false;
    });
    return expired || pruned || spent || data;
  }, pollMs);
}
