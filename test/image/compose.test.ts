// deploy/compose.yml: checked by a real `docker-compose config` on both paths, then its default
// path brought up for real on the private engine, a page fetched through Caddy over TLS, and the
// site's trust in X-Forwarded-* put to the test from the host and from the kit's network. The only
// changes from what an operator runs: `tls internal` instead of ACME (no public name here), the
// image the global setup built, ports on 127.0.0.1 picked for the run, and a signup limit of 1.
import fs from 'node:fs';
import https from 'node:https';
import { BlockList } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { releasePort, reservePort } from '../../scripts/lib/launch/ports';
import { until } from '../support/wait';
import { IMAGE, ROOT, VERSION, docker, removeAll, sh, type Run } from './docker';
import { caddyRoot, layOutKit, mentions, useInternalTls, withSettings } from './kit';
import { request, type Target } from './visitor';

const PROJECT = 'orgnote-ci-compose';
const KIT_NETWORK = `${PROJECT}_kit`;
const ports = { https: reservePort(30000, 32000), http: reservePort(30000, 32000) };
const sitePort = reservePort(30000, 32000);
/** The site's own port on the host, past Caddy. */
const direct: Target = { base: `http://127.0.0.1:${sitePort}` };

interface Config {
  services: Record<string, Service>;
  networks: Record<string, { ipam: { config: Ipam[] } }>;
}
interface Ipam {
  subnet: string;
  gateway?: string;
  ip_range?: string;
}
interface Service {
  image?: string;
  build?: { context: string; args?: Record<string, string> };
  profiles?: string[];
  environment: Record<string, string>;
  ports?: unknown[];
  restart?: string;
  volumes?: string[];
  deploy?: { replicas: number };
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  secrets?: unknown;
  networks?: Record<string, { aliases?: string[]; ipv4_address?: string } | null>;
}

/** deploy/secrets, read-only at /run/secrets: the files the *_FILE settings name. */
const SECRETS_MOUNT = /\/deploy\/secrets:\/run\/secrets:ro$/;

let kit: string;
/** Caddy's site over TLS, from the host, once it answers. */
let caddy: Target;
let signups = 0;

/** The kit as an operator lays it out: deploy/ beside the sources, .env made from the example. */
function layOut(env: Record<string, string>): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'orgnote-ci-compose-'));
  const deploy = layOutKit(folder);
  const dotenv = fs.readFileSync(path.join(ROOT, 'deploy/.env.example'), 'utf8');
  // The example names each setting a test changes.
  for (const name of Object.keys(env)) expect(mentions(dotenv, name)).toBe(true);
  fs.writeFileSync(path.join(deploy, '.env'), withSettings(dotenv, env));
  // No secret file: until a *_FILE setting names one, the kit needs none.
  return deploy;
}

function compose(args: string, deploy = kit, input?: string): Run {
  return sh(`docker-compose --project-name ${PROJECT} ${args}`, { cwd: deploy, input });
}

/** What `docker-compose config` resolves for the profile, as JSON (python3-yaml: Compose's own). */
function resolved(profile: string, env: Record<string, string> = {}): Config {
  const deploy = layOut({ COMPOSE_PROFILES: profile, ...env });
  try {
    const script = 'import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))';
    const toJson = `python3 -c '${script}'`;
    const result = compose(`config | ${toJson}`, deploy);
    expect(result.stderr).not.toMatch(/ERROR|invalid/i);
    expect(result.status).toBe(0);
    return JSON.parse(result.stdout) as Config;
  } finally {
    fs.rmSync(path.dirname(deploy), { recursive: true, force: true });
  }
}

/**
 * TRUST_PROXY names Caddy's fixed address alone: inside the kit's subnet, not its gateway (where
 * connections to a published port come from), and outside the range other containers get.
 */
function expectCaddyAloneTrusted({ services, networks }: Config, site: Service): void {
  const caddy = services.caddy.networks?.kit?.ipv4_address;
  expect(site.environment.TRUST_PROXY).toBe(caddy);
  const { subnet, gateway, ip_range: range } = networks.kit.ipam.config[0];
  const within = (cidr: string) => {
    const [network, prefix] = cidr.split('/');
    const list = new BlockList();
    list.addSubnet(network, Number(prefix), 'ipv4');
    return list.check(caddy!, 'ipv4');
  };
  expect(within(subnet)).toBe(true);
  expect(caddy).not.toBe(gateway);
  expect(range && within(range)).toBe(false);
}

afterAll(() => {
  for (const port of [ports.https, ports.http, sitePort]) releasePort(port);
});

describe('docker-compose config', () => {
  it('the default path: one site on SQLite, published on 127.0.0.1 only, behind Caddy', () => {
    const config = resolved('sqlite');
    const { services } = config;
    const site = services.site;
    expect(site.profiles).toEqual(['sqlite']);
    expect(site.restart).toBe('unless-stopped');
    expect(site.volumes).toContain('orgnote-data:/data:rw');
    expect(site.volumes).toContainEqual(expect.stringMatching(SECRETS_MOUNT));
    expect(site.secrets).toBeUndefined();
    // Without SMTP by default (mail as .eml files on the volume), so no secret file is needed.
    expect(site.environment.SMTP_URL_FILE).toBeUndefined();
    expect(site.environment.DATABASE_URL_FILE).toBeUndefined();
    expect(JSON.stringify(site.ports)).toContain('127.0.0.1:3000:3000');
    expect(site.networks?.kit?.aliases).toEqual(['site']);
    expectCaddyAloneTrusted(config, site);
    // Caddy's upstreams are the replicas of `site` (the Caddyfile's default).
    expect(services.caddy.environment).toEqual({ SITE_DOMAIN: 'orgnote.example' });
  });

  it('runs the release .env names, built from the checkout unless COMPOSE_FILE leaves that out', () => {
    // The sqlite path's backup service runs the site's image: built too, never pulled.
    for (const [profile, name] of [
      ['sqlite', 'site'],
      ['sqlite', 'backup'],
      ['postgres', 'site-postgres'],
    ]) {
      const built = resolved(profile).services[name];
      expect(built.image).toBe(`orgnote-site:${VERSION}`);
      // The checkout above deploy/ (here the temp folder the kit is laid out in).
      expect(built.build!.context).toMatch(/\/orgnote-ci-compose-[^/]+$/);
      expect(built.build!.args).toMatchObject({ ORGNOTE_VERSION: VERSION });
      const pulled = resolved(profile, {
        COMPOSE_FILE: 'compose.yml',
        ORGNOTE_IMAGE: 'ghcr.io/example/orgnote-site',
        ORGNOTE_VERSION: '9.8.7',
      }).services[name];
      expect(pulled.image).toBe('ghcr.io/example/orgnote-site:9.8.7');
      expect(pulled.build).toBeUndefined();
    }
  });

  it('the postgres profile: PostgreSQL with pg_isready, and the site as two replicas', () => {
    const config = resolved('postgres');
    const { services } = config;
    const site = services['site-postgres'];
    expect(site.profiles).toEqual(['postgres']);
    expect(site.deploy?.replicas).toBeGreaterThanOrEqual(2);
    expect(site.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(site.environment.DATABASE_URL_FILE).toBe('/run/secrets/database_url');
    expectCaddyAloneTrusted(config, site);
    expect(site.networks?.kit?.aliases).toEqual(['site']);
    expect(services.postgres.profiles).toEqual(['postgres']);
    expect(services.postgres.healthcheck?.test).toContain('pg_isready');
    expect(services.postgres.environment.POSTGRES_PASSWORD).toBeUndefined();
    const postgres = services.postgres.environment;
    expect(postgres.POSTGRES_PASSWORD_FILE).toBe('/run/secrets/postgres_password');
    for (const service of [site, services.postgres]) {
      expect(service.volumes).toContainEqual(expect.stringMatching(SECRETS_MOUNT));
      expect(service.secrets).toBeUndefined();
    }
  });
});

describe('the default path, up for real', () => {
  beforeAll(() => {
    removeAll(PROJECT);
    kit = layOut({
      SITE_DOMAIN: 'localhost',
      // The image the global setup built, as a kit that pulls its release would run it.
      ORGNOTE_IMAGE: IMAGE,
      ORGNOTE_VERSION: VERSION,
      COMPOSE_FILE: 'compose.yml',
      HTTPS_PORT: `127.0.0.1:${ports.https}`,
      HTTP_PORT: `127.0.0.1:${ports.http}`,
      SITE_PORT: String(sitePort),
      SIGNUP_RATE_LIMIT: '1',
    });
    useInternalTls(kit);
  });

  afterAll(() => {
    compose('down --volumes');
    removeAll(PROJECT);
    fs.rmSync(path.dirname(kit), { recursive: true, force: true });
  });

  it('starts the site and Caddy, and serves the page through Caddy over TLS', async () => {
    const up = compose('up --detach');
    expect(up.stderr).not.toMatch(/ERROR/);
    expect(up.status).toBe(0);
    const running = compose('ps --services --filter status=running');
    expect(running.stdout.trim().split('\n').sort()).toEqual(['backup', 'caddy', 'site']);

    const ca = await caddyRoot(compose);
    const page = () => fetchOverTls(`https://localhost:${ports.https}/`, ca);
    await until('the page comes through Caddy', () => page().then((r) => r.status === 200), 60_000);
    const res = await page();
    expect(res.authorized).toBe(true);
    expect(res.protocol).toMatch(/^TLSv1\.[23]$/);
    expect(res.body).toContain('Join wait list');
    expect(res.server).toBe('Caddy');
    // And the site's own port, on loopback only, for a look past Caddy.
    expect((await request(direct, 'GET', '/readyz')).status).toBe(200);
    caddy = { base: `https://127.0.0.1:${ports.https}`, tls: { name: 'localhost', ca } };
  });

  it('Caddy runs at the address TRUST_PROXY names, and the gateway is another', () => {
    const format = `{{(index .NetworkSettings.Networks "${KIT_NETWORK}").IPAddress}}`;
    const address = docker(['inspect', '--format', format, compose('ps -q caddy').stdout.trim()]);
    const trusted = compose('exec -T site printenv TRUST_PROXY').stdout.trim();
    expect(address).toBe(trusted);
    expect(kitGateway()).not.toBe(address);
  });

  it('the host is one client, whichever port it uses and whatever it forwards', async () => {
    const forging = (address: string) => ({ 'x-forwarded-for': address });
    // Three forged addresses, on the site's port and through Caddy (which sees the host at the
    // gateway too). The limit's one-minute windows follow the clock, so three quick signups see
    // two windows at most: with one budget, one at least is refused.
    const statuses = [
      await signUpStatus(direct, forging('203.0.113.1')),
      await signUpStatus(caddy, forging('198.51.100.7')),
      await signUpStatus(direct, forging('192.0.2.9')),
    ];
    expect(statuses[0]).toBe(201);
    expect(statuses.slice(1)).toContain(429);
    expect(statuses.filter((status) => status !== 201 && status !== 429)).toEqual([]);
    const ignored = `X-Forwarded-For from ${kitGateway()} is ignored: TRUST_PROXY does not trust`;
    const logged = () => compose('logs --no-color site').stdout.includes(ignored);
    await until('the site logs that it ignored the gateway X-Forwarded-For', logged, 10_000);
    // Another client on the kit's network, through Caddy: a budget of its own.
    expect(await signUpFromKitNetwork()).toBe(201);
  });

  it('the console believes https from Caddy alone', async () => {
    const added = compose(
      'exec -T site waitlist admin add ops@example.org',
      kit,
      'a long console password\n',
    );
    expect(added.stdout).toContain('Added ops@example.org');
    const forged = { 'x-forwarded-proto': 'https' };
    const refused = await request(direct, 'GET', '/admin/login', { headers: forged });
    expect(refused.status).toBe(403);
    expect(refused.body).toContain('The console needs https');
    const login = await request(caddy, 'GET', '/admin/login');
    expect(login.status).toBe(200);
    expect(login.body).toContain('name="password"');
  });
});

async function signUpStatus(target: Target, headers: Record<string, string>): Promise<number> {
  const form = { email: `compose-${++signups}@example.org` };
  return (await request(target, 'POST', '/api/subscriptions', { form, headers })).status;
}

/** The address the host's connections to a published port come from, as the site sees them. */
function kitGateway(): string {
  const format = '{{range .IPAM.Config}}{{.Gateway}}{{end}}';
  return docker(['network', 'inspect', '--format', format, KIT_NETWORK]);
}

/**
 * A visitor in a container of its own on the kit's network (an address of Docker's range), who
 * signs up through Caddy over TLS: the status Caddy brings back.
 */
async function signUpFromKitNetwork(): Promise<number> {
  const script = `
    const req = require('node:https').request({
      host: 'caddy', port: 443, servername: 'localhost', method: 'POST',
      path: '/api/subscriptions', ca: process.env.CA,
      headers: { host: 'localhost', 'content-type': 'application/x-www-form-urlencoded' },
    }, (res) => { console.log(res.statusCode); res.resume(); });
    req.on('error', (err) => { console.error(err.message); process.exit(1); });
    req.end('email=' + encodeURIComponent('visitor-on-the-network@example.org'));`;
  const run = ['run', '--rm', '--network', KIT_NETWORK, '--env', `CA=${caddy.tls!.ca}`];
  return Number(docker([...run, '--entrypoint', 'node', IMAGE, '-e', script]));
}

interface TlsAnswer {
  status: number;
  body: string;
  server?: string;
  authorized: boolean;
  protocol: string | null;
}

/** GET over TLS, trusting only Caddy's local root; a failed handshake counts as status 0. */
function fetchOverTls(url: string, ca: string): Promise<TlsAnswer> {
  return new Promise((resolve) => {
    const req = https.get(url, { ca, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      const socket = res.socket as TLSSocket;
      res.on('end', () => {
        resolve({
          status: res.statusCode ?? 0,
          body,
          server: String(res.headers.server),
          authorized: socket.authorized,
          protocol: socket.getProtocol(),
        });
      });
    });
    req.on('error', () => resolve({ status: 0, body: '', authorized: false, protocol: null }));
  });
}
