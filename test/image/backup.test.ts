// The kit's scheduled backups, for real on the private engine: deploy/compose.yml's backup service
// copying every few seconds into a folder of the host (made as docs/operating.md says, uid 1000's),
// the copies rotating to the last BACKUP_KEEP, the site's metric following them, and a restore
// onto a fresh volume as docs/operating.md "Restoring SQLite" writes it; then the postgres path's
// pg_dump copies, restored as "Restoring PostgreSQL" writes it. The only changes from what an
// operator runs: the image the global setup built, ports on 127.0.0.1 picked for the run, a
// BACKUP_INTERVAL of seconds, `tls internal`, and `docker-compose` (1.29) for `docker compose`.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { releasePort, reservePort } from '../../scripts/lib/launch/ports';
import { signupsIn } from '../support/sqlite-file';
import { until } from '../support/wait';
import { IMAGE, docker, removeAll, sh } from './docker';
import { layOutKit, setEnv, useInternalTls } from './kit';
import { OperatorShell, section, shBlocks, type Block } from './runbook';
import { answers, request, signUp, type Target } from './visitor';

const PROJECT = 'orgnote-ci-backup';
const RUNBOOK = 'docs/operating.md';
const KEEP = 2;
const DATED = /^waitlist-\d{4}-\d\d-\d\dT\d{6}Z\.(db|dump)$/;
/** A copy starts a node process (or pg_dump) in a container, on a crowded machine. */
const COPY_DEADLINE_MS = 90_000;
/** The kit's password for PostgreSQL: every character a URL must percent-encode. */
const PG_PASSWORD = 'p@ss:w/rd %1?#';

const ports = {
  http: reservePort(30000, 32000),
  https: reservePort(30000, 32000),
  site: reservePort(30000, 32000),
  replicas: [reservePort(30000, 31990)],
};
ports.replicas.push(reservePort(ports.replicas[0] + 1, ports.replicas[0] + 1));
const site: Target = { base: `http://127.0.0.1:${ports.site}` };
const replicas = ports.replicas.map((port): Target => ({ base: `http://127.0.0.1:${port}` }));

const folder = fs.mkdtempSync(path.join(os.tmpdir(), `${PROJECT}-`));
const kit = path.join(folder, 'deploy');
/** BACKUP_DIR: the operator's folder on another disk, here beside the kit. */
const backups = path.join(folder, 'orgnote-backups');

const env = { COMPOSE_PROJECT_NAME: PROJECT };
const operator = new OperatorShell({
  cwd: kit,
  env,
  substitutions: [
    ['docker compose', 'docker-compose'],
    ['/srv/orgnote-backups', backups],
  ],
});

/** The runbook's block of `heading` that holds `text`. */
function runbookBlock(heading: string, text: string): Block {
  const blocks = shBlocks(section(RUNBOOK, heading), `${RUNBOOK}, ${heading}`);
  const found = blocks.filter((block) => block.commands.join('\n').includes(text));
  if (found.length !== 1) throw new Error(`${RUNBOOK}, ${heading}: ${found.length} hold ${text}`);
  return found[0];
}

function compose(args: string): string {
  const result = sh(`docker-compose ${args}`, { cwd: kit, env });
  if (result.status !== 0) throw new Error(`docker-compose ${args}: ${result.stderr}`);
  return result.stdout;
}

/** Sets (or adds) `NAME=value` lines of the kit's .env, as an operator edits it. */
function setKitEnv(settings: Record<string, string>): void {
  setEnv(path.join(kit, '.env'), settings);
}

/** The kit as an operator lays it out: deploy/ as it ships, .env from the example. */
function layOut(): void {
  layOutKit(folder);
  fs.copyFileSync(path.join(kit, '.env.example'), path.join(kit, '.env'));
  setKitEnv({
    SITE_DOMAIN: 'localhost',
    // The image the global setup built, which compose.build.yml does not build again.
    COMPOSE_FILE: 'compose.yml',
    ORGNOTE_IMAGE: IMAGE,
    ORGNOTE_VERSION: 'latest',
    HTTP_PORT: `127.0.0.1:${ports.http}`,
    HTTPS_PORT: `127.0.0.1:${ports.https}`,
    SITE_PORT: String(ports.site),
    SITE_PORTS: `${ports.replicas[0]}-${ports.replicas[1]}`,
    BACKUP_DIR: backups,
    BACKUP_INTERVAL: '3s',
    BACKUP_KEEP: String(KEEP),
    // Settings that need SITE_URL: the CLI of the backup service must take them as the site does.
    WELCOME_MAIL: 'on',
    MAIL_TO_FILES: 'on',
  });
  useInternalTls(kit);
  // docs/operating.md, "Backing up": install -d -o 1000 -g 1000 -m 0700 /srv/orgnote-backups
  fs.mkdirSync(backups, { mode: 0o700 });
  fs.chownSync(backups, 1000, 1000);
}

const dated = () =>
  fs
    .readdirSync(backups)
    .filter((name) => DATED.test(name))
    .sort();
const logs = (service: string) => compose(`logs --no-color ${service}`);
const count = (text: string, pattern: RegExp) => text.match(pattern)?.length ?? 0;
const containerOf = (service: string) => compose(`ps -q ${service}`).trim().split('\n')[0];

/** The site's own scrape of its metrics listener, from inside its container. */
function lastBackupMetric(service = 'site'): number | undefined {
  const script = [
    "fetch('http://127.0.0.1:9464/metrics')",
    '.then((r) => r.text())',
    '.then((t) => process.stdout.write(t))',
  ].join('');
  const text = compose(`exec -T ${service} node -e "${script}"`);
  const line = /^backup_last_success_timestamp_seconds (\S+)$/m.exec(text);
  return line ? Number(line[1]) : undefined;
}

beforeAll(() => {
  removeAll(PROJECT);
  layOut();
});

afterAll(() => {
  sh('docker-compose down --volumes --remove-orphans', { cwd: kit, env });
  removeAll(PROJECT);
  fs.rmSync(folder, { recursive: true, force: true });
  for (const port of [ports.http, ports.https, ports.site, ...ports.replicas]) releasePort(port);
}, 120_000);

describe('docker-compose config', () => {
  /** The profile's services as Compose resolves them (python3-yaml: Compose's own). */
  function services(profile: string): Record<string, Record<string, unknown>> {
    const script = 'import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin)))';
    const toJson = `python3 -c '${script}'`;
    const out = sh(`docker-compose config | ${toJson}`, {
      cwd: kit,
      env: { ...env, COMPOSE_PROFILES: profile },
    });
    expect(out.status).toBe(0);
    return JSON.parse(out.stdout).services;
  }

  it('the sqlite path: a backup service of the site image, writing BACKUP_DIR, not a site', () => {
    const { site, backup } = services('sqlite');
    expect(backup.profiles).toEqual(['sqlite']);
    expect(backup.image).toBe(site.image);
    expect(backup.volumes).toEqual(
      expect.arrayContaining(['orgnote-data:/data:rw', `${backups}:/backups:rw`]),
    );
    expect(backup.command).toEqual(['bash', '/usr/local/bin/orgnote-backup', 'sqlite', '/backups']);
    // Caddy sends visitors to the name `site`: the backup service never answers to it.
    expect(backup.networks).toEqual({ kit: null });
    expect(backup.ports).toBeUndefined();
  });

  it('the postgres path: pg_dump as uid 1000, with the password in no environment', () => {
    const all = services('postgres');
    const backup = all['backup-postgres'];
    expect(backup.profiles).toEqual(['postgres']);
    expect(backup.user).toBe('1000:1000');
    expect(backup.environment).toMatchObject({ DATABASE_URL_FILE: '/run/secrets/database_url' });
    expect(JSON.stringify(backup.environment)).not.toMatch(/PASSWORD|postgres:\/\//);
    expect(backup.depends_on).toMatchObject({ postgres: { condition: 'service_healthy' } });
  });
});

describe('the sqlite path', () => {
  const emails = ['ann@example.org', 'bob@example.org', 'cy@example.org'];
  let firstCopyAt: number;

  it('no sample of the metric before the first copy', async () => {
    compose('up --detach site');
    await until('the site answers', () => answers(site, '/readyz'), 60_000);
    for (const email of emails) await signUp(site, email);
    expect(lastBackupMetric()).toBeUndefined();
  }, 120_000);

  it('a dated copy of every signup lands in BACKUP_DIR, the service started', async () => {
    const started = Date.now();
    compose('up --detach backup');
    await until('a copy in BACKUP_DIR', () => dated().length > 0, COPY_DEADLINE_MS);
    firstCopyAt = Date.now();
    console.log(`backup test: the first copy landed ${firstCopyAt - started} ms after up backup`);
    const [first] = dated();
    expect(first).toMatch(/\.db$/);
    const stat = fs.statSync(path.join(backups, first));
    expect([stat.uid, stat.mode & 0o777]).toEqual([1000, 0o600]);
    expect(signupsIn(path.join(backups, first))).toEqual(emails);
  }, 120_000);

  it(`keeps the last ${KEEP}, and the metric follows each copy`, async () => {
    let metric: number | undefined;
    await until('the metric reads a copy', () => (metric = lastBackupMetric()) !== undefined);
    expect(metric! * 1000).toBeGreaterThan(firstCopyAt - 60_000);
    expect(metric! * 1000).toBeLessThanOrEqual(Date.now());

    const pruned = () => count(logs('backup'), /kept the last 2; removed waitlist-/g) >= 2;
    await until('two older copies removed', pruned, COPY_DEADLINE_MS);
    // What the log names as the two newest copies is what the folder holds.
    const newest = () => {
      const made = [
        ...logs('backup').matchAll(/Backed up \d+ signup\(s\) .* to \/backups\/(\S+)/g),
      ];
      return made.slice(-KEEP).map((match) => match[1]);
    };
    await until('the folder holds the newest two', () => {
      const names = newest();
      return names.length === KEEP && JSON.stringify(dated()) === JSON.stringify(names);
    });
    const later = () => (lastBackupMetric() ?? 0) > metric!;
    await until('the metric moves with a later copy', later, COPY_DEADLINE_MS);
    expect(fs.readdirSync(backups).filter((name) => !DATED.test(name))).toEqual([]);
  }, 180_000);

  it('docker compose stop: the service exits 0 on SIGTERM, not killed', () => {
    const id = containerOf('backup');
    compose('stop backup');
    expect(docker(['inspect', '-f', '{{.State.ExitCode}}', id])).toBe('0');
    expect(logs('backup')).toMatch(/backup: stopped/);
  }, 60_000);

  it('Restoring SQLite onto a fresh volume: every signup is back', async () => {
    // The disk under the volume is lost; BACKUP_DIR, on another, is not.
    compose('down --volumes');
    const newest = dated().at(-1);
    let restored = '';
    for (const command of runbookBlock('## Restoring SQLite', 'docker compose run').commands) {
      const run = operator.run(command);
      if (command.includes('waitlist restore')) restored = run.stdout;
    }
    expect(restored).toContain(`Restored ${emails.length} signup(s)`);
    expect(restored).toContain(`from /backups/${newest}`);
    await until('the restored site answers', () => answers(site, '/readyz'), 60_000);
    const list = compose('exec -T site waitlist list');
    for (const email of emails) expect(list).toContain(email);
    expect(compose('exec -T site waitlist count').trim()).toBe(String(emails.length));
    const page = await request(site, 'GET', '/');
    expect(page.status).toBe(200);
  }, 180_000);
});

describe('the postgres path', () => {
  const kept = 'pg-kept@example.org';
  const later = 'pg-later@example.org';
  const allReady = async () =>
    (await Promise.all(replicas.map((r) => answers(r, '/readyz')))).every(Boolean);
  const dumps = () => dated().filter((name) => name.endsWith('.dump'));

  beforeAll(() => {
    compose('down --volumes');
    setKitEnv({ COMPOSE_PROFILES: 'postgres', BACKUP_INTERVAL: '1h' });
    // The operator's two secret files, as .env.example says to make them.
    const secrets = path.join(kit, 'secrets');
    fs.chmodSync(secrets, 0o711);
    const secret = (name: string, value: string, uid: number) => {
      fs.writeFileSync(path.join(secrets, name), value, { mode: 0o600 });
      fs.chownSync(path.join(secrets, name), uid, uid);
    };
    secret('postgres_password', PG_PASSWORD, 999);
    const url = `postgres://orgnote:${encodeURIComponent(PG_PASSWORD)}@postgres:5432/orgnote`;
    secret('database_url', url, 1000);
  }, 120_000);

  it('pg_dump -Fc copies land in BACKUP_DIR, with the password never in sight', async () => {
    compose('up --detach');
    await until('both replicas are ready', allReady, 120_000);
    await signUp(replicas[0], kept);
    await until('a dump at the service start', () => dumps().length > 0, COPY_DEADLINE_MS);
    // The first copy may precede the signup: a restart copies again at once.
    compose('restart backup-postgres');
    const twice = () => count(logs('backup-postgres'), /pg_dump wrote /g) >= 2;
    await until('a dump after the restart', twice, COPY_DEADLINE_MS);
    const newest = path.join(backups, dumps().at(-1)!);
    expect(fs.readFileSync(newest).subarray(0, 5).toString()).toBe('PGDMP');
    const stat = fs.statSync(newest);
    expect([stat.uid, stat.mode & 0o777]).toEqual([1000, 0o600]);
    expect(lastBackupMetric('site-postgres')).toBeGreaterThan(0);

    const inspect = docker(['inspect', containerOf('backup-postgres')]);
    for (const secret of [PG_PASSWORD, encodeURIComponent(PG_PASSWORD), 'p@ss', 'p%40ss'])
      expect(inspect).not.toContain(secret);
  }, 240_000);

  it('Restoring PostgreSQL from the newest copy: the copy signups only', async () => {
    await signUp(replicas[0], later);
    operator.runBlock(runbookBlock('## Restoring PostgreSQL', 'pg_restore'));
    await until('both replicas are ready again', allReady, 120_000);
    const list = compose('exec -T --index=1 site-postgres waitlist list');
    expect(list).toContain(kept);
    expect(list).not.toContain(later);
  }, 180_000);
});
