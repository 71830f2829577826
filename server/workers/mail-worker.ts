// Background delivery of the site's mail: every poll (or 50 ms after a request wakes it) it writes
// the confirmations and welcomes signups are due and the links /leave and /privacy were asked for
// (leave links, data links), claims what else is due (messages that failed for a while, or that a
// CLI run left behind) and sends it through the pool, a batch at a time. A full batch is followed
// at once by the next one, unless the server was unavailable: then the rest waits for the next
// poll and its own backoff, rather than thousands of due messages each meeting the same closed
// port in a burst. While the site is saturated, rounds keep their pause: signups are answered
// first (busy.ts).
import { eventLoopBusy } from './busy';
import { startPoller, wakeLater, type Poller } from './poller';
import type { Logger } from '../logger';
import { NO_METRICS, type DeliveryResult, type Metrics } from '../metrics';
import type {
  AddressLinks,
  ComposeLeaveMail,
  ConfirmationMail,
  WelcomeMail,
} from '../store/address-links';
import type { ComposeDataMail, DataRequests } from '../store/data-requests';
import type { MailQueue, QueuedMail } from '../store/mail-queue';
import { sendClaimed, type MailOutcome } from '../mail/send';
import { SMTP_POOL_SIZE, type Mailer } from '../mail/transport';

interface MailWorkerOptions {
  queue: MailQueue;
  /**
   * Confirmations due to signups (CONFIRM_SIGNUPS=on) and the mail to write for them: each round
   * writes those first, then claims what else is due. Without it, none are written.
   */
  confirmations?: { links: Pick<AddressLinks, 'mailConfirmations'>; mail: ConfirmationMail };
  /** The welcome mails signups are due (WELCOME_MAIL=on), written next. Without it, none are. */
  welcomes?: { links: Pick<AddressLinks, 'mailWelcomes'>; mail: WelcomeMail };
  /**
   * The requests /leave recorded and the mail to write for them: each round answers those next.
   * Without it (no SITE_URL), they wait.
   */
  leaveLinks?: {
    links: Pick<AddressLinks, 'mailLeaveLinks'>;
    compose: ComposeLeaveMail;
  };
  /**
   * The requests /privacy recorded for a data link and the mail to write for them, answered after
   * the leave links. Without it (no SITE_URL), they wait, and the expiry sweep prunes them.
   */
  dataLinks?: {
    requests: Pick<DataRequests, 'mailLinks'>;
    compose: ComposeDataMail;
  };
  mailer: Mailer;
  logger: Logger;
  /** How often to look for due messages. */
  pollMs?: number;
  metrics?: Pick<Metrics, 'delivery' | 'address'>;
  /**
   * Whether the process is saturated (requests waiting); by default, its event loop's use over the
   * last half second.
   */
  busy?: () => boolean;
}

const MAIL_RESULT = {
  sent: 'delivered',
  queued: 'retry',
  failed: 'failed',
} as const satisfies Record<MailOutcome, DeliveryResult>;

/** Twice the pool, so a connection that frees up finds the next message waiting. */
const BATCH = SMTP_POOL_SIZE * 2;

export function startMailWorker({
  queue,
  confirmations,
  welcomes,
  leaveLinks,
  dataLinks,
  mailer,
  logger,
  pollMs = 1000,
  metrics = NO_METRICS,
  busy,
}: MailWorkerOptions): Poller {
  /**
   * Requests for a link (/leave's, /privacy's), up to `limit`; `more`: as many were answered, so
   * more may wait.
   */
  async function answerRequests(
    event: 'leave-link' | 'data-link',
    answer: (limit: number) => Promise<{ mail: QueuedMail[]; requests: number; queueFull: number }>,
    limit: number,
  ) {
    const done = await answer(limit);
    // The request was answered long ago, the same for every address: this tells nobody who is on
    // the list.
    if (done.queueFull > 0)
      logger.warn(
        { event, reason: 'mail queue full', requests: done.queueFull },
        `no ${event.replace('-', ' ')} could be queued`,
      );
    return { mail: done.mail, more: done.requests === limit };
  }

  async function runRound(): Promise<boolean> {
    try {
      const written: QueuedMail[] = confirmations
        ? await confirmations.links.mailConfirmations(BATCH, confirmations.mail)
        : [];
      if (welcomes && written.length < BATCH)
        written.push(...(await welcomes.links.mailWelcomes(BATCH - written.length, welcomes.mail)));
      // The requests for links, /leave's then /privacy's, while the batch has room.
      let more = false;
      const requests = [
        leaveLinks && {
          event: 'leave-link' as const,
          answer: (limit: number) => leaveLinks.links.mailLeaveLinks(limit, leaveLinks.compose),
        },
        dataLinks && {
          event: 'data-link' as const,
          answer: (limit: number) => dataLinks.requests.mailLinks(limit, dataLinks.compose),
        },
      ];
      for (const kind of requests) {
        if (!kind || written.length >= BATCH) continue;
        const asked = await answerRequests(kind.event, kind.answer, BATCH - written.length);
        written.push(...asked.mail);
        more ||= asked.more;
      }
      const claimed = [
        ...written,
        ...(written.length < BATCH ? await queue.claim(BATCH - written.length) : []),
      ];
      // Every send settles before the round ends, so stop() waits for all of them; a message whose
      // outcome the store could not record stays claimed and comes back after its lease.
      const settled = await Promise.allSettled(
        claimed.map((item) => sendClaimed(queue, mailer, item, logger)),
      );
      const results = settled.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      if (results.length < settled.length)
        logger.error('mail round: the store could not record an outcome');
      for (const { outcome, undeliverable } of results) {
        metrics.delivery('mail', MAIL_RESULT[outcome]);
        if (undeliverable) metrics.address('undeliverable');
      }
      return (
        (claimed.length === BATCH || more) &&
        results.length === settled.length &&
        !results.some((sent) => sent.serverUnavailable)
      );
    } catch (err) {
      logger.error({ err }, 'mail round failed');
      return false;
    }
  }
  const load = busy ? undefined : eventLoopBusy();
  const poller = wakeLater(startPoller(runRound, pollMs, busy ?? load!.busy));
  return {
    ...poller,
    async stop() {
      load?.stop();
      await poller.stop();
    },
  };
}
