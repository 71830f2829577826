// The console's door (issue 24): /admin on the site's own port. While no account exists every
// /admin path answers 404 (the console is off). Every answer is private (no-store, noindex) under
// the site's strict CSP; every POST passes the cross-site check and, once logged in, carries the
// session's CSRF token. The session cookie is HttpOnly, SameSite=Strict, Path=/, and over https
// (as TRUST_PROXY lets the request say) Secure with the __Host- prefix.
import { timingSafeEqual } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { Logger } from '../logger';
import { NO_METRICS, type Metrics } from '../metrics';
import { asText, readBody, fieldsOf, type BodyRequest, type Middleware } from '../http/body';
import { CONTENT_TYPES, HttpError, sendText } from '../http/errors';
import { CSP_HEADER } from '../http/security-headers';
import { CONSOLE_COOKIE as COOKIE, CONSOLE_SECURE_COOKIE as SECURE_COOKIE } from '../http/site-cookies';
import { escapeMarkup as e } from '../../shared/markup';
import { NOT_TEXT } from '../../shared/validation';
import type { Store } from '../store';
import { csrfToken, login, logout, sessionAccount, SESSION_LIMITS } from './login';
import { auditPage } from './audit';
import type { Config } from '../config';
import { invite, type InviteDeps } from '../waitlist/invite';
import { listMail, listOutbox, retryMail, retryOutbox } from '../waitlist/queues';
import { remove } from '../waitlist/remove';
import { exportSignups } from '../waitlist/signups';
import { queuePage, TITLES } from './queues';
import { dashboard } from './dashboard';
import { nextPreview, NEXT_MAX, previewDigest, removeConfirmation, signupsPage, signupsQuery } from './signups';
import { loginPage, page } from './pages';

/** Why the console could not invite, in the CLI's words. */
const REFUSED = {
  'backend-owns-signups': 'BACKEND_URL is set: signups live in the backend, so invitations belong there too.',
  'no-site-url': 'Inviting needs SITE_URL, the public address of this site, for the activation link in the mail.',
} as const;

export interface ConsoleDeps {
  /** What the console's operations need of the settings: the same as the CLI's invite and remove. */
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
  sameSiteOnly: Middleware;
}

type Locals = { email: string; sessionId: string; csrf: string };

function cookieOf(req: Request): string | undefined {
  const name = req.secure ? SECURE_COOKIE : COOKIE;
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

function setCookie(req: Request, res: Response, value: string, maxAgeSeconds: number): void {
  const name = req.secure ? SECURE_COOKIE : COOKIE;
  res.setHeader('Set-Cookie', `${name}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${req.secure ? '; Secure' : ''}`);
}

/**
 * What the console reads is addresses, counts, ids and cursors: a control character is never part
 * of one, and PostgreSQL refuses a NUL in text outright (before this check, a 500). A password is
 * read as it is: it is only hashed.
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

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

export function consoleDoor(deps: ConsoleDeps) {
  const { store, css, now = Date.now, metrics = NO_METRICS } = deps;
  const router = express.Router();
  const html = (res: Response, status: number, body: string) => sendText(res, status, CONTENT_TYPES.html, body);

  router.use(async (req: Request, res: Response, next: NextFunction) => {
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('X-Robots-Tag', 'noindex');
    res.setHeader(CSP_HEADER, deps.policy);
    try {
      if ((await store.admins.count()) === 0) return sendText(res, 404, CONTENT_TYPES.text, 'Not found');
      // Searches, filters and page cursors come in the query.
      if (anyNotText(req.query)) return next(new HttpError(400, NOT_TEXT_ERROR));
      next();
    } catch (err) {
      next(err);
    }
  });

  router.get('/login', (_req, res) => html(res, 200, loginPage(css)));

  router.post('/login', deps.sameSiteOnly, readBody, async (req: Request, res: Response, next: NextFunction) => {
    try {
      const fields = fieldsOf(req as BodyRequest);
      const email = text(fields.email).trim();
      const outcome = await login({ store }, { email, password: asText(fields.password), code: asText(fields.code), ip: req.ip ?? '' });
      if (outcome.kind === 'throttled') {
        metrics.loginThrottled();
        res.setHeader('Retry-After', String(outcome.retryAfterSeconds));
        return html(res, 429, loginPage(css, { email, error: 'Too many failed attempts. Try again later.' }));
      }
      if (outcome.kind === 'refused') return html(res, 401, loginPage(css, { email, error: 'Wrong address, password or code.' }));
      setCookie(req, res, outcome.sessionId, SESSION_LIMITS.maxMs / 1000);
      res.redirect(303, '/admin');
    } catch (err) {
      next(err);
    }
  });

  /** Logged in, or off to the login page. */
  const session = async (req: Request, res: Response, next: NextFunction) => {
    try {
      const sessionId = cookieOf(req);
      const email = await sessionAccount({ store }, sessionId);
      if (!email || !sessionId) return res.redirect(303, '/admin/login');
      res.locals.console = { email, sessionId, csrf: csrfToken(sessionId) } satisfies Locals;
      next();
    } catch (err) {
      next(err);
    }
  };

  /** Every state-changing POST of a session carries its CSRF token (beside SameSite=Strict and the origin check). */
  const csrf = (req: Request, res: Response, next: NextFunction) => {
    const { csrf: expected } = res.locals.console as Locals;
    if (!sameText(text(fieldsOf(req as BodyRequest).csrf), expected))
      return sendText(res, 403, CONTENT_TYPES.text, 'The form has expired: reload the page and try again.');
    next();
  };

  router.post('/logout', deps.sameSiteOnly, readBody, session, csrf, async (req: Request, res: Response, next: NextFunction) => {
    try {
      const { sessionId, email } = res.locals.console as Locals;
      await logout({ store }, sessionId, email);
      setCookie(req, res, '', 0);
      res.redirect(303, '/admin/login');
    } catch (err) {
      next(err);
    }
  });

  /** A console page for the logged-in operator. */
  const as = (res: Response, title: string, body: string, status = 200) => {
    const { email, csrf: token } = res.locals.console as Locals;
    html(res, status, page({ title, css, session: { email, csrf: token } }, body));
  };
  const back = '<p><a href="/admin/signups">Back to the signups</a></p>';
  /** Why an invitation did not happen, in the CLI's words (409), or a count out of range (400). */
  const refused = (res: Response, title: string, reason: keyof typeof REFUSED) =>
    as(res, title, `<h1>Not invited</h1><p>${e(REFUSED[reason])}</p>${back}`, 409);
  const badCount = (res: Response) =>
    as(res, 'Invite the next', `<h1>Invite the next N</h1><p>N must be a whole number from 1 to ${NEXT_MAX}.</p>${back}`, 400);

  router.get('/', session, async (_req: Request, res: Response, next: NextFunction) => {
    try {
      as(res, 'Dashboard', await dashboard(store, new Date(now())));
    } catch (err) {
      next(err);
    }
  });

  router.get('/signups', session, async (req: Request, res: Response, next: NextFunction) => {
    try {
      as(res, 'Signups', await signupsPage(store, signupsQuery(req.query), (res.locals.console as Locals).csrf));
    } catch (err) {
      next(err);
    }
  });

  // The same operation as `waitlist invite`: the same key, mail and states (issue 24, "one road").
  router.post('/signups/invite', deps.sameSiteOnly, readBody, session, csrf, async (req: Request, res: Response, next: NextFunction) => {
    try {
      const fields = fieldsOf(req as BodyRequest);
      const address = text(fields.email);
      const outcomes: string[] = [];
      const result = await invite(
        { store, config: deps.config },
        { targets: { addresses: [address] }, again: text(fields.again) === '1', dryRun: false, onEach: (_email, outcome) => outcomes.push(outcome) },
      );
      if (result.kind === 'refused') return refused(res, 'Invite', result.reason);
      const invited = result.kind === 'done' ? result.counts.sent + result.counts.queued : 0;
      await store.audit.record({ account: (res.locals.console as Locals).email, action: 'invite', addresses: invited });
      as(res, 'Invite', `<h1>${e(address)}: ${e(outcomes[0] ?? 'nothing done')}</h1>${back}`);
    } catch (err) {
      next(err);
    }
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
      { targets: { next: n }, again: false, dryRun: true, onEach: (email, outcome) => void (outcome === 'would-invite' && would.push(email)) },
    );
    return would;
  };
  router.get('/signups/next', session, async (req: Request, res: Response, next: NextFunction) => {
    try {
      const n = nextCount(req.query.n);
      if (n === undefined) return badCount(res);
      as(res, 'Invite the next', nextPreview(n, await wouldInvite(n), (res.locals.console as Locals).csrf));
    } catch (err) {
      next(err);
    }
  });
  router.post('/signups/next', deps.sameSiteOnly, readBody, session, csrf, async (req: Request, res: Response, next: NextFunction) => {
    try {
      const fields = fieldsOf(req as BodyRequest);
      const n = nextCount(fields.n);
      if (n === undefined) return badCount(res);
      // The operator approved the list the preview showed. If it is another list now (an older
      // signup confirmed, one left), nobody is invited: the new list is shown to approve instead.
      const would = await wouldInvite(n);
      if (previewDigest(would) !== text(fields.seen)) {
        return as(
          res,
          'Invite the next',
          nextPreview(n, would, (res.locals.console as Locals).csrf, 'The list changed since you looked at it; nobody was invited.'),
          409,
        );
      }
      const result = await invite({ store, config: deps.config }, { targets: { addresses: would }, again: false, dryRun: false });
      if (result.kind === 'refused') return refused(res, 'Invite the next', result.reason);
      const counts = result.kind === 'done' ? result.counts : undefined;
      const invited = counts ? counts.sent + counts.queued : 0;
      await store.audit.record({ account: (res.locals.console as Locals).email, action: 'invite', addresses: invited });
      as(
        res,
        'Invite the next',
        `<h1>Invited ${invited}</h1><p>${counts ? `${counts.sent} sent, ${counts.queued} queued, ${counts.failed} failed.` : ''}</p>${back}`,
      );
    } catch (err) {
      next(err);
    }
  });

  // The CLI's export, streamed: a million rows never sit in memory.
  router.get('/signups/export', session, async (_req: Request, res: Response, next: NextFunction) => {
    try {
      res.setHeader('Content-Type', 'text/csv; charset=utf-8');
      res.setHeader('Content-Disposition', 'attachment; filename="waitlist.csv"');
      let lines = 0;
      // A download cancelled while the socket is full never drains: wait for either, and stop once
      // the socket is gone. Leaving the loop ends the export, and with it the store's read (a
      // PostgreSQL pool connection, a SQLite snapshot), which waiting for 'drain' held for ever.
      let gone = false;
      const left = new Promise<void>((resolve) => res.once('close', () => resolve(void (gone = true))));
      // One 'drain' listener for the whole download, not a once() a wait: compression hands
      // res.on('drain') to its gzip stream, from which once() never removes it (323 left behind
      // in a 20 MB export, and a leak warning in the log).
      let drained = () => {};
      res.on('drain', () => drained());
      for await (const chunk of exportSignups({ store })) {
        if (gone) break;
        lines += chunk.split('\r\n').length - 1;
        if (!res.write(chunk)) await Promise.race([new Promise<void>((resolve) => (drained = resolve)), left]);
      }
      // The rows handed to the socket, the header aside; a cancelled download is recorded as such.
      // Recorded before the download ends, so the audit log already has it when the operator looks.
      await store.audit.record({
        account: (res.locals.console as Locals).email,
        action: gone ? 'export (cancelled)' : 'export',
        addresses: Math.max(0, lines - 1),
      });
      if (!gone) res.end();
    } catch (err) {
      next(err);
    }
  });

  router.post('/signups/remove/confirm', deps.sameSiteOnly, readBody, session, csrf, (req: Request, res: Response) =>
    as(res, 'Remove', removeConfirmation(text(fieldsOf(req as BodyRequest).email), (res.locals.console as Locals).csrf)),
  );

  // The same operation as `waitlist remove`.
  router.post('/signups/remove', deps.sameSiteOnly, readBody, session, csrf, async (req: Request, res: Response, next: NextFunction) => {
    try {
      const address = text(fieldsOf(req as BodyRequest).email);
      const removed = await remove({ store, config: deps.config }, address);
      const count = removed.kind === 'removed' && removed.signup ? 1 : 0;
      await store.audit.record({ account: (res.locals.console as Locals).email, action: 'remove', addresses: count });
      as(res, 'Remove', `<h1>${count ? `Removed ${e(address)}` : `Nothing stored for ${e(address)}`}</h1>${back}`);
    } catch (err) {
      next(err);
    }
  });

  // The queues, through the CLI's own operations.
  const queues = {
    mail: { list: () => listMail({ store }), retry: (id: number) => retryMail({ store }, id) },
    outbox: { list: () => listOutbox({ store }), retry: (id: number) => retryOutbox({ store }, id) },
  } as const;
  for (const name of ['mail', 'outbox'] as const) {
    router.get(`/${name}`, session, async (_req: Request, res: Response, next: NextFunction) => {
      try {
        as(res, TITLES[name], queuePage(name, await queues[name].list(), (res.locals.console as Locals).csrf));
      } catch (err) {
        next(err);
      }
    });
    router.post(`/${name}/retry`, deps.sameSiteOnly, readBody, session, csrf, async (req: Request, res: Response, next: NextFunction) => {
      try {
        const id = Number(text(fieldsOf(req as BodyRequest).id));
        const result = Number.isSafeInteger(id) && id > 0 ? await queues[name].retry(id) : { kind: 'not-dead' as const, id };
        if (result.kind === 'retried') await store.audit.record({ account: (res.locals.console as Locals).email, action: `retry ${name}`, addresses: 1 });
        const notice = result.kind === 'retried' ? `Item ${id} is queued again; the running site sends it.` : `Item ${id} is not dead: nothing to retry.`;
        as(res, TITLES[name], queuePage(name, await queues[name].list(), (res.locals.console as Locals).csrf, notice), result.kind === 'retried' ? 200 : 409);
      } catch (err) {
        next(err);
      }
    });
  }

  router.get('/audit', session, async (req: Request, res: Response, next: NextFunction) => {
    try {
      as(res, 'Audit log', await auditPage(store, text(req.query.before)));
    } catch (err) {
      next(err);
    }
  });

  // Anything else under /admin: for a logged-in operator a 404, for anyone else the login page.
  router.use(session, (_req: Request, res: Response) => sendText(res, 404, CONTENT_TYPES.text, 'Not found'));
  return router;
}
