// What the console's handlers read of a request: the text of a form field or a query parameter,
// and who acts (for the audit log and the operations that record on their own).
import type { Request, Response } from 'express';
import { asText } from '../http/body';
import { HttpError } from '../http/errors';
import { contextOf } from '../http/request-pipeline';
import { NOT_TEXT } from '../../shared/validation';
import type { Store } from '../store';

/**
 * What the console reads is addresses, counts, ids and cursors: a control character is never part
 * of one, and PostgreSQL refuses a NUL in text outright. A password is read as it is: only hashed.
 */
export const NOT_TEXT_ERROR = 'That contains characters that are not text.';

/** A field or parameter as text; a 400 when it holds a character that is not text. */
export function text(value: unknown): string {
  const typed = asText(value);
  if (NOT_TEXT.test(typed)) throw new HttpError(400, NOT_TEXT_ERROR);
  return typed;
}

/** Whether any value of a query (searches, filters and page cursors) is not text. */
export const anyNotText = (query: Request['query']) =>
  Object.values(query)
    .flat(Infinity)
    .some((value) => typeof value === 'string' && NOT_TEXT.test(value));

/** The logged-in operator and the client address they act from. */
export const actor = (res: Response) => ({
  account: res.locals.consoleSession.email,
  client: contextOf(res.req).client.ip,
});

/** Records what the operator did in the audit log: the action and how many addresses it touched. */
export const audit = (
  store: Pick<Store, 'audit'>,
  res: Response,
  action: string,
  addresses: number,
) => {
  const { account, client } = actor(res);
  return store.audit.record({ account, action, addresses, client });
};
