// deploy/compose.yml's sqlite path with the monitoring profile, up for real on the private
// engine: Caddy in front of two replicas of the name `site` (the site, and a stand-in replica
// whose store is away) sends each its share and takes neither out for the other, and passes
// over one once it stops; the kit's Prometheus scrapes the site through that name, and fires
// OrgNoteSiteMissing once `docker-compose stop site` has taken it out of the name.
// What differs from the shipped kit: Caddy's `tls internal` instead of ACME, ports on 127.0.0.1
// picked for the run, the image the global setup built, and copies of scrape.yml and alerts.yml
// with shorter intervals (scrapes and look-ups every 2 s, rules every second, 10 s of `for`
// instead of 2 minutes for OrgNoteSiteMissing and OrgNoteSiteDown), so that an alert fires in
// seconds, not minutes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { releasePort, reservePort } from '../../scripts/lib/launch/ports';
import { until } from '../support/wait';
import { IMAGE, ROOT, docker, removeAll, sh, type Run } from './docker';
import { caddyRoot, layOutKit, useInternalTls, withSettings } from './kit';
import { request, type Answer, type Target } from './visitor';

const PROJECT = 'orgnote-ci-mon';
const KIT_NETWORK = `${PROJECT}_kit`;
/** The stand-in replica, a container of its own on the kit's network, named `site` there too. */
const STORE_AWAY = `${PROJECT}-store-away`;
const ports = {
  https: reservePort(30000, 32000),
  http: reservePort(30000, 32000),
  site: reservePort(30000, 32000),
  prometheus: reservePort(30000, 32000),
};
const prometheus = `http://127.0.0.1:${ports.prometheus}`;
const ALERTS = fs.readFileSync(path.join(ROOT, 'deploy/prometheus/alerts.yml'), 'utf8');

/** What the runs measured, printed at the end for the record. */
const figures: string[] = [];
let kit: string;
/** Caddy's site over TLS, from the host. */
let caddy: Target;

/** `text` with each [from, to] replaced; each `from` must be there, so a drifted file fails. */
function edited(text: string, replacements: [from: string | RegExp, to: string][]): string {
  let result = text;
  for (const [from, to] of replacements) {
    expect(result).toMatch(from);
    result = result.replace(from, to);
  }
  return result;
}

/** The kit as an operator lays it out (deploy/ beside the sources, .env from the example). */
function layOut(settings: Record<string, string>, quick: boolean): string {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), `${PROJECT}-`));
  const deploy = layOutKit(folder);
  const dotenv = fs.readFileSync(path.join(ROOT, 'deploy/.env.example'), 'utf8');
  // The image the global setup built; compose.yml alone.
  const image = { ORGNOTE_IMAGE: IMAGE, ORGNOTE_VERSION: 'latest' };
  const env = { ...image, COMPOSE_FILE: 'compose.yml', ...settings };
  fs.writeFileSync(path.join(deploy, '.env'), withSettings(dotenv, env));
  if (quick) quicken(deploy);
  return deploy;
}

/** The test's own changes to the kit: Caddy's local CA, and monitoring in seconds. */
function quicken(deploy: string): void {
  const file = (name: string) => path.join(deploy, name);
  useInternalTls(deploy);
  const scrape = fs.readFileSync(file('prometheus/scrape.yml'), 'utf8');
  const quickScrape = edited(scrape, [
    ['scrape_interval: 30s', 'scrape_interval: 2s'],
    ['scrape_timeout: 15s', 'scrape_timeout: 2s'],
    ['evaluation_interval: 30s', 'evaluation_interval: 1s'],
    ['refresh_interval: 30s', 'refresh_interval: 2s'],
  ]);
  fs.writeFileSync(file('prometheus/scrape.yml'), quickScrape);
  const forOf = (alert: string) =>
    new RegExp(`(?<=- alert: ${alert}\\n(?:(?!\\s+- alert:).*\\n)*?\\s+for: )2m$`, 'm');
  const quickAlerts = edited(ALERTS, [
    [forOf('OrgNoteSiteMissing'), '10s'],
    [forOf('OrgNoteSiteDown'), '10s'],
  ]);
  fs.writeFileSync(file('prometheus/alerts.yml'), quickAlerts);
}

function compose(args: string, deploy = kit): Run {
  return sh(`docker-compose --project-name ${PROJECT} ${args}`, { cwd: deploy });
}

/** A container's address on the kit's network. */
function addressOf(container: string): string {
  const format = `{{(index .NetworkSettings.Networks "${KIT_NETWORK}").IPAddress}}`;
  return docker(['inspect', '--format', format, container]);
}

interface Alert {
  labels: Record<string, string>;
  state: 'pending' | 'firing';
}

interface ScrapeTarget {
  labels: Record<string, string>;
  health: 'up' | 'down' | 'unknown';
}

/** One answer of Prometheus's HTTP API (its `data`), or undefined while it does not answer. */
async function fromPrometheus<T>(pathname: string): Promise<T | undefined> {
  try {
    const res = await fetch(`${prometheus}${pathname}`);
    return res.ok ? ((await res.json()) as { data: T }).data : undefined;
  } catch {
    return undefined;
  }
}

async function activeAlerts(name: string): Promise<Alert[]> {
  const data = await fromPrometheus<{ alerts: Alert[] }>('/api/v1/alerts');
  return (data?.alerts ?? []).filter((alert) => alert.labels.alertname === name);
}

afterAll(() => {
  for (const port of Object.values(ports)) releasePort(port);
  const lines = figures.map((line) => `  ${line}\n`).join('');
  if (lines) process.stdout.write(`\nMonitoring of the kit:\n${lines}`);
});

describe('docker-compose config with the monitoring profile', () => {
  /** What `docker-compose config` resolves for the profiles, as JSON (python3-yaml). */
  function resolved(profiles: string) {
    const deploy = layOut({ COMPOSE_PROFILES: profiles, SITE_DOMAIN: 'orgnote.example' }, false);
    try {
      const script = 'import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))';
      const toJson = `python3 -c '${script}'`;
      const result = compose(`config | ${toJson}`, deploy);
      expect(result.status).toBe(0);
      type Service = {
        image: string;
        profiles?: string[];
        environment: Record<string, string>;
        ports?: unknown[];
        volumes?: string[];
        networks?: Record<string, unknown>;
      };
      return JSON.parse(result.stdout) as { services: Record<string, Service> };
    } finally {
      fs.rmSync(path.dirname(deploy), { recursive: true, force: true });
    }
  }

  it('adds Prometheus: on the kit network, its page on 127.0.0.1, its files read-only', () => {
    const { services } = resolved('sqlite,monitoring');
    const { prometheus: service, site } = services;
    expect(service.image).toBe('prom/prometheus:v2.42.0');
    expect(service.profiles).toEqual(['monitoring']);
    expect(Object.keys(service.networks ?? {})).toEqual(['kit']);
    expect(JSON.stringify(service.ports)).toContain('127.0.0.1:9090:9090');
    expect(service.volumes).toContainEqual(
      expect.stringMatching(/\/deploy\/prometheus:\/etc\/prometheus:ro$/),
    );
    // The port scrape.yml's job names, on every address of the site's container.
    expect(site.environment).toMatchObject({ METRICS_PORT: '9464', METRICS_HOST: '0.0.0.0' });
    expect(fs.readFileSync(path.join(ROOT, 'deploy/prometheus/scrape.yml'), 'utf8')).toMatch(
      /names: \['site'\]\n\s+type: A\n\s+port: 9464/,
    );
  });
});

describe('the kit with the monitoring profile, up for real', () => {
  beforeAll(async () => {
    removeAll(PROJECT);
    kit = layOut(
      {
        COMPOSE_PROFILES: 'sqlite,monitoring',
        SITE_DOMAIN: 'localhost',
        HTTPS_PORT: `127.0.0.1:${ports.https}`,
        HTTP_PORT: `127.0.0.1:${ports.http}`,
        SITE_PORT: String(ports.site),
        PROMETHEUS_PORT: String(ports.prometheus),
      },
      true,
    );
    const up = compose('up --detach');
    if (up.status !== 0) throw new Error(`docker-compose up exited ${up.status}:\n${up.stderr}`);
    caddy = {
      base: `https://127.0.0.1:${ports.https}`,
      tls: { name: 'localhost', ca: await caddyRoot(compose) },
    };
    const page = async () => (await request(caddy, 'GET', '/')).status === 200;
    await until('the page comes through Caddy', page, 90_000);
  }, 300_000);

  afterAll(() => {
    // The stand-in first: the kit's network cannot go while a container is on it.
    sh(`docker rm -f ${STORE_AWAY}`);
    compose('down --volumes');
    removeAll(PROJECT);
    fs.rmSync(path.dirname(kit), { recursive: true, force: true });
  }, 120_000);

  describe('Caddy in front of the replicas of `site`', () => {
    /** Which replica a page through Caddy came from. */
    const sender = (page: Answer) => {
      if (page.body.includes('store is away')) return 'away';
      return page.body.includes('Join wait list') ? 'site' : 'unknown';
    };

    it('sends pages to each replica, and one failing /readyz takes no other out', async () => {
      // A replica whose store is away answers as the site does then: its pages (prerendered)
      // 200, /readyz and a signup 503.
      const script = `
        const server = require('node:http').createServer((req, res) => {
          const away = req.url === '/readyz' || req.method !== 'GET';
          res.writeHead(away ? 503 : 200, { 'content-type': 'text/plain' });
          res.end(away ? 'unavailable' : 'the replica whose store is away');
        });
        server.listen(3000);
        process.on('SIGTERM', () => process.exit(0));`;
      const network = ['--network', KIT_NETWORK, '--network-alias', 'site'];
      docker([
        'run',
        '-d',
        '--name',
        STORE_AWAY,
        ...network,
        '--read-only',
        '--entrypoint',
        'node',
        IMAGE,
        '-e',
        script,
      ]);
      // Caddy looks the name up every 2 s and picks a replica per request: both answer soon.
      // One name for both, with one active check, is one upstream: its connections go to one
      // replica, and a check that meets this one takes both out (Caddy's own 503, which ends
      // the wait too).
      const answered = { site: 0, away: 0, unknown: 0 };
      const statuses: number[] = [];
      const bothAnswered = async () => {
        const page = await request(caddy, 'GET', '/');
        statuses.push(page.status);
        answered[sender(page)]++;
        return page.status !== 200 || (answered.site >= 3 && answered.away >= 3);
      };
      // The counts below say what happened if it never does.
      await until('each replica sent 3 pages through Caddy', bothAnswered, 60_000).catch(() => {});
      figures.push(
        `a replica failing /readyz: ${statuses.length} pages, ${JSON.stringify(answered)}`,
      );
      expect(statuses.filter((status) => status !== 200)).toEqual([]);
      const enough = (pages: number) => (pages >= 3 ? '3 or more' : pages);
      const { site, away, unknown } = answered;
      expect({ site: enough(site), away: enough(away), unknown }).toEqual({
        site: '3 or more',
        away: '3 or more',
        unknown: 0,
      });
    }, 120_000);

    it('passes over a replica once it stops', async () => {
      docker(['stop', STORE_AWAY]);
      const answers: { status: number; from: string; ms: number }[] = [];
      for (let i = 0; i < 12; i++) {
        const started = Date.now();
        const page = await request(caddy, 'GET', '/');
        answers.push({ status: page.status, from: sender(page), ms: Date.now() - started });
      }
      const slowest = Math.max(...answers.map((answer) => answer.ms));
      figures.push(`a replica stopped: 12 pages, the slowest in ${slowest} ms`);
      expect(answers.map(({ status, from }) => `${status} ${from}`)).toEqual(
        Array(12).fill('200 site'),
      );
      docker(['rm', STORE_AWAY]);
    }, 120_000);
  });

  describe("the kit's Prometheus", () => {
    let site: string;

    it('scrapes the site through its name, with every alert of alerts.yml', async () => {
      site = `${addressOf(compose('ps -q site').stdout.trim())}:9464`;
      // The stand-in replica has left the name, so its target goes: the site's alone is left.
      const onlySiteUp = async () => {
        const data = await fromPrometheus<{ activeTargets: ScrapeTarget[] }>('/api/v1/targets');
        const targets = (data?.activeTargets ?? []).filter(
          (target) => target.labels.job === 'orgnote-site-replicas',
        );
        return (
          targets.length === 1 && targets[0].labels.instance === site && targets[0].health === 'up'
        );
      };
      await until(`Prometheus scrapes ${site} alone, and it is up`, onlySiteUp, 90_000);
      const rules = await fromPrometheus<{ groups: { rules: { name: string }[] }[] }>(
        '/api/v1/rules',
      );
      const loaded = rules!.groups.flatMap((group) => group.rules.map((rule) => rule.name));
      const shipped = [...ALERTS.matchAll(/^\s+- alert: (\w+)$/gm)].map((match) => match[1]);
      expect(loaded.sort()).toEqual(shipped.sort());
      // Pending at most while Prometheus waited for the first scrape; gone once the site is up.
      const quiet = async () => (await activeAlerts('OrgNoteSiteMissing')).length === 0;
      await until('OrgNoteSiteMissing is not active while the site runs', quiet, 30_000);
    }, 120_000);

    it('fires OrgNoteSiteMissing once the site stops, and clears it once it is back', async () => {
      const stop = compose('stop site');
      expect(stop.status).toBe(0);
      const stopped = Date.now();
      const firing = async () =>
        (await activeAlerts('OrgNoteSiteMissing')).some((a) => a.state === 'firing');
      await until('OrgNoteSiteMissing fires', firing, 120_000);
      const firedAfter = Date.now() - stopped;
      const [alert] = await activeAlerts('OrgNoteSiteMissing');
      expect(alert.labels).toEqual({ alertname: 'OrgNoteSiteMissing', severity: 'critical' });
      // Whether OrgNoteSiteDown fires too depends on the host's DNS: with a name Docker's DNS
      // no longer knows, Prometheus drops the target on NXDOMAIN, or keeps it (down) when the
      // look-up fails (no upstream DNS here). OrgNoteSiteMissing fires either way.
      const down = (await activeAlerts('OrgNoteSiteDown')).map((a) => a.state);
      figures.push(`OrgNoteSiteDown meanwhile: ${down.join(', ') || 'not active'}`);

      expect(compose('start site').status).toBe(0);
      const started = Date.now();
      const cleared = async () => (await activeAlerts('OrgNoteSiteMissing')).length === 0;
      await until('OrgNoteSiteMissing clears', cleared, 120_000);
      const clearedAfter = Date.now() - started;
      figures.push(`OrgNoteSiteMissing (10 s of for): fired ${firedAfter} ms after the stop`);
      figures.push(`OrgNoteSiteMissing: cleared ${clearedAfter} ms after the start`);
    }, 300_000);
  });
});
