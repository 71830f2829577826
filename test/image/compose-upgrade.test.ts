// docs/operating.md's "Upgrade with Compose" and "Rollback with Compose", each path's block pasted
// as an operator pastes it (one bash script, `set -e` and all), on the private engine: a kit
// checked out at the commit before releases had versions (FROM, its own compose.yml, .env and
// image), upgraded to this checkout's release, then rolled back, every row kept on the way.
// What this machine changes: docker-compose 1.29 for `docker compose`, ports on 127.0.0.1 picked
// for the run, names with the prefix the global setup sweeps, and no `git fetch` (the clone has
// the release's tag already: this commit, tagged as the release it is).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { releasePort, reservePort } from '../../scripts/lib/launch/ports';
import { until } from '../support/wait';
import { BUILD_TIMEOUT_MS, ROOT, VERSION, docker, imageOfCommit, removeAll, sh } from './docker';
import { mentions, withSettings } from './kit';
import { COMPOSE_UPGRADE, section, shBlocks, type Block } from './runbook';
import { answers, request, signUp, type Target } from './visitor';

/** The commit issue 51 started from: its kit has no versions, and runs `SITE_IMAGE`. */
const FROM = '23347506060fdf0e21ce402e7cb8f53ef0c0bad6';
const HEAD = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();

const [UPGRADE, ROLLBACK] = COMPOSE_UPGRADE.sections.map((heading) =>
  shBlocks(section(COMPOSE_UPGRADE.file, heading), heading),
);

/** The block of `blocks` for a path: the one that names the path's site service. */
function blockFor(blocks: Block[], service: 'site' | 'site-postgres'): Block {
  const names = new RegExp(`compose (?:\\S+ )*${service}(?![\\w-])`);
  const found = blocks.filter((b) => b.commands.some((c) => names.test(c)));
  if (found.length !== 1) throw new Error(`${found.length} blocks name ${service}`);
  return found[0];
}

interface Kit {
  project: string;
  deploy: string;
  /** What `orgnote-site` becomes in the block: an image name of this run. */
  image: string;
  ports: number[];
  site: Target;
}

let fromImage: string;

beforeAll(() => {
  fromImage = imageOfCommit(FROM);
}, BUILD_TIMEOUT_MS);

/** The kit's containers, volumes, images and folder: gone before the next kit takes its subnet. */
function tearDown(kit: Kit): void {
  sh('docker-compose down --volumes --remove-orphans', { cwd: kit.deploy, env: envOf(kit) });
  removeAll(kit.project);
  sh(`docker image rm ${kit.image}:${VERSION} ${kit.image}:rollback`);
  fs.rmSync(path.dirname(kit.deploy), { recursive: true, force: true });
  for (const port of kit.ports) releasePort(port);
}

const envOf = (kit: Kit) => ({ COMPOSE_PROJECT_NAME: kit.project });

/**
 * The operator's checkout at FROM, its .env made from that commit's .env.example with the
 * running image named as that kit names it (SITE_IMAGE), and the release's tag on this commit.
 */
function checkOutKit(name: string, settings: Record<string, string>): Kit {
  const project = `orgnote-ci-upg-${name}`;
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `${project}-`));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });
  execFileSync('git', ['clone', '--quiet', ROOT, root]);
  git('checkout', '--quiet', FROM);
  git('tag', `v${VERSION}`, HEAD);
  const deploy = path.join(root, 'deploy');
  const ports = [reservePort(30000, 31990)];
  ports.push(reservePort(ports[0] + 1, ports[0] + 1));
  const [http, https] = [reservePort(30000, 32000), reservePort(30000, 32000)];
  ports.push(http, https);
  const env = fs.readFileSync(path.join(deploy, '.env.example'), 'utf8');
  const set = {
    SITE_DOMAIN: 'localhost',
    SITE_IMAGE: fromImage,
    HTTP_PORT: `127.0.0.1:${http}`,
    HTTPS_PORT: `127.0.0.1:${https}`,
    SITE_PORT: String(ports[0]),
    SITE_PORTS: `${ports[0]}-${ports[1]}`,
    ...settings,
  };
  // That kit's example names each of them.
  for (const name of Object.keys(set)) expect(mentions(env, name)).toBe(true);
  fs.writeFileSync(path.join(deploy, '.env'), withSettings(env, set));
  const kit = {
    project,
    deploy,
    image: project,
    ports,
    site: { base: `http://127.0.0.1:${ports[0]}` },
  };
  removeAll(project);
  return kit;
}

function compose(kit: Kit, args: string): string {
  const result = sh(`docker-compose ${args}`, { cwd: kit.deploy, env: envOf(kit) });
  if (result.status !== 0) throw new Error(`docker-compose ${args}: ${result.stderr}`);
  return result.stdout.trim();
}

/** The block as one script, pasted into bash in deploy/: its output, or a throw with it. */
function paste(kit: Kit, block: Block): string {
  const script = block.commands.join('\n');
  expect(script).toMatch(/^set -e\n/);
  // The docs name the release this checkout is.
  expect(script).toContain(`new=${VERSION}\n`);
  const result = sh(script, {
    cwd: kit.deploy,
    env: envOf(kit),
    timeoutMs: BUILD_TIMEOUT_MS,
    substitutions: {
      'docker compose': 'docker-compose',
      'git fetch --tags && ': '',
      'orgnote-site': kit.image,
      '127.0.0.1:3000/': `127.0.0.1:${kit.ports[0]}/`,
    },
  });
  if (result.status !== 0) {
    throw new Error(`${block.where} exited ${result.status}:\n${result.stdout}${result.stderr}`);
  }
  return result.stdout;
}

/** /healthz on a connection of its own: the container behind the port changes between calls. */
async function health(kit: Kit): Promise<{ version: string }> {
  const answer = await request(kit.site, 'GET', '/healthz');
  expect(answer.status).toBe(200);
  return JSON.parse(answer.body) as { version: string };
}

const imageOf = (kit: Kit, service: string) =>
  docker(['inspect', '-f', '{{.Config.Image}}', compose(kit, `ps -q ${service}`).split('\n')[0]]);
const idOf = (image: string) => docker(['image', 'inspect', '-f', '{{.Id}}', image]);

describe.each([
  ['sqlite', 'site', {}],
  ['postgres', 'site-postgres', { COMPOSE_PROFILES: 'postgres' }],
] as const)('the %s path, through Compose', (name, service, settings) => {
  let kit: Kit;
  const people = [`${name}-one@example.org`, `${name}-two@example.org`];
  const list = () =>
    compose(kit, `exec -T ${service === 'site' ? '' : '--index=1 '}${service} waitlist list`);

  beforeAll(async () => {
    kit = checkOutKit(name, settings);
    if (name === 'postgres') {
      const secrets = path.join(kit.deploy, 'secrets');
      fs.chmodSync(secrets, 0o711);
      const secret = (file: string, value: string, uid: number) => {
        fs.writeFileSync(path.join(secrets, file), value, { mode: 0o600 });
        fs.chownSync(path.join(secrets, file), uid, uid);
      };
      secret('postgres_password', 'upgrade-password-1', 999);
      secret('database_url', 'postgres://orgnote:upgrade-password-1@postgres:5432/orgnote', 1000);
    }
    compose(kit, 'up --detach');
    await until(
      `the ${name} kit before versions is ready`,
      () => answers(kit.site, '/readyz'),
      120_000,
    );
    for (const person of people) await signUp(kit.site, person);
  }, 300_000);

  afterAll(() => kit && tearDown(kit));

  it(
    'upgrades by the runbook: a backup, the old image kept, the release built with its commit',
    async () => {
      expect(imageOf(kit, service)).toBe(fromImage);
      const printed = paste(kit, blockFor(UPGRADE, service));
      // The block's last line: `waitlist --version` of the running release.
      expect(printed.trim().split('\n').at(-1)).toBe(
        `orgnote-site ${VERSION} (commit ${HEAD.slice(0, 7)})`,
      );
      expect(imageOf(kit, service)).toBe(`${kit.image}:${VERSION}`);
      expect((await health(kit)).version).toBe(VERSION);
      expect(idOf(`${kit.image}:rollback`)).toBe(idOf(fromImage));
      const rows = list();
      for (const person of people) expect(rows).toContain(person);
      const backup =
        name === 'sqlite'
          ? compose(kit, `exec -T site ls /data/backups`)
          : fs.readdirSync(kit.deploy).join('\n');
      expect(backup).toContain(`before-${VERSION}`);
    },
    BUILD_TIMEOUT_MS,
  );

  it('rolls back by the runbook: the backup restored, the kept image running, every row there', async () => {
    await signUp(kit.site, `${name}-since-upgrade@example.org`);
    paste(kit, blockFor(ROLLBACK, service));
    expect(imageOf(kit, service)).toBe(`${kit.image}:rollback`);
    expect((await health(kit)).version).toBe('0.1.0');
    const rows = list();
    for (const person of people) expect(rows).toContain(person);
    // As the docs warn: what came after the backup is gone.
    expect(rows).not.toContain(`${name}-since-upgrade@example.org`);
  }, 300_000);
});
