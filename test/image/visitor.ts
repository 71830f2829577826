// What a visitor's browser and an operator do over HTTP, against a published port or through
// Caddy over TLS (trusting only Caddy's local root, the site's name sent as SNI and Host).
import http from 'node:http';
import https from 'node:https';

export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Target {
  /** http://127.0.0.1:<port> or https://127.0.0.1:<port> */
  base: string;
  /** For https: the site's name (SNI and Host) and the CA that signed its certificate. */
  tls?: { name: string; ca: string };
}

/** What a request carries: a form body, the session cookie, headers a client may forge. */
export interface Sent {
  form?: Record<string, string>;
  cookie?: string;
  headers?: Record<string, string>;
}

/** One request; a refused connection or a failed handshake is status 0. */
export function request(target: Target, method: string, path: string, sent: Sent = {}) {
  const url = new URL(path, target.base);
  const body = sent.form ? new URLSearchParams(sent.form).toString() : undefined;
  const headers: http.OutgoingHttpHeaders = { ...sent.headers };
  if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
  if (sent.cookie) headers.cookie = sent.cookie;
  if (target.tls) headers.host = target.tls.name;
  const tls = target.tls ? { ca: target.tls.ca, servername: target.tls.name } : {};
  const client = url.protocol === 'https:' ? https : http;
  return new Promise<Answer>((resolve) => {
    const req = client.request(url, { method, headers, agent: false, ...tls }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      const status = res.statusCode ?? 0;
      res.on('end', () => resolve({ status, headers: res.headers, body: text }));
    });
    req.on('error', () => resolve({ status: 0, headers: {}, body: '' }));
    req.end(body);
  });
}

/** A visitor signs up through the API, as the page's script does. */
export async function signUp(target: Target, email: string): Promise<void> {
  const answer = await request(target, 'POST', '/api/subscriptions', { form: { email } });
  if (answer.status !== 201) throw new Error(`signup of ${email}: ${answer.status} ${answer.body}`);
}

export async function answers(target: Target, pathname: string): Promise<boolean> {
  return (await request(target, 'GET', pathname)).status === 200;
}

/**
 * The console's login form, as a browser posts it: the session cookie it sets, and the dashboard
 * that cookie then opens.
 */
export interface LoggedIn {
  login: Answer;
  setCookie: string;
  dashboard: Answer;
}

export async function logIn(target: Target, email: string, password: string): Promise<LoggedIn> {
  const login = await request(target, 'POST', '/admin/login', {
    form: { email, password, code: '' },
  });
  const setCookie = String(login.headers['set-cookie'] ?? '');
  const dashboard = await request(target, 'GET', '/admin', { cookie: setCookie.split(';')[0] });
  return { login, setCookie, dashboard };
}
