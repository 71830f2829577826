// The console's operator in server tests: an account in the store, and a logged-in session
// (its cookie and the CSRF token its pages carry), as a browser would hold them.
import type { RequestListener } from 'node:http';
import request from 'supertest';
import { hashPassword } from '../../server/console/password';
import type { Store } from '../../server/store/types';

export const OPERATOR = {
  email: 'ops@example.org',
  password: 'correct horse battery staple',
} as const;

/** Creates the operator's account: the console is off (404) until one exists. */
export async function addOperator(store: Pick<Store, 'admins'>): Promise<void> {
  await store.admins.add(OPERATOR.email, await hashPassword(OPERATOR.password));
}

/** Logs the operator in: the session cookie's name=value, and the CSRF token of its forms. */
export async function logIn(app: RequestListener): Promise<{ cookie: string; csrf: string }> {
  const login = await request(app)
    .post('/admin/login')
    .type('form')
    .send({ email: OPERATOR.email, password: OPERATOR.password, code: '' });
  const cookie = String(login.headers['set-cookie']).split(';')[0];
  const dashboard = await request(app).get('/admin').set('Cookie', cookie);
  return { cookie, csrf: /name="csrf" value="([^"]+)"/.exec(dashboard.text)![1] };
}
