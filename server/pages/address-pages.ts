// The handler of the address pages (/confirm, /leave; shared/address-links.ts) and of a person's
// own data (/privacy's form, /privacy/data; shared/data-requests.ts): Express reads the body
// (readBody, readFields), React Router runs the route's loader or action, which reads the form
// from its request and calls the context built here for the request (contextFor), and each call
// goes to one operation in waitlist/address.ts or waitlist/data-request.ts. A confirm or leave
// token travels in the query (the mailed link, the one-click POST) or in the form (the pages'
// buttons); it is never logged (the access log drops the query). A data token travels in the form
// only, and a good one is answered here with the file, before React Router (downloadData).
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  LEAVE_PATH,
  ONE_CLICK_FIELD,
  ONE_CLICK_VALUE,
  TOKEN_PARAM,
  type AddressPagesContext,
  type LeaveLinkRequest,
  type LinkCheck,
  type LinkRefusal,
  type LinkUse,
} from '../../shared/address-links';
import { DATA_TOKEN_FIELD, PRIVACY_PATH } from '../../shared/data-requests';
import { asText, fieldsOfPairs, type BodyRequest, type FormFields } from '../http/body';
import { contextOf } from '../http/request-pipeline';
import type { Store } from '../store';
import {
  checkLink,
  confirmAddress,
  leaveByLink,
  requestLeaveLink,
  type AddressDeps,
} from '../waitlist/address';
import { downloadData, requestDataLink } from '../waitlist/data-request';
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

/** Why a data link's POST downloaded nothing, left by `downloadData` for the page's action. */
const DATA_REFUSAL = Symbol('data link refusal');
type DataRequest = IncomingMessage & { [DATA_REFUSAL]?: LinkRefusal };

export function addressPages(deps: AddressDeps & { store: Pick<Store, 'dataRequests'> }) {
  const fields = fieldsOfPairs;

  /**
   * A form asking for a link to be mailed (/leave's, /privacy's): its answer, or a 503 answer the
   * page words when the store is away or the mail queue is full.
   */
  async function askForLink(
    form: FormData,
    path: string,
    ask: (fields: FormFields) => Promise<LeaveLinkRequest>,
  ): Promise<LeaveLinkRequest> {
    try {
      return await ask(fields(form));
    } catch (err) {
      if (!unavailable(err)) throw err;
      deps.logger.warn({ reason: (err as Error).name, path }, 'store unavailable');
      return {
        ok: false,
        email: asText(fields(form).email).trim(),
        refusal: err instanceof QueueFullError ? 'busy' : 'unavailable',
        status: 503,
      };
    }
  }

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
        requestLeaveLink: (form) =>
          askForLink(form, LEAVE_PATH, (given) => requestLeaveLink(deps, given)),
        requestDataLink: (form) =>
          askForLink(form, PRIVACY_PATH, (given) => requestDataLink(deps, given)),
        // Reached only when downloadData let the POST through: the file went out otherwise.
        dataLinkRefusal: () => (req as DataRequest)[DATA_REFUSAL] ?? 'malformed',
      };
    },

    /**
     * The data link page's POST (after readFields): the file, sent here as an attachment, or the
     * refusal left for the page's action, which words it (a 4xx page in the page's language). The
     * token comes in the form only, never in the query (decision 0036).
     */
    async downloadData(req: BodyRequest, res: ServerResponse, next: () => void): Promise<void> {
      const token = (req.body as URLSearchParams).get(DATA_TOKEN_FIELD) ?? '';
      const downloaded = await downloadData(deps, token.trim(), contextOf(req).client.ip);
      if (!downloaded.ok) {
        (req as DataRequest)[DATA_REFUSAL] = downloaded.refusal;
        return next();
      }
      const { name, json } = downloaded.file;
      res.statusCode = 200;
      res.setHeader('Content-Type', 'application/json; charset=utf-8');
      res.setHeader('Content-Disposition', `attachment; filename="${name}"`);
      res.setHeader('Cache-Control', 'no-store');
      res.setHeader('Referrer-Policy', 'no-referrer');
      res.end(json);
    },
  };
}
