// The console's router: /admin on the site's own port. While no account exists every /admin path
// answers 404 (the console is off). It answers only over https or to loopback (https-only.tsx).
// Every answer is private (no-store, noindex) under the site's strict CSP; every POST comes from
// the site's own origin (ALLOWED_ORIGINS is for the API's partners, not for the console) and,
// once logged in, carries the session's CSRF token. Handlers may be async: Express 5 forwards a
// rejected promise to the error handler.
import { createHash, timingSafeEqual } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { ReactNode } from 'react';
import type { Logger } from '../logger';
import { NO_METRICS, type Metrics } from '../metrics';
import { asText, readBody, fieldsOf } from '../http/body';
import { refuseCrossSite } from '../http/cross-site';
import { compress, preferredEncoding } from '../http/encodings';
import { CONTENT_TYPES, HttpError, sendText } from '../http/errors';
import { contextOf } from '../http/request-pipeline';
import { CSP_HEADER } from '../http/security-headers';
import { DEVICE_COOKIE } from '../http/site-cookies';
import { NOT_TEXT } from '../../shared/validation';
import type { Store } from '../store';
import type { Config } from '../config';
import { invite, type InviteDeps } from '../waitlist/invite';
import { listMail, listOutbox, retryMail, retryOutbox } from '../waitlist/queues';
import { remove } from '../waitlist/remove';
import { exportSignups } from '../waitlist/listing';
import { replayWebhook, testWebhook } from '../waitlist/webhooks';
import { auditPage } from './audit';
import { dashboard } from './dashboard';
import { BackToSignups, ConsolePage, renderPage } from './layout';
import { DEVICE_COOKIE_MAX_MS } from './device-cookie';
import { login, logout, SESSION_LIMITS } from './login';
import { LoginPage } from './login-page';
import { QueuePage, TITLES } from './queues';
import { httpsOrLoopback } from './https-only';
import { consoleCookie, requireSession } from './session';
import { noticeQuery, webhookNotice, webhooksPage, type WebhookNotice } from './webhooks';
import {
  NextPreview,
  NEXT_MAX,
  previewDigest,
  RemoveConfirmation,
  signupsPage,
  signupsQuery,
} from './signups';

const THROTTLED_ERROR = 'Too many failed attempts. Try again later.';

/** Why the console could not invite, in the CLI's message. */
const REFUSED = {
  'backend-owns-signups':
    'BACKEND_URL is set: signups live in the backend, so invitations belong there too.',
  'no-site-url':
    'Inviting needs SITE_URL, the public address of this site, for the activation link in the mail.',
} as const;

export interface ConsoleDeps {
  /**
   * What the console's operations need of the settings: the same as the CLI's invite and remove.
   */
  config: InviteDeps['config'] & Pick<Config, 'dataDir'>;
  /** The clock of the chart's days; injectable for tests. */
  now?: () => number;
  store: Store;
  logger: Logger;
  /** Counts the logins the throttle refuses; nothing is counted when not given. */
  metrics?: Pick<Metrics, 'loginThrottled'>;
  /** The site's inline stylesheet, and the page CSP that allows it (no script source). */
  css: string;
  policy: string;
}

/**
 * What the console reads is addresses, counts, ids and cursors: a control character is never part
 * of one, and PostgreSQL refuses a NUL in text outright. A password is read as it is: only hashed.
 */
const NOT_TEXT_ERROR = 'That contains characters that are not text.';
function text(value: unknown): string {
  const typed = asText(value);
  if (NOT_TEXT.test(typed)) throw new HttpError(400, NOT_TEXT_ERROR);
  return typed;
}
const anyNotText = (query: Request['query']) =>
  Object.values(query)
    .flat(Infinity)
    .some((value) => typeof value === 'string' && NOT_TEXT.test(value));

/** Compared as digests: equal lengths whatever the characters, and no timing to learn from. */
const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest();
const sameText = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

export function consoleRouter(deps: ConsoleDeps) {
  const { store, css, now = Date.now, metrics = NO_METRICS } = deps;
  const router = express.Router();
  const cookie = consoleCookie(deps.config.siteUrl);
  const deviceCookie = consoleCookie(deps.config.siteUrl, DEVICE_COOKIE);
  const session = requireSession(store, cookie);
  const overHttps = httpsOrLoopback(deps.config, css, deps.logger);
  const sameSiteOnly = refuseCrossSite(
    { siteUrl: deps.config.siteUrl, allowedOrigins: [] },
    deps.logger,
  );

  router.use(async (req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Robots-Tag', 'noindex');
    res.setHeader(CSP_HEADER, deps.policy);
    if ((await store.admins.count()) === 0)
      return sendText(res, 404, CONTENT_TYPES.text, 'Not found');
    if (!overHttps(req, res)) return;
    // Searches, filters and page cursors come in the query.
    if (anyNotText(req.query)) return next(new HttpError(400, NOT_TEXT_ERROR));
    next();
  });

  const loginPage = (
    res: Response,
    status: number,
    props: { email?: string; error?: string } = {},
  ) => sendText(res, status, CONTENT_TYPES.html, renderPage(<LoginPage css={css} {...props} />));

  // A throttled login's page is the same for everyone (the typed address is not echoed): made once
  // in each encoding, so a flood costs no render and no compression.
  const throttledPage = compress(
    Buffer.from(renderPage(<LoginPage css={css} error={THROTTLED_ERROR} />), 'utf8'),
  );
  const throttled = (req: Request, res: Response, retryAfterSeconds: number) => {
    const encoding = preferredEncoding(req);
    const body = throttledPage[encoding];
    res.status(429).set({
      'Content-Type': CONTENT_TYPES.html,
      'Retry-After': String(retryAfterSeconds),
      Vary: 'Accept-Encoding',
      ...(encoding !== 'identity' && { 'Content-Encoding': encoding }),
      'Content-Length': String(body.length),
    });
    res.end(body);
  };

  router.get('/login', (_req, res) => loginPage(res, 200));

  router.post('/login', sameSiteOnly, readBody, async (req: Request, res: Response) => {
    const fields = fieldsOf(req);
    const email = text(fields.email).trim();
    const credentials = {
      email,
      password: asText(fields.password),
      code: asText(fields.code),
      ip: req.ip ?? '',
      device: deviceCookie.read(req),
    };
    const outcome = await login({ store }, credentials);
    if (outcome.kind === 'throttled') {
      metrics.loginThrottled();
      return throttled(req, res, outcome.retryAfterSeconds);
    }
    if (outcome.kind === 'refused')
      return loginPage(res, 401, { email, error: 'Wrong address, password or code.' });
    cookie.set(req, res, outcome.sessionId, SESSION_LIMITS.maxMs);
    deviceCookie.set(req, res, outcome.device, DEVICE_COOKIE_MAX_MS);
    res.redirect(303, '/admin');
  });

  /**
   * Every state-changing POST of a session carries its CSRF token (beside SameSite=Strict and the
   * origin check).
   */
  const csrf = (req: Request, res: Response, next: NextFunction) => {
    if (!sameText(text(fieldsOf(req).csrf), res.locals.consoleSession.csrf))
      return sendText(
        res,
        403,
        CONTENT_TYPES.text,
        'The form has expired: reload the page and try again.',
      );
    next();
  };
  /** A form's POST of a logged-in operator: same site, body read, session and token checked. */
  const posted = [sameSiteOnly, readBody, session, csrf];

  router.post('/logout', posted, async (req: Request, res: Response) => {
    const { sessionId, email } = res.locals.consoleSession;
    await logout({ store }, sessionId, email, contextOf(req).client.ip);
    cookie.set(req, res, '', 0);
    res.redirect(303, '/admin/login');
  });

  /** A console page for the logged-in operator. */
  const show = (res: Response, title: string, body: ReactNode, status = 200) => {
    const page = (
      <ConsolePage title={title} css={css} session={res.locals.consoleSession}>
        {body}
      </ConsolePage>
    );
    sendText(res, status, CONTENT_TYPES.html, renderPage(page));
  };
  const audit = (res: Response, action: string, addresses: number) =>
    store.audit.record({
      account: res.locals.consoleSession.email,
      action,
      addresses,
      client: contextOf(res.req).client.ip,
    });
  /** Why an invitation did not happen, in the CLI's message (409). */
  const refused = (res: Response, title: string, reason: keyof typeof REFUSED) =>
    show(
      res,
      title,
      <>
        <h1>Not invited</h1>
        <p>{REFUSED[reason]}</p>
        <BackToSignups />
      </>,
      409,
    );
  /** A count out of range (400). */
  const badCount = (res: Response) =>
    show(
      res,
      'Invite the next',
      <>
        <h1>Invite the next N</h1>
        <p>N must be a whole number from 1 to {NEXT_MAX}.</p>
        <BackToSignups />
      </>,
      400,
    );

  router.get('/', session, async (_req: Request, res: Response) => {
    show(res, 'Dashboard', await dashboard(store, new Date(now())));
  });

  router.get('/signups', session, async (req: Request, res: Response) => {
    show(
      res,
      'Signups',
      await signupsPage(store, signupsQuery(req.query), res.locals.consoleSession.csrf),
    );
  });

  // The same operation as `waitlist invite`: the same key, mail and states.
  router.post('/signups/invite', posted, async (req: Request, res: Response) => {
    const fields = fieldsOf(req);
    const address = text(fields.email);
    const outcomes: string[] = [];
    const result = await invite(
      { store, config: deps.config },
      {
        targets: { addresses: [address] },
        again: text(fields.again) === '1',
        dryRun: false,
        onEach: (_email, outcome) => outcomes.push(outcome),
      },
    );
    if (result.kind === 'refused') return refused(res, 'Invite', result.reason);
    await audit(
      res,
      'invite',
      result.kind === 'done' ? result.counts.sent + result.counts.queued : 0,
    );
    show(
      res,
      'Invite',
      <>
        <h1>
          {address}: {outcomes[0] ?? 'nothing done'}
        </h1>
        <BackToSignups />
      </>,
    );
  });

  // "Invite the next N": who would be invited (a dry run of the CLI's `invite --next N`), then on
  // confirmation the same operation for real.
  const nextCount = (value: unknown) => {
    const n = Number(text(value));
    return Number.isSafeInteger(n) && n >= 1 && n <= NEXT_MAX ? n : undefined;
  };
  /** Who `invite --next n` would invite now: the CLI's dry run. */
  const wouldInvite = async (n: number) => {
    const would: string[] = [];
    await invite(
      { store, config: deps.config },
      {
        targets: { next: n },
        again: false,
        dryRun: true,
        onEach: (email, outcome) => void (outcome === 'would-invite' && would.push(email)),
      },
    );
    return would;
  };
  router.get('/signups/next', session, async (req: Request, res: Response) => {
    const n = nextCount(req.query.n);
    if (n === undefined) return badCount(res);
    show(
      res,
      'Invite the next',
      <NextPreview n={n} would={await wouldInvite(n)} csrf={res.locals.consoleSession.csrf} />,
    );
  });
  router.post('/signups/next', posted, async (req: Request, res: Response) => {
    const fields = fieldsOf(req);
    const n = nextCount(fields.n);
    if (n === undefined) return badCount(res);
    // The operator approved the list the preview showed. If it is another list now (an older
    // signup confirmed, one left), nobody is invited: the new list is shown to approve instead.
    const would = await wouldInvite(n);
    if (previewDigest(would) !== text(fields.seen)) {
      const changed = 'The list changed since you looked at it; nobody was invited.';
      return show(
        res,
        'Invite the next',
        <NextPreview n={n} would={would} csrf={res.locals.consoleSession.csrf} changed={changed} />,
        409,
      );
    }
    const result = await invite(
      { store, config: deps.config },
      { targets: { addresses: would }, again: false, dryRun: false },
    );
    if (result.kind === 'refused') return refused(res, 'Invite the next', result.reason);
    const counts = result.kind === 'done' ? result.counts : undefined;
    const invited = counts ? counts.sent + counts.queued : 0;
    await audit(res, 'invite', invited);
    show(
      res,
      'Invite the next',
      <>
        <h1>Invited {invited}</h1>
        <p>{counts && `${counts.sent} sent, ${counts.queued} queued, ${counts.failed} failed.`}</p>
        <BackToSignups />
      </>,
    );
  });

  // The CLI's export, streamed: a million rows never sit in memory.
  router.get('/signups/export', session, async (_req: Request, res: Response) => {
    // Recorded before the first row leaves: an export cut short by a crash or a kill has left its
    // trace, and the outcome recorded after says how many rows went.
    await audit(res, 'export started', 0);
    res.setHeader('Content-Type', 'text/csv; charset=utf-8');
    res.setHeader('Content-Disposition', 'attachment; filename="waitlist.csv"');
    let lines = 0;
    // A download cancelled while the socket is full never drains: wait for either, and stop once
    // the socket is gone. Leaving the loop ends the export, and with it the store's read (a
    // PostgreSQL pool connection, a SQLite snapshot), which waiting for 'drain' held for ever.
    let gone = false;
    const left = new Promise<void>((resolve) =>
      res.once('close', () => resolve(void (gone = true))),
    );
    // One 'drain' listener for the whole download, not a once() a wait: compression hands
    // res.on('drain') to its gzip stream, from which once() never removes it (a leak warning).
    let drained = () => {};
    res.on('drain', () => drained());
    let outcome = 'export (failed)';
    try {
      for await (const chunk of exportSignups({ store })) {
        if (gone) break;
        lines += chunk.split('\r\n').length - 1;
        if (!res.write(chunk))
          await Promise.race([new Promise<void>((resolve) => (drained = resolve)), left]);
      }
      outcome = gone ? 'export (cancelled)' : 'export';
    } finally {
      // The rows handed to the socket, the header aside, also when the store's read failed
      // halfway. Recorded before the download ends, so the log has it when the operator looks.
      await audit(res, outcome, Math.max(0, lines - 1));
    }
    if (!gone) res.end();
  });

  router.post('/signups/remove/confirm', posted, (req: Request, res: Response) =>
    show(
      res,
      'Remove',
      <RemoveConfirmation
        email={text(fieldsOf(req).email)}
        csrf={res.locals.consoleSession.csrf}
      />,
    ),
  );

  // The same operation as `waitlist remove`.
  router.post('/signups/remove', posted, async (req: Request, res: Response) => {
    const address = text(fieldsOf(req).email);
    const removed = await remove({ store, config: deps.config }, address);
    const count = removed.kind === 'removed' && removed.signup ? 1 : 0;
    await audit(res, 'remove', count);
    show(
      res,
      'Remove',
      <>
        <h1>{count ? `Removed ${address}` : `Nothing stored for ${address}`}</h1>
        <BackToSignups />
      </>,
    );
  });

  // The queues, through the CLI's own operations.
  const queues = {
    mail: { list: () => listMail({ store }), retry: (id: number) => retryMail({ store }, id) },
    outbox: {
      list: () => listOutbox({ store }),
      retry: (id: number) => retryOutbox({ store }, id),
    },
  } as const;
  for (const name of ['mail', 'outbox'] as const) {
    router.get(`/${name}`, session, async (_req: Request, res: Response) => {
      show(
        res,
        TITLES[name],
        <QueuePage
          name={name}
          listing={await queues[name].list()}
          csrf={res.locals.consoleSession.csrf}
        />,
      );
    });
    router.post(`/${name}/retry`, posted, async (req: Request, res: Response) => {
      const id = Number(text(fieldsOf(req).id));
      const result =
        Number.isSafeInteger(id) && id > 0
          ? await queues[name].retry(id)
          : { kind: 'not-dead' as const, id };
      const retried = result.kind === 'retried';
      if (retried) await audit(res, `retry ${name}`, 1);
      const notice = retried
        ? `Item ${id} is queued again; the running site sends it.`
        : `Item ${id} is not dead: nothing to retry.`;
      const listing = await queues[name].list();
      show(
        res,
        TITLES[name],
        <QueuePage
          name={name}
          listing={listing}
          csrf={res.locals.consoleSession.csrf}
          notice={notice}
        />,
        retried ? 200 : 409,
      );
    });
  }

  // The CLI's `webhooks replay <id>` (without --since) and `webhooks test <id>`; each answers
  // with a redirect to the page, which tells what was done.
  const webhooksShown = async (res: Response, notice?: WebhookNotice, status = 200) =>
    show(
      res,
      'Webhooks',
      await webhooksPage(store, res.locals.consoleSession.csrf, notice),
      status,
    );
  router.get('/webhooks', session, (req: Request, res: Response) =>
    webhooksShown(res, webhookNotice(req.query)),
  );
  const actor = (res: Response) => ({
    account: res.locals.consoleSession.email,
    client: contextOf(res.req).client.ip,
  });
  const done = (res: Response, notice: WebhookNotice) =>
    res.redirect(303, `/admin/webhooks?${noticeQuery(notice)}`);
  router.post('/webhooks/replay', posted, async (req: Request, res: Response) => {
    const endpoint = text(fieldsOf(req).id);
    const replayed = await replayWebhook({ store }, actor(res), endpoint);
    if (!replayed) return webhooksShown(res, { kind: 'unknown', endpoint }, 404);
    done(res, { kind: 'replayed', endpoint, ...replayed });
  });
  router.post('/webhooks/test', posted, async (req: Request, res: Response) => {
    const endpoint = text(fieldsOf(req).id);
    if ((await testWebhook({ store }, actor(res), endpoint)) === undefined)
      return webhooksShown(res, { kind: 'unknown', endpoint }, 404);
    done(res, { kind: 'tested', endpoint });
  });

  router.get('/audit', session, async (req: Request, res: Response) => {
    show(res, 'Audit log', await auditPage(store, text(req.query.before)));
  });

  // Anything else under /admin: for a logged-in operator a 404, for anyone else the login page.
  router.use(session, (_req: Request, res: Response) =>
    sendText(res, 404, CONTENT_TYPES.text, 'Not found'),
  );
  return router;
}
