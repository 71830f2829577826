// deploy/compose.yml: checked by a real `docker-compose config` on both paths, then its default
// path brought up for real on the private engine, a page fetched through Caddy over TLS. The only
// changes from what an operator runs: `tls internal` instead of ACME (no public name here), the
// image the global setup built, and ports on 127.0.0.1 picked for the run.
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import type { TLSSocket } from 'node:tls';
import { releasePort, reservePort } from '../support/ports';
import { until } from '../support/wait';
import { IMAGE, ROOT, removeAll, sh, type Run } from './docker';

const PROJECT = 'orgnote-ci-compose';
const ports = { https: reservePort(30000, 32000), http: reservePort(30000, 32000) };
const sitePort = reservePort(30000, 32000);

interface Config {
  services: Record<string, Service>;
  networks: Record<string, { ipam: { config: { subnet: string }[] } }>;
}
interface Service {
  profiles?: string[];
  environment: Record<string, string>;
  ports?: unknown[];
  restart?: string;
  volumes?: string[];
  deploy?: { replicas: number };
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  secrets?: unknown;
  networks?: Record<string, { aliases?: string[] } | null>;
}

/** deploy/secrets, read-only at /run/secrets: the files the *_FILE settings name. */
const SECRETS_MOUNT = /\/deploy\/secrets:\/run\/secrets:ro$/;

let kit: string;

/** The kit as an operator lays it out: deploy/ beside the sources, .env made from the example. */
function layOut(env: Record<string, string>): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'orgnote-ci-compose-'));
  const deploy = path.join(folder, 'deploy');
  fs.mkdirSync(path.join(deploy, 'secrets'), { recursive: true });
  for (const file of ['compose.yml', 'Caddyfile', 'secrets/.gitignore']) {
    fs.copyFileSync(path.join(ROOT, 'deploy', file), path.join(deploy, file));
  }
  let dotenv = fs.readFileSync(path.join(ROOT, 'deploy/.env.example'), 'utf8');
  for (const [name, value] of Object.entries(env)) {
    const line = new RegExp(`^#? ?${name}=.*$`, 'm');
    expect(dotenv).toMatch(line);
    dotenv = dotenv.replace(line, value === '' ? `# ${name}=` : `${name}=${value}`);
  }
  fs.writeFileSync(path.join(deploy, '.env'), dotenv);
  // No secret file: until a *_FILE setting names one, the kit needs none.
  return deploy;
}

function compose(args: string, deploy = kit): Run {
  return sh(`docker-compose --project-name ${PROJECT} ${args}`, { cwd: deploy });
}

/** What `docker-compose config` resolves for the profile, as JSON (python3-yaml: Compose's own). */
function resolved(profile: string): Config {
  const deploy = layOut({ COMPOSE_PROFILES: profile });
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

afterAll(() => {
  for (const port of [ports.https, ports.http, sitePort]) releasePort(port);
});

describe('docker-compose config', () => {
  it('the default path: one site on SQLite, published on 127.0.0.1 only, behind Caddy', () => {
    const { services, networks } = resolved('sqlite');
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
    // The fixed subnet is what TRUST_PROXY names.
    expect(site.environment.TRUST_PROXY).toBe(networks.kit.ipam.config[0].subnet);
    expect(services.caddy.environment).toEqual({
      SITE_DOMAIN: 'orgnote.example',
      SITE_UPSTREAMS: 'site:3000',
    });
  });

  it('the postgres profile: PostgreSQL with pg_isready, and the site as two replicas', () => {
    const { services, networks } = resolved('postgres');
    const site = services['site-postgres'];
    expect(site.profiles).toEqual(['postgres']);
    expect(site.deploy?.replicas).toBeGreaterThanOrEqual(2);
    expect(site.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
    expect(site.environment.DATABASE_URL_FILE).toBe('/run/secrets/database_url');
    expect(site.environment.TRUST_PROXY).toBe(networks.kit.ipam.config[0].subnet);
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
      SITE_IMAGE: IMAGE,
      HTTPS_PORT: `127.0.0.1:${ports.https}`,
      HTTP_PORT: `127.0.0.1:${ports.http}`,
      SITE_PORT: String(sitePort),
    });
    const caddyfile = path.join(kit, 'Caddyfile');
    const siteBlock = /^\{\$SITE_DOMAIN\} \{$/m;
    const original = fs.readFileSync(caddyfile, 'utf8');
    const withInternalTls = original.replace(siteBlock, (line) => `${line}\n\ttls internal`);
    expect(withInternalTls).toContain('tls internal');
    fs.writeFileSync(caddyfile, withInternalTls);
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
    expect(running.stdout.trim().split('\n').sort()).toEqual(['caddy', 'site']);

    const root = () => compose('exec -T caddy cat /data/caddy/pki/authorities/local/root.crt');
    await until('Caddy has made its local root', () => root().status === 0, 30_000);
    const ca = root().stdout;
    const page = () => fetchOverTls(`https://localhost:${ports.https}/`, ca);
    await until('the page comes through Caddy', () => page().then((r) => r.status === 200), 60_000);
    const res = await page();
    expect(res.authorized).toBe(true);
    expect(res.protocol).toMatch(/^TLSv1\.[23]$/);
    expect(res.body).toContain('Join wait list');
    expect(res.server).toBe('Caddy');
    // And the site's own port, on loopback only, for a look past Caddy.
    expect((await fetch(`http://127.0.0.1:${sitePort}/readyz`)).status).toBe(200);
  });
});

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
