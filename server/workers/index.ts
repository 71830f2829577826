// The running site's background workers, wired from the settings in one place: the mail worker
// (the confirmations and welcomes signups are due, the links /leave and /privacy were asked for,
// and the invitations a CLI run could not send), the webhook worker, the expiry sweep and, with
// BACKEND_URL, the outbox. index.ts starts them beside the HTTP server; tests start them the same
// way, with a long poll so that rounds run when the test wakes or flushes them.
import type { Config } from '../config';
import type { Logger } from '../logger';
import { confirmationMailFor } from '../mail/confirmation';
import { dataLinkMailFor } from '../mail/data-link';
import { leaveLinkMailFor } from '../mail/leave-link';
import { createMailer } from '../mail/transport';
import { welcomeMailFor } from '../mail/welcome';
import { NO_METRICS, type Metrics } from '../metrics';
import type { Store } from '../store';
import { startExpirySweep } from './address-expiry';
import { startMailWorker } from './mail-worker';
import { startOutboxWorker } from './outbox-worker';
import type { Poller } from './poller';
import { startWebhookWorker } from './webhook-worker';

export interface WorkerDeps {
  config: Config;
  store: Store;
  logger: Logger;
  metrics?: Metrics;
  /** How often each worker looks for due work on its own (a wake starts a round at once). */
  pollMs?: number;
  /** Whether the event loop is saturated, so mail waits for signups (default: busy.ts's gauge). */
  busy?: () => boolean;
}

export interface Workers {
  /** Starts a mail round now: a request queued mail or made some due. Absent with BACKEND_URL. */
  wakeMail?: () => void;
  /** Starts a webhook round now: a request made events due. */
  wakeWebhooks: () => void;
  /** Runs every worker's rounds until none finds work left (for tests and the CLI). */
  flush(): Promise<void>;
  /**
   * No new round starts; the mail pool closes, failing the sends still waiting for a connection
   * (they go back to the queue), and after `graceMs` it ends the ones a stalled server holds too.
   */
  stop(graceMs: number): Promise<void>;
}

export function startWorkers({
  config,
  store,
  logger,
  metrics = NO_METRICS,
  pollMs,
  busy,
}: WorkerDeps): Workers {
  // With BACKEND_URL the backend owns the signups: the site writes no mail of its own.
  const mailer = config.backendUrl ? undefined : createMailer(config);
  const confirmationMail = confirmationMailFor(config);
  const welcomeMail = welcomeMailFor(config);
  const leaveLinkMail = leaveLinkMailFor(config);
  const dataLinkMail = dataLinkMailFor(config);
  const mail =
    mailer &&
    startMailWorker({
      queue: store.mail,
      confirmations: confirmationMail && { links: store.addressLinks, mail: confirmationMail },
      welcomes: welcomeMail && { links: store.addressLinks, mail: welcomeMail },
      leaveLinks: leaveLinkMail && { links: store.addressLinks, compose: leaveLinkMail },
      dataLinks: dataLinkMail && { requests: store.dataRequests, compose: dataLinkMail },
      mailer,
      logger,
      metrics,
      pollMs,
      busy,
    });
  // With BACKEND_URL no signup is stored here, and the sweep only prunes webhook deliveries.
  const sweep = startExpirySweep({ store, config, logger, metrics }, { pollMs });
  const webhooks = startWebhookWorker({
    webhooks: store.webhooks,
    signupEvents: store.signupEvents,
    allowPrivate: config.webhooksAllowPrivate,
    logger,
    metrics,
    pollMs,
  });
  const outbox = config.backendUrl
    ? startOutboxWorker({
        outbox: store.outbox,
        backendUrl: config.backendUrl,
        timeoutMs: config.backendTimeoutMs,
        logger,
        metrics,
        pollMs,
      })
    : undefined;
  const all = [mail, sweep, webhooks, outbox].filter((w): w is Poller => w !== undefined);
  return {
    wakeMail: mail?.wake,
    wakeWebhooks: webhooks.wake,
    async flush() {
      await Promise.all(all.map((worker) => worker.flush()));
    },
    async stop(graceMs) {
      const stopped = Promise.all(all.map((worker) => worker.stop()));
      mailer?.close();
      const force = setTimeout(() => mailer?.close(true), graceMs);
      force.unref();
      await stopped;
      clearTimeout(force);
    },
  };
}
