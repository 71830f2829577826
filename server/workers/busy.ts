// Whether this process's event loop has been nearly saturated lately: requests are waiting for it.
// A background worker then waits its normal pause between rounds instead of going on at once, so
// a burst of signups is answered first and its mail follows when there is room (decision 0015:
// sending one mail costs a site about ten signups' worth of CPU).
import { performance } from 'node:perf_hooks';

export interface BusySignal {
  busy(): boolean;
  stop(): void;
}

/** Busy while the event loop was in use more than `threshold` of the last `windowMs`. */
export function eventLoopBusy(threshold = 0.8, windowMs = 500): BusySignal {
  let last = performance.eventLoopUtilization();
  let busy = false;
  const timer = setInterval(() => {
    const current = performance.eventLoopUtilization();
    busy = performance.eventLoopUtilization(current, last).utilization > threshold;
    last = current;
  }, windowMs);
  timer.unref();
  return { busy: () => busy, stop: () => clearInterval(timer) };
}
