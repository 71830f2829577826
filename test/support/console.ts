// The console's operator in server tests: an account in the store, and a logged-in session
// (its cookie and the CSRF token its pages carry), as a browser would hold them.
import request from 'supertest';
import { hashPassword } from '../../server/console/password';
import type { Store } from '../../server/store/types';

/** What supertest can reach: an app (createApp) or a listening server's URL. */
type Target = Parameters<typeof request>[0];

export const OPERATOR = {
  email: 'ops@example.org',
  password: 'correct horse battery staple',
} as const;

/** Creates the operator's account: the console is off (404) until one exists. */
export async function addOperator(store: Pick<Store, 'admins'>): Promise<void> {
  await store.admins.add(OPERATOR.email, await hashPassword(OPERATOR.password));
}

/** A logged-in session as its browser holds it: the cookie's name=value, the forms' CSRF token. */
export interface Session {
  cookie: string;
  csrf: string;
}

/** Logs the operator in. */
export async function logIn(app: Target): Promise<Session> {
  const login = await request(app)
    .post('/admin/login')
    .type('form')
    .send({ email: OPERATOR.email, password: OPERATOR.password, code: '' });
  const cookie = String(login.headers['set-cookie']).split(';')[0];
  const dashboard = await request(app).get('/admin').set('Cookie', cookie);
  return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(dashboard.text)![1] };
}

/** A page as the session's browser asks for it. */
export const getAs = (app: Target, { cookie }: Session, path: string) =>
  request(app).get(path).set('Cookie', cookie);

/** A console form as the session's browser posts it, with the CSRF token the form carries. */
export const postAs = (
  app: Target,
  { cookie, csrf }: Session,
  path: string,
  fields: Record<string, string>,
) =>
  request(app)
    .post(path)
    .set('Cookie', cookie)
    .type('form')
    .send({ csrf, ...fields });
