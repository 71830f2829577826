// deploy/nginx.conf and deploy/Caddyfile, run by Debian's nginx and Caddy over TLS in front of the
// built site with its default TRUST_PROXY (loopback). What an operator would notice: each visitor
// keeps their own signup limit, a forged X-Forwarded-For buys nothing, the console's cookie is the
// https one, the site's own 5xx answers pass unchanged, hashed assets stay cacheable for a year,
// and no token, key or address reaches the proxy's logs. Caddy also in front of two replicas of
// one name: each gets requests, and one whose store is away, or that is stopped, costs none.
import http from 'node:http';
import { closedPort } from '../support/backend';
import { runCli } from '../support/cli';
import { tempDataDir } from '../support/config';
import { OPERATOR } from '../support/console';
import { startNameServer } from '../support/dns';
import {
  httpsRequest,
  makeCertificate,
  reserveProxyPort,
  startCaddy,
  startNginx,
  type Certificate,
  type ProxiedRequest,
  type RunningProxy,
} from '../support/proxies';
import { startServerProcess, type ServerProcess } from '../support/server-process';
import { clearOfRateWindowEnd } from '../support/rate-window';
import { until } from '../support/wait';

const LIMIT = 3;
/** Numbers the signups, so every address is new. */
let signups = 0;
type StartProxy = typeof startNginx;

/** What the address tests saw, printed at the end for the record. */
const figures: string[] = [];

afterAll(() => {
  const lines = figures.map((line) => `  ${line}\n`).join('');
  if (lines) process.stdout.write(`\nProxies' address tests:\n${lines}`);
});

let certificate: Certificate;

beforeAll(() => {
  certificate = makeCertificate(tempDataDir());
});

/** The console's operator, added with the CLI as the README tells operators to. */
async function addOperator(dataDir: string): Promise<void> {
  const added = await runCli({ DATA_DIR: dataDir }, ['admin', 'add', OPERATOR.email], {
    input: OPERATOR.password,
  });
  if (added.code !== 0) throw new Error(`admin add failed: ${added.err}`);
}

/** The site (env as given) and a proxy in front of it, on a port SITE_URL names. */
async function proxiedSite(start: StartProxy, env: Record<string, string>) {
  const port = reserveProxyPort();
  const server = await startServerProcess({
    SITE_URL: `https://localhost:${port}`,
    SIGNUP_RATE_LIMIT: String(LIMIT),
    LOG_LEVEL: 'warn',
    ...env,
  });
  const stopServer = async () => {
    server.child.kill('SIGTERM');
    await server.exited;
  };
  let proxy: RunningProxy;
  try {
    const upstream = `127.0.0.1:${server.port}`;
    proxy = await start({ upstream, certificate, dir: tempDataDir(), port });
  } catch (err) {
    await stopServer();
    throw err;
  }
  const stop = async () => {
    await proxy.stop();
    await stopServer();
  };
  return { server, proxy, stop };
}

/** One request through a proxy, for https://localhost:<its port>. */
function through(proxy: RunningProxy, pathname: string, request?: ProxiedRequest) {
  return httpsRequest(proxy.port, certificate, pathname, request);
}

/** A signup through a proxy from one loopback address; its status. */
async function signUp(proxy: RunningProxy, from: string, headers: Record<string, string> = {}) {
  const body = JSON.stringify({ email: `visitor-${++signups}@example.org` });
  const { status } = await through(proxy, '/api/subscriptions', {
    method: 'POST',
    from,
    body,
    headers: { 'content-type': 'application/json', ...headers },
  });
  return status;
}

const list = (statuses: number[]) => statuses.join(', ');

describe.each([
  ['nginx', startNginx],
  ['caddy', startCaddy],
])('%s with the file from deploy/', (name, start) => {
  let server: ServerProcess;
  let proxy: RunningProxy;
  let stop: () => Promise<void>;

  beforeAll(async () => {
    const dataDir = tempDataDir();
    await addOperator(dataDir);
    // A backend that is down: signups wait in the outbox (202), the relayed API answers 502.
    const backend = `http://127.0.0.1:${await closedPort()}`;
    const env = { DATA_DIR: dataDir, BACKEND_URL: backend };
    ({ server, proxy, stop } = await proxiedSite(start, env));
    const ready = async () => (await through(proxy, '/healthz')).status === 200;
    await until(`the site answers through ${name}`, ready, 15_000);
  });

  afterAll(() => stop?.());

  it('gives clients on different addresses a signup limit each', async () => {
    // This test's and the next one's requests in one of the counters' fixed windows.
    await clearOfRateWindowEnd(20_000);
    const first: number[] = [];
    for (let i = 0; i <= LIMIT; i++) first.push(await signUp(proxy, '127.0.0.2'));
    const second = await signUp(proxy, '127.0.0.3');
    figures.push(`${name}: 127.0.0.2 → ${list(first)}; then 127.0.0.3 → ${second}`);
    expect(first).toEqual([...Array(LIMIT).fill(202), 429]);
    expect(second).toBe(202);
  });

  it('buys a client nothing with a forged X-Forwarded-For', async () => {
    // Out of its limit, 127.0.0.2 claims to be someone new each time.
    const limited: number[] = [];
    for (let i = 1; i <= LIMIT; i++) {
      limited.push(await signUp(proxy, '127.0.0.2', { 'x-forwarded-for': `198.51.100.${i}` }));
    }
    // A fresh client forging a new address on every request still has one limit.
    const rotating: number[] = [];
    for (let i = 1; i <= LIMIT + 1; i++) {
      const forged = `203.0.113.${i}, 127.0.0.3`;
      rotating.push(await signUp(proxy, '127.0.0.4', { 'x-forwarded-for': forged }));
    }
    figures.push(`${name}: forged X-Forwarded-For: 127.0.0.2 → ${list(limited)}`);
    figures.push(`${name}: forged X-Forwarded-For: 127.0.0.4 → ${list(rotating)}`);
    expect(limited).toEqual(Array(LIMIT).fill(429));
    expect(rotating).toEqual([...Array(LIMIT).fill(202), 429]);
    // Both proxies are trusted (loopback): the site never warns that X-Forwarded-For was ignored.
    expect(server.output()).not.toContain('TRUST_PROXY');
  });

  it('lets the site see https: the console session cookie is __Host- and Secure', async () => {
    const { email, password } = OPERATOR;
    const login = await through(proxy, '/admin/login', {
      method: 'POST',
      body: new URLSearchParams({ email, password, code: '' }).toString(),
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        origin: `https://localhost:${proxy.port}`,
      },
    });
    expect(login.status).toBe(303);
    const setCookie = String(login.headers['set-cookie']);
    expect(setCookie).toMatch(/^__Host-orgnote-admin=[^;]+;/);
    expect(setCookie).toMatch(/; Secure/);
    const cookie = setCookie.split(';')[0];
    const dashboard = await through(proxy, '/admin', { headers: { cookie } });
    expect(dashboard.status).toBe(200);
  });

  it("passes the site's own 5xx answer on as it was sent", async () => {
    const pathname = '/api/subscription-info/github/42';
    const direct = await fetch(`${server.url}${pathname}`);
    const proxied = await through(proxy, pathname);
    expect(direct.status).toBe(502);
    expect(proxied.status).toBe(direct.status);
    expect(proxied.headers['content-type']).toBe(direct.headers.get('content-type'));
    expect(proxied.body).toBe(await direct.text());
  });

  it('keeps hashed assets cacheable for a year', async () => {
    const asset = /\/assets\/[\w.-]+\.js/.exec((await through(proxy, '/')).body)?.[0];
    expect(asset).toBeDefined();
    const answer = await through(proxy, asset!);
    expect(answer.status).toBe(200);
    expect(answer.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('logs paths, never the tokens, keys and addresses of query strings', async () => {
    const secrets = {
      token: `tok${name}Confirm7Q`,
      leave: `tok${name}Leave9Z`,
      key: `key${name}Activate3K`,
      address: `secret-${name}-person`,
    };
    const email = `${secrets.address}%40example.org`;
    const referer = `https://localhost:${proxy.port}/confirm?token=${secrets.token}`;
    await through(proxy, `/confirm?token=${secrets.token}`, { headers: { referer } });
    await through(proxy, `/leave?token=${secrets.leave}`, { headers: { referer } });
    await through(proxy, `/activate?email=${email}&key=${secrets.key}`);
    // Answered 303 with the key in its Location.
    const opened = await through(proxy, `/activate/open?email=${email}&token=${secrets.key}`);
    expect(opened.headers.location).toContain(secrets.key);
    const logged = () => proxy.accessLog().includes('/activate/open');
    await until(`${name} logged /activate/open`, logged);
    const log = proxy.accessLog();
    for (const loggedPath of ['/confirm', '/leave', '/activate', '/activate/open']) {
      expect(log).toContain(loggedPath);
    }
    for (const secret of Object.values(secrets)) expect(log).not.toContain(secret);
  });
});

describe('nginx in front of a site whose TRUST_PROXY does not name it', () => {
  it('makes every client share one limit, and the site says why, once', async () => {
    // The old compose example's value, which names none of the addresses a proxy really has.
    const { server, proxy, stop } = await proxiedSite(startNginx, { TRUST_PROXY: '10.0.0.0/8' });
    try {
      await clearOfRateWindowEnd(10_000);
      const statuses: number[] = [];
      for (const from of ['127.0.0.2', '127.0.0.2', '127.0.0.2', '127.0.0.3']) {
        statuses.push(await signUp(proxy, from));
      }
      figures.push(`nginx, site not trusting it: 127.0.0.2 ×3, 127.0.0.3 → ${list(statuses)}`);
      expect(statuses).toEqual([201, 201, 201, 429]);
      const warnings = server
        .output()
        .split('\n')
        .filter((line) => line.includes('TRUST_PROXY'));
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0])).toMatchObject({ level: 40, peer: '127.0.0.1' });
    } finally {
      await stop();
    }
  });
});

describe('caddy with the file from deploy/, in front of the replicas of one name', () => {
  // Docker's DNS answers `site` with one address per running replica; here a name server on
  // loopback does, and each replica listens on its own loopback address, on the same port.
  let site: ServerProcess;
  beforeAll(async () => {
    site = await startServerProcess({ LOG_LEVEL: 'warn' });
  });
  afterAll(async () => {
    site?.child.kill('SIGTERM');
    await site?.exited;
  });

  /**
   * A replica whose store is away, as the site answers then: its pages (prerendered) are 200,
   * /readyz and a signup 503. Its pages say which replica sent them.
   */
  async function storeAwayReplica(address: string, port: number) {
    const replica = http.createServer((req, res) => {
      const away = req.url === '/readyz' || req.method !== 'GET';
      res.writeHead(away ? 503 : 200, { 'content-type': 'text/plain' });
      res.end(away ? 'unavailable' : 'the replica whose store is away');
    });
    await new Promise<void>((resolve) => replica.listen(port, address, resolve));
    return { close: () => new Promise((resolve) => replica.close(resolve)) };
  }

  /** Caddy in front of the name `site`, which has `addresses`; stopped after `use`. */
  async function withCaddy(addresses: string[], use: (caddy: RunningProxy) => Promise<void>) {
    const names = await startNameServer('site', addresses);
    let caddy: RunningProxy | undefined;
    try {
      const upstream = `site:${site.port}`;
      const options = { upstream, resolver: names.address, certificate, dir: tempDataDir() };
      caddy = await startCaddy({ ...options, port: reserveProxyPort() });
      await use(caddy);
    } finally {
      await caddy?.stop();
      await names.close();
    }
  }

  it('sends requests to each replica, and one failing /readyz takes no other out', async () => {
    const away = await storeAwayReplica('127.0.0.2', site.port);
    try {
      await withCaddy(['127.0.0.1', '127.0.0.2'], async (caddy) => {
        const answers = [];
        for (let i = 0; i < 12; i++) answers.push(await through(caddy, '/'));
        const fromAway = answers.filter((a) => a.body.includes('store is away')).length;
        const statuses = answers.map((a) => a.status);
        figures.push(`caddy, a replica whose store is away: 12 pages → ${list(statuses)}`);
        figures.push(`caddy, a replica whose store is away: it sent ${fromAway} of them`);
        expect(statuses).toEqual(Array(12).fill(200));
        // Each replica is an upstream of its own: both answered.
        expect(fromAway).toBeGreaterThan(0);
        expect(fromAway).toBeLessThan(12);
      });
    } finally {
      await away.close();
    }
  });

  it('passes over a replica that refuses connections (stopped, still in the name)', async () => {
    await withCaddy(['127.0.0.1', '127.0.0.2'], async (caddy) => {
      const statuses: number[] = [];
      for (let i = 0; i < 12; i++) statuses.push((await through(caddy, '/healthz')).status);
      figures.push(`caddy, a replica refusing connections: 12 requests → ${list(statuses)}`);
      expect(statuses).toEqual(Array(12).fill(200));
    });
  });

  it('keeps query strings out of its own log when no replica can answer', async () => {
    const token = 'tokCaddyErrorLog5W';
    await withCaddy(['127.0.0.2'], async (caddy) => {
      // Caddy's own answer (no replica takes the connection), and an error line naming the request.
      expect((await through(caddy, `/confirm?token=${token}`)).status).toBe(502);
      const logged = () => caddy.output().includes('"uri":"/confirm"');
      await until('Caddy logged the failed request', logged);
      expect(caddy.output()).not.toContain(token);
    });
  });
});
