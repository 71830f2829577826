// Every command of the operators' docs, run as written on the private engine, read from the files
// at test time (a moved or renamed section fails here):
// - README.md, "## Running it on a server";
// - docs/operating.md, "## Docker" and the one-line form of "## Docker Compose", and every ```sh
//   block of the sections named in RUNBOOK.
// The only changes: `docker-compose` (1.29) for `docker compose`; `--network host` for
// `docker build`; the engine has no default bridge, so a `docker run -d` that publishes a port
// joins a network of the test's; Caddy's `tls internal` instead of ACME; ports on 127.0.0.1 of
// the test's band instead of 3000, 80 and 443; a folder of the test's for /srv/orgnote-backups.
// Input (a password) is given on stdin, files an operator keeps (password.txt) are made. No
// command is skipped.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { releasePort, reservePort } from '../../scripts/lib/launch/ports';
import { until } from '../support/wait';
import { ROOT, docker, removeAll, sh } from './docker';
import { caddyRoot, setEnv, useInternalTls } from './kit';
import { COMPOSE_UPGRADE, OperatorShell, section, shBlocks, type Block } from './runbook';
import { answers, logIn, request, signUp, type Target } from './visitor';

const README = 'README.md';
const RUNBOOK = {
  file: 'docs/operating.md',
  // prettier-ignore
  sections: [
    '## Backing up',
    '## Restoring SQLite',
    '## Restoring PostgreSQL',
    '## Upgrade',
    '## Rollback',
  ],
};
const where = (file: string, heading: string) => `${file}, ${heading}`;
const FIRST_SCREEN = '## Running it on a server';
const firstScreen = shBlocks(section(README, FIRST_SCREEN), where(README, FIRST_SCREEN));
const DOCKER = '## Docker';
const dockerItem = shBlocks(section(RUNBOOK.file, DOCKER), where(RUNBOOK.file, DOCKER));
const composeItem = section(RUNBOOK.file, '## Docker Compose');
const runbook = Object.fromEntries(
  RUNBOOK.sections.map((heading) => {
    return [heading, shBlocks(section(RUNBOOK.file, heading), where(RUNBOOK.file, heading))];
  }),
);

/** The one block of `heading` that holds every one of `texts`: found by what it does. */
function block(heading: string, ...texts: string[]): Block {
  const holds = (b: Block) => texts.every((text) => b.commands.join('\n').includes(text));
  const found = runbook[heading].filter(holds);
  if (found.length !== 1) {
    throw new Error(`${RUNBOOK.file}, ${heading}: ${found.length} blocks hold ${texts.join(', ')}`);
  }
  return found[0];
}

// Names as the docs write them (container orgnote-site, volume orgnote-data), on the private
// engine; the compose project gets the prefix the global setup sweeps.
const PROJECT = 'orgnote-ci-readme';
const NETWORK = `${PROJECT}-net`;
const PASSWORD = 'a long console password';
const port = reservePort(30000, 32000);
const caddyPorts = { http: reservePort(30000, 32000), https: reservePort(30000, 32000) };
const sitePort = reservePort(30000, 32000);
const replicaPorts = [reservePort(30000, 31990)];
replicaPorts.push(reservePort(replicaPorts[0] + 1, replicaPorts[0] + 1));

const checkout = fs.mkdtempSync(path.join(os.tmpdir(), `${PROJECT}-`));
/** BACKUP_DIR, as "Backing up" makes it: the operator's other disk. */
const backups = path.join(checkout, 'orgnote-backups');
const composeEnv = { COMPOSE_PROJECT_NAME: PROJECT };
const operator = new OperatorShell({
  cwd: checkout,
  env: composeEnv,
  substitutions: [
    ['docker compose', 'docker-compose'],
    ['docker build ', 'docker build --network host '],
    ['docker run -d ', `docker run -d --network ${NETWORK} `],
    ['127.0.0.1:3000', `127.0.0.1:${port}`],
    ['/srv/orgnote-backups', backups],
  ],
});
const direct: Target = { base: `http://127.0.0.1:${port}` };
let caddy: Target;

const waitlist = (args: string) => docker(['exec', 'orgnote-site', 'waitlist', ...args.split(' ')]);
const inCompose = (args: string) => {
  const result = sh(`docker-compose ${args}`, { cwd: operator.cwd, env: composeEnv });
  if (result.status !== 0) throw new Error(`docker-compose ${args}: ${result.stderr}`);
  return result.stdout;
};
const inVolume = (volume: string, script: string) => {
  const mount = `${volume}:/data`;
  return docker(['run', '--rm', '-v', mount, '--entrypoint', 'sh', 'orgnote-site', '-c', script]);
};

function cleanUp(): void {
  if (fs.existsSync(path.join(checkout, 'deploy/.env'))) {
    sh('docker-compose down --volumes --remove-orphans', {
      cwd: path.join(checkout, 'deploy'),
      env: { COMPOSE_PROJECT_NAME: PROJECT },
    });
  }
  sh('docker rm -f orgnote-site; docker volume rm -f orgnote-data');
  sh('docker image rm orgnote-site orgnote-site:old orgnote-site:new');
  // The stages of that build, untagged now.
  sh('docker image prune --force');
  removeAll(PROJECT);
}

beforeAll(() => {
  cleanUp();
  // The checkout an operator clones: the working tree's files that git tracks or would.
  const files = execFileSync('git', ['ls-files', '-z', '-co', '--exclude-standard'], { cwd: ROOT });
  const copy = `tar --null -T - -cf - --ignore-failed-read | tar -x -C ${checkout}`;
  execFileSync('bash', ['-c', copy], {
    cwd: ROOT,
    input: files,
    stdio: ['pipe', 'ignore', 'ignore'],
  });
  fs.writeFileSync(path.join(checkout, 'password.txt'), `${PASSWORD}\n`);
  docker(['network', 'create', NETWORK]);
}, 60_000);

afterAll(() => {
  cleanUp();
  fs.rmSync(checkout, { recursive: true, force: true });
  for (const held of [port, caddyPorts.http, caddyPorts.https, sitePort, ...replicaPorts]) {
    releasePort(held);
  }
}, 120_000);

describe('docs/operating.md, Docker: build, run and the waitlist command', () => {
  it('builds the image, runs it, and its waitlist command counts, adds and backs up', async () => {
    const [build, run, count, adminAdd, backup] = dockerItem[0].commands;
    operator.run(build);
    operator.run(run);
    await until('the site answers on its published port', () => answers(direct, '/readyz'), 60_000);
    await signUp(direct, 'kept@example.org');
    expect(operator.run(count).stdout.trim()).toBe('1');
    const added = operator.run(adminAdd).stdout.trim();
    expect(added).toBe('Added ops@example.org: the console is at /admin.');
    operator.run(backup);
    const header = inVolume('orgnote-data', 'head -c 15 /data/backups/waitlist.db');
    expect(header).toBe('SQLite format 3');
    expect(dockerItem).toHaveLength(1);
    expect(dockerItem[0].commands).toHaveLength(5);
  }, 600_000);

  it('the console refuses a login over plain http through the published port, and says why', async () => {
    // The site sees Docker's gateway, not loopback: the password would cross a network in clear.
    const { login, setCookie } = await logIn(direct, 'ops@example.org', PASSWORD);
    expect(login.status).toBe(403);
    expect(setCookie).toBe('');
    for (const named of ['SITE_URL', 'TRUST_PROXY', 'docker run -p'])
      expect(login.body).toContain(named);
  });
});

describe('docs/operating.md with the container of its Docker section', () => {
  it('Backing up: a backup in the volume, and a copy on the host', () => {
    operator.runBlock(block('## Backing up', 'docker cp'));
    const copy = fs.readFileSync(path.join(checkout, 'waitlist-backup.db'));
    expect(copy.subarray(0, 15).toString()).toBe('SQLite format 3');
  });

  it.each([
    ['from the volume', 'restore /data/backups/waitlist.db', 'later-1@example.org'],
    ['from a copy off the host', 'restore /backup/waitlist.db', 'later-2@example.org'],
    ['by hand', '--entrypoint sh', 'later-3@example.org'],
  ])('Restoring SQLite %s: the backup signups, no later one', async (_, text, later) => {
    await signUp(direct, later);
    expect(waitlist('list')).toContain(later);
    operator.runBlock(block('## Restoring SQLite', 'docker stop orgnote-site', text));
    await until('the restored site answers', () => answers(direct, '/readyz'), 60_000);
    const list = waitlist('list');
    expect(list).toContain('kept@example.org');
    expect(list).not.toContain(later);
    expect(waitlist('admin list')).toContain('ops@example.org');
  });

  it('Upgrade: backed up with the old image, the new one runs on the same data', async () => {
    operator.runBlock(block('## Upgrade', 'docker tag', 'docker build'));
    const readyz = operator.runBlock(block('## Upgrade', 'docker run -d', 'orgnote-site:new'));
    expect(readyz.stdout).toContain('"status":"ready"');
    expect(docker(['inspect', '-f', '{{.Config.Image}}', 'orgnote-site'])).toBe('orgnote-site:new');
    expect(inVolume('orgnote-data', 'ls /data/backups')).toContain('before-upgrade.db');
    expect(waitlist('list')).toContain('kept@example.org');
  }, 600_000);

  it('Rollback: the old image on the backup; signups since the upgrade are gone', async () => {
    await signUp(direct, 'since-upgrade@example.org');
    expect(waitlist('list')).toContain('since-upgrade@example.org');
    operator.runBlock(block('## Rollback', 'docker run -d', 'orgnote-site:old'));
    expect(docker(['inspect', '-f', '{{.Config.Image}}', 'orgnote-site'])).toBe('orgnote-site:old');
    const list = waitlist('list');
    expect(list).toContain('kept@example.org');
    expect(list).not.toContain('since-upgrade@example.org');
    // The Docker section's container is done with; the kit takes over.
    docker(['rm', '--force', 'orgnote-site']);
  }, 120_000);
});

describe('README, "Running it on a server": the kit in two commands, then the console', () => {
  it('cd deploy, cp .env.example .env, docker compose up -d: the site over TLS', async () => {
    const [cd, copy, up] = firstScreen[0].commands;
    expect(cd).toBe('cd deploy');
    operator.run(cd);
    operator.run(copy);
    // What this machine changes: local ports, and Caddy's own CA instead of ACME.
    const env = path.join(operator.cwd, '.env');
    const settings = {
      HTTP_PORT: `127.0.0.1:${caddyPorts.http}`,
      HTTPS_PORT: `127.0.0.1:${caddyPorts.https}`,
      SITE_PORT: String(sitePort),
      SITE_PORTS: `${replicaPorts[0]}-${replicaPorts[1]}`,
    };
    setEnv(env, settings);
    useInternalTls(operator.cwd);

    operator.run(up);
    const name = /^SITE_DOMAIN=(.+)$/m.exec(fs.readFileSync(env, 'utf8'))![1];
    caddy = await throughCaddy(name);
    const page = await request(caddy, 'GET', '/');
    expect(page.status).toBe(200);
    expect(page.body).toContain('Join wait list');
    expect(page.headers.server).toBe('Caddy');
    // docs/operating.md's one-line form of the same commands, under Docker Compose.
    const inline = /`(cd deploy && [^`]+)`/.exec(composeItem)?.[1];
    const written = [cd, copy, up].map((c) => c.replace(/\s+#.*$/, '')).join(' && ');
    expect(inline).toBe(written);
  }, 300_000);

  it('admin add asks for the password; the account logs in through Caddy', async () => {
    expect(firstScreen).toHaveLength(2);
    const [adminAdd] = firstScreen[1].commands;
    const added = operator.run(adminAdd, `${PASSWORD}\n`);
    expect(added.stdout).toContain('Password: ');
    expect(added.stdout).toContain('Added you@example.org: the console is at /admin.');
    const { login, setCookie, dashboard } = await logIn(caddy, 'you@example.org', PASSWORD);
    expect(login.status).toBe(303);
    expect(setCookie).toMatch(/^__Host-/);
    expect(setCookie).toContain('; Secure');
    expect(dashboard.status).toBe(200);
    expect(dashboard.body).toContain('you@example.org');
  });
});

describe('docs/operating.md with the kit', () => {
  it('Backing up and Restoring SQLite with Compose: the backup signups only', async () => {
    await signUp(caddy, 'compose-kept@example.org');
    // The backup service's folder, then a copy now; and one by hand into the volume.
    operator.runBlock(block('## Backing up', 'install -d', 'BACKUP_DIR='));
    expect(fs.statSync(backups)).toMatchObject({ uid: 1000, mode: 0o40700 });
    const copies = () => inCompose('logs --no-color backup').match(/Backed up 1 signup/g) ?? [];
    // A restart stops a copy in progress (SIGTERM removes its partial file): the one at the start
    // is waited for first, so that the restart's own copy is the second.
    await until('a copy at the start', () => copies().length >= 1);
    operator.runBlock(block('## Backing up', 'docker compose restart backup'));
    await until('a copy after the restart', () => copies().length >= 2);
    const dated = fs.readdirSync(backups).filter((name) => /^waitlist-\d.*Z\.db$/.test(name));
    expect(dated.length).toBeGreaterThanOrEqual(1);
    operator.runBlock(block('## Backing up', 'docker compose exec site waitlist backup'));
    await signUp(caddy, 'compose-later@example.org');
    operator.runBlock(block('## Restoring SQLite', 'docker compose run'));
    await until('the restored site answers through Caddy', () => answers(caddy, '/readyz'), 60_000);
    const list = inCompose('exec -T site waitlist list');
    expect(list).toContain('compose-kept@example.org');
    expect(list).not.toContain('compose-later@example.org');
  }, 120_000);

  it('the postgres path: pg_dump, then pg_restore brings back the dump only', async () => {
    // The operator switches paths as .env.example says: the profile, and the two secret files.
    inCompose('down');
    const deploy = operator.cwd;
    setEnv(path.join(deploy, '.env'), { COMPOSE_PROFILES: 'postgres' });
    fs.chmodSync(path.join(deploy, 'secrets'), 0o711);
    const secret = (name: string, value: string, uid: number) => {
      fs.writeFileSync(path.join(deploy, 'secrets', name), value, { mode: 0o600 });
      fs.chownSync(path.join(deploy, 'secrets', name), uid, uid);
    };
    secret('postgres_password', 'database-password-1', 999);
    secret('database_url', 'postgres://orgnote:database-password-1@postgres:5432/orgnote', 1000);
    operator.run(firstScreen[0].commands[2]);
    const replicas = replicaPorts.map((p): Target => ({ base: `http://127.0.0.1:${p}` }));
    const allReady = async () => {
      return (await Promise.all(replicas.map((r) => answers(r, '/readyz')))).every(Boolean);
    };
    await until('both replicas are ready', allReady, 90_000);
    await until('Caddy passes requests on', () => answers(caddy, '/readyz'), 30_000);

    await signUp(caddy, 'pg-kept@example.org');
    operator.runBlock(block('## Backing up', 'pg_dump'));
    const dump = fs.readFileSync(path.join(deploy, 'orgnote.dump'));
    expect(dump.subarray(0, 5).toString()).toBe('PGDMP');
    // The backup service's copy at its start may precede the signup; the restart copies again,
    // once that first copy is whole (a restart stops a copy in progress).
    const dumps = () => inCompose('logs --no-color backup-postgres').match(/pg_dump wrote/g) ?? [];
    await until('a dump at the start', () => dumps().length >= 1, 60_000);
    inCompose('restart backup-postgres');
    await until('a dump after the restart', () => dumps().length >= 2, 60_000);
    await signUp(caddy, 'pg-later@example.org');
    operator.runBlock(block('## Restoring PostgreSQL', 'pg_restore'));
    await until('both replicas are ready again', allReady, 90_000);
    const list = inCompose('exec -T --index=1 site-postgres waitlist list');
    expect(list).toContain('pg-kept@example.org');
    expect(list).not.toContain('pg-later@example.org');
  }, 300_000);
});

describe('what the test read', () => {
  it('ran every command of the named sections, and operating.md has no block elsewhere', () => {
    // The Compose upgrade's and rollback's blocks run in compose-upgrade.test.ts, as scripts.
    const composeUpgrade = COMPOSE_UPGRADE.sections.flatMap((heading) =>
      shBlocks(section(COMPOSE_UPGRADE.file, heading), heading),
    );
    const elsewhere = new Set(composeUpgrade.flatMap((b) => b.commands));
    const blocks = [...firstScreen, ...dockerItem, ...Object.values(runbook).flat()];
    const notRun = blocks.flatMap((b) => {
      const missed = b.commands.filter((c) => !operator.ran.has(c) && !elsewhere.has(c));
      return missed.map((c) => `${b.where}: ${c}`);
    });
    expect(notRun).toEqual([]);
    const wholeRunbook = fs.readFileSync(path.join(ROOT, RUNBOOK.file), 'utf8');
    const everyBlock = shBlocks(wholeRunbook, RUNBOOK.file);
    expect(everyBlock).toHaveLength(dockerItem.length + Object.values(runbook).flat().length);
  });
});

/** Caddy's site over TLS, once its local CA exists and the page comes through. */
async function throughCaddy(name: string): Promise<Target> {
  const compose = (args: string) =>
    sh(`docker-compose ${args}`, { cwd: operator.cwd, env: { COMPOSE_PROJECT_NAME: PROJECT } });
  const base = `https://127.0.0.1:${caddyPorts.https}`;
  const target = { base, tls: { name, ca: await caddyRoot(compose) } };
  await until('the page comes through Caddy', () => answers(target, '/readyz'), 60_000);
  return target;
}
