// The running site's expiry sweep: erases the addresses nobody confirmed in time, through the
// operation in waitlist/address.ts, once a minute and again at once after a full batch.
import { sweepUnconfirmed, SWEEP_BATCH, type AddressDeps } from '../waitlist/address';
import { startPoller, type Poller } from './poller';

/** How often the running site looks for expired unconfirmed addresses. */
const SWEEP_EVERY_MS = 60_000;

interface SweepOptions {
  pollMs?: number;
  /** Injectable so a test can move past the confirmation deadline without waiting. */
  now?: () => number;
}

export function startExpirySweep(
  deps: AddressDeps,
  { pollMs = SWEEP_EVERY_MS, now = Date.now }: SweepOptions = {},
): Poller {
  return startPoller(async () => {
    try {
      return (await sweepUnconfirmed(deps, now())) === SWEEP_BATCH;
    } catch (err) {
      deps.logger.error({ err }, 'expiry sweep failed');
      return false;
    }
  }, pollMs);
}
