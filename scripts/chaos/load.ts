// The chaos run's mixed load, straight to the replicas (round-robin over those up, no proxy), as
// visitors and an operator make it: signups at a fixed rate; for each confirmation mail the sink
// takes, a visitor who confirms (and later tries the used link again), leaves by the mail's
// one-click link, or does nothing; an operator who logs in to the console now and then and
// invites some of the confirmed addresses. Every request's outcome is recorded for the accounting.
import { ONE_CLICK_FIELD, ONE_CLICK_VALUE } from '../../shared/address-links';
import { form, request, type Outcome } from '../lib/http';
import type { AcceptedMail, MailSink } from './mail-sink';
import type { Replica } from './replicas';
import { OPERATOR } from './setup';

export const RATES = { signupsPerSecond: 10, loginEverySeconds: 5, inviteEverySeconds: 2 };
/** What a visitor does with a confirmation mail: confirm, leave, or nothing. */
const SHARE = { confirm: 0.6, leave: 0.2 };
/** The share of confirmed addresses the operator invites. */
const INVITE_SHARE = 0.3;

export type Kind =
  'signup' | 'confirm' | 'confirm again' | 'leave' | 'login' | 'console' | 'invite';

export interface Sent {
  kind: Kind;
  replica: number;
  email?: string;
  /** The statuses this request may be answered with. */
  expected: number[];
  outcome: Outcome;
  /** Answered with an expected status, but the page says the operation did not happen. */
  wrong?: string;
}

/** What the load did, for the accounting. */
export interface LoadRecord {
  sent: Sent[];
  /** Addresses signed up with a 2xx answer. */
  signedUp: Set<string>;
  /** Addresses whose confirmation was answered 2xx (at least once). */
  confirmed: Set<string>;
  /** Addresses a leave was sent for, answered or not: any of them may be gone. */
  leaveTried: Set<string>;
  /** Addresses whose leave was answered 2xx. */
  left: Set<string>;
}

const random = (low: number, high: number) => low + Math.random() * (high - low);

export function startLoad(replicas: Replica[], sink: MailSink) {
  const record: LoadRecord = {
    sent: [],
    signedUp: new Set(),
    confirmed: new Set(),
    leaveTried: new Set(),
    left: new Set(),
  };
  const inFlight = new Set<Promise<unknown>>();
  const timers = new Set<NodeJS.Timeout>();
  const run = `${Date.now().toString(36)}`;
  let next = 0;
  let signups = 0;
  let stopped = false;

  /** The next replica that is up, round-robin; undefined while none is. */
  function pick(): Replica | undefined {
    for (let i = 0; i < replicas.length; i++) {
      const candidate = replicas[next++ % replicas.length];
      if (candidate.up) return candidate;
    }
    return undefined;
  }

  async function send(
    kind: Kind,
    path: string,
    expected: number[],
    options: Parameters<typeof request>[2] & { email?: string } = {},
  ): Promise<Sent | undefined> {
    const target = pick();
    if (!target) return undefined;
    const pending = request(target.port, path, options);
    inFlight.add(pending);
    const outcome = await pending;
    inFlight.delete(pending);
    const sent: Sent = { kind, replica: target.index, email: options.email, expected, outcome };
    record.sent.push(sent);
    return sent;
  }
  const ok = (sent: Sent | undefined) =>
    sent?.outcome.answered === true && sent.outcome.status >= 200 && sent.outcome.status < 300;
  const unanswered = (sent: Sent | undefined) => sent !== undefined && !sent.outcome.answered;

  /** Runs `act` after `ms`, unless the load has stopped by then. */
  function later(ms: number, act: () => Promise<unknown>): void {
    if (stopped) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      if (!stopped) void act();
    }, ms);
    timers.add(timer);
  }
  function every(ms: number, act: () => Promise<unknown>) {
    const timer = setInterval(() => void act(), ms);
    timers.add(timer);
  }

  async function signUp() {
    const email = `chaos-${run}-${++signups}@example.org`;
    const fields = form({ email, description: 'chaos run' });
    const sent = await send('signup', '/api/subscriptions', [201], {
      method: 'POST',
      email,
      ...fields,
    });
    if (ok(sent)) record.signedUp.add(email);
  }

  /** A visitor's use of the confirmation link; one retry if it went unanswered. */
  async function confirm(email: string, token: string, retry: boolean): Promise<void> {
    // A retry after a lost answer may find the link used already (410).
    const sent = await send('confirm', '/confirm', retry ? [200, 410] : [200], {
      method: 'POST',
      email,
      ...form({ token }),
    });
    if (unanswered(sent) && !retry) return later(1_000, () => confirm(email, token, true));
    if (!ok(sent)) return;
    record.confirmed.add(email);
    // The same link again: refused as used, never applied twice.
    later(random(1_000, 5_000), () =>
      send('confirm again', '/confirm', [410], { method: 'POST', email, ...form({ token }) }),
    );
    if (Math.random() < INVITE_SHARE) toInvite.push(email);
  }

  /** The mail's one-click leave (RFC 8058); one retry if it went unanswered. */
  async function leave(email: string, token: string, retry: boolean): Promise<void> {
    record.leaveTried.add(email);
    const path = `/leave?token=${encodeURIComponent(token)}`;
    // A retry after a lost answer may find the address (and its link) gone already (404).
    const sent = await send('leave', path, retry ? [200, 404] : [200], {
      method: 'POST',
      email,
      ...form({ [ONE_CLICK_FIELD]: ONE_CLICK_VALUE }),
    });
    if (unanswered(sent) && !retry) return later(1_000, () => leave(email, token, true));
    if (ok(sent)) record.left.add(email);
  }

  const seenConfirmations = new Set<string>();
  sink.onMail((mail: AcceptedMail) => {
    const { to, confirmToken } = mail;
    // A copy of a mail already acted on is only counted (accounting.ts).
    if (!confirmToken || seenConfirmations.has(confirmToken)) return;
    seenConfirmations.add(confirmToken);
    const roll = Math.random();
    const delay = random(500, 3_000);
    if (roll < SHARE.confirm) later(delay, () => confirm(to, confirmToken, false));
    else if (roll < SHARE.confirm + SHARE.leave)
      later(delay, () => leave(to, mail.leaveToken, false));
  });

  // The operator's browser: its cookies (the session, and whatever else the console sets), and
  // the session its forms belong to: a cookie and the CSRF token of the page it showed, replaced
  // together (a new session's cookie with the last page's token is refused, 403).
  const jar = new Map<string, string>();
  let session: { cookie: string; csrf: string } | undefined;
  const cookieHeader = () => [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
  const toInvite: string[] = [];

  async function logIn() {
    const sent = await send('login', '/admin/login', [303], {
      method: 'POST',
      ...form({ email: OPERATOR.email, password: OPERATOR.password, code: '' }),
      headers: { ...form({}).headers, cookie: cookieHeader() },
    });
    const outcome = sent?.outcome;
    if (!outcome?.answered) return;
    for (const line of outcome.headers['set-cookie'] ?? []) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      const [name, value] = [pair.slice(0, eq).trim(), pair.slice(eq + 1).trim()];
      if (value === '' || /max-age=0\b/i.test(line)) jar.delete(name);
      else jar.set(name, value);
    }
    if (outcome.status !== 303) return;
    const cookie = cookieHeader();
    const page = (await send('console', '/admin', [200], { headers: { cookie } }))?.outcome;
    const csrf = page?.answered ? /name="csrf" value="([^"]+)"/.exec(page.body)?.[1] : undefined;
    if (csrf) session = { cookie, csrf };
  }

  async function inviteOne() {
    const email = toInvite.shift();
    if (!email || !session) return email && toInvite.unshift(email);
    const { cookie, csrf } = session;
    const sent = await send('invite', '/admin/signups/invite', [200], {
      method: 'POST',
      email,
      ...form({ csrf, email }),
      headers: { ...form({}).headers, cookie },
    });
    // Not retried: an invitation whose answer was lost may have been made (a retry is 'skipped').
    // React separates the page's text nodes with <!-- -->.
    const page = sent?.outcome.answered ? sent.outcome.body : '';
    if (ok(sent) && !/: (<!-- -->)?(sent|queued)</.test(page)) sent!.wrong = 'not invited';
  }

  every(1_000 / RATES.signupsPerSecond, signUp);
  void logIn();
  every(RATES.loginEverySeconds * 1_000, logIn);
  every(RATES.inviteEverySeconds * 1_000, inviteOne);

  return {
    record,
    /** Stops sending, and resolves once every request in flight has its outcome. */
    async stop(): Promise<LoadRecord> {
      stopped = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
      return record;
    },
  };
}
