// The handler of the address pages (/confirm, /leave; shared/address-links.ts): Express reads the
// body (readBody, readFields), React Router runs the route's loader or action, which reads the
// form from its request and calls the context built here for the request (contextFor), and each
// call goes to one operation in waitlist/address.ts. The
// token travels in the query (the mailed link, the one-click POST) or in the form (the pages'
// buttons); it is never logged (the access log drops the query).
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  LEAVE_PATH,
  ONE_CLICK_FIELD,
  ONE_CLICK_VALUE,
  TOKEN_PARAM,
  type AddressPagesContext,
  type LeaveLinkRequest,
  type LinkCheck,
  type LinkUse,
} from '../../shared/address-links';
import { asText, fieldsOfPairs, type FormFields } from '../http/body';
import {
  checkLink,
  confirmAddress,
  leaveByLink,
  requestLeaveLink,
  type AddressDeps,
} from '../waitlist/address';
import { QueueFullError } from '../store/errors';

/** The token in the request's query (the mailed link, the one-click POST), if any. */
function queryToken(req: IncomingMessage): string | null {
  return new URL(req.url ?? '/', 'http://site.internal').searchParams.get(TOKEN_PARAM);
}

/** The token of the request: the query's, or the form's (a page's button). */
function tokenOf(req: IncomingMessage, fields: FormFields): string {
  return queryToken(req) ?? asText(fields[TOKEN_PARAM]);
}

/**
 * True for /leave?token=…: a leave by link (mail providers post there); /leave alone asks for a
 * link.
 */
export function isLeaveByLink(req: IncomingMessage): boolean {
  return queryToken(req) !== null;
}

/**
 * Tells the browser to forget what the site stored in it: the 'subscribed' flag (localStorage) is
 * all there is. After leaving ("You are welcome back at any time") or at an expired confirmation
 * link ("Join the waitlist again"), / would otherwise show this browser the joined view for good,
 * with no form. A header, not script: it works before hydration and without JavaScript, and costs
 * the page nothing.
 */
function forgetJoined(req: IncomingMessage): void {
  (req as IncomingMessage & { res?: ServerResponse }).res?.setHeader(
    'Clear-Site-Data',
    '"storage"',
  );
}

/** The store cannot answer now: the page says so with 503, and the visitor can try again. */
function unavailable(err: unknown): boolean {
  return (err as { unavailable?: boolean }).unavailable === true;
}

export function addressPages(deps: AddressDeps) {
  const fields = fieldsOfPairs;

  /** A link's use, or a 503 page (thrown to React Router) when the store is away. */
  async function use<T extends LinkUse | LinkCheck>(
    req: IncomingMessage,
    act: () => Promise<T>,
  ): Promise<T> {
    try {
      return await act();
    } catch (err) {
      if (!unavailable(err)) throw err;
      deps.logger.warn(
        { reason: (err as Error).name, path: req.url?.split('?')[0] },
        'store unavailable',
      );
      throw new Response(null, { status: 503, statusText: 'Service Unavailable' });
    }
  }

  return {
    contextFor(req: IncomingMessage): AddressPagesContext {
      return {
        checkLink: (purpose) =>
          use(req, async () => {
            const check = await checkLink(deps, purpose, tokenOf(req, {}));
            if (purpose === 'confirm' && !check.ok && check.refusal === 'expired')
              forgetJoined(req);
            return check;
          }),
        confirm: (form) => use(req, () => confirmAddress(deps, tokenOf(req, fields(form)))),
        leave: (form) =>
          use(req, async () => {
            // RFC 8058: the one-click POST says so in its body; a POST without it is not one.
            if (asText(fields(form)[ONE_CLICK_FIELD]) !== ONE_CLICK_VALUE)
              return { ok: false, refusal: 'malformed' };
            const left = await leaveByLink(deps, tokenOf(req, fields(form)));
            if (left.ok) forgetJoined(req);
            return left;
          }),
        async requestLeaveLink(form): Promise<LeaveLinkRequest> {
          try {
            return await requestLeaveLink(deps, fields(form));
          } catch (err) {
            if (!unavailable(err)) throw err;
            deps.logger.warn(
              { reason: (err as Error).name, path: LEAVE_PATH },
              'store unavailable',
            );
            return {
              ok: false,
              email: asText(fields(form).email).trim(),
              refusal: err instanceof QueueFullError ? 'busy' : 'unavailable',
              status: 503,
            };
          }
        },
      };
    },
  };
}
