// The image as an operator runs it (docs/operating.md, "Docker"): read-only, /tmp in memory,
// /data on a named volume, the port published on loopback only. Reached through that port.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { releasePort, reservePort } from '../../scripts/lib/launch/ports';
import { until } from '../support/wait';
import { BUILT_REVISION, IMAGE, ROOT, VERSION, docker, removeAll, sh, type Run } from './docker';

const NAME = 'orgnote-ci-image';
const VOLUME = `${NAME}-data`;
const NETWORK = `${NAME}-net`;
const port = reservePort(30000, 32000);
const base = `http://127.0.0.1:${port}`;
const manifest = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  devDependencies: Record<string, string>;
};

/** The runbook's command, with a quick health check instead of every 30 s (the command is kept). */
const run = [
  ...['run', '--detach', '--name', NAME, '--read-only', '--tmpfs', '/tmp'],
  ...['-v', `${VOLUME}:/data`, '-p', `127.0.0.1:${port}:3000`, '--network', NETWORK],
  ...['--health-interval', '1s', '--health-start-period', '5s', IMAGE],
];

async function answers(pathname: string): Promise<boolean> {
  return fetch(base + pathname).then(
    (res) => res.ok,
    () => false,
  );
}

function inspect(format: string, target = NAME): string {
  return docker(['inspect', '--format', format, target]);
}

beforeAll(async () => {
  removeAll(NAME);
  docker(['network', 'create', NETWORK]);
  docker(run);
  await until('the container answers /healthz', () => answers('/healthz'), 30_000);
});

afterAll(() => {
  removeAll(NAME);
  releasePort(port);
});

describe('the image, run as docs/operating.md says', () => {
  it('is the release scripts/release.sh built: its version and commit, and the OCI labels', async () => {
    const commit = process.env[BUILT_REVISION]!;
    expect(commit).toMatch(/^[0-9a-f]{40}$/);
    const labels = JSON.parse(inspect('{{json .Config.Labels}}', IMAGE)) as Record<string, string>;
    expect(labels).toMatchObject({
      'org.opencontainers.image.version': VERSION,
      'org.opencontainers.image.revision': commit,
      'org.opencontainers.image.licenses': 'GPL-3.0-only',
    });
    expect(inspect('{{.Id}}', `${IMAGE}:${VERSION}`)).toBe(inspect('{{.Id}}', IMAGE));
    const health = (await (await fetch(`${base}/healthz`)).json()) as { version: string };
    expect(health.version).toBe(VERSION);
    const cli = docker(['exec', NAME, 'waitlist', '--version']);
    expect(cli).toContain(VERSION);
    expect(cli).toContain(commit.slice(0, 7));
  });

  it('runs as the non-root node user on a read-only root file system', () => {
    expect(docker(['exec', NAME, 'id', '-u'])).toBe('1000');
    expect(inspect('{{.HostConfig.ReadonlyRootfs}}')).toBe('true');
    const write = sh(`docker exec ${NAME} touch /app/written`);
    expect(write.stderr).toContain('Read-only file system');
  });

  it('gives a new volume the image /data: the node user alone may enter it (0700)', () => {
    const inImage = sh(`docker run --rm --entrypoint stat ${IMAGE} -c '%a %U' /data`);
    expect(inImage.stdout.trim()).toBe('700 node');
    expect(docker(['exec', NAME, 'stat', '-c', '%a %U', '/data'])).toBe('700 node');
  });

  it('answers /, /activate and /readyz', async () => {
    const home = await fetch(`${base}/`);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('Join wait list');
    expect((await fetch(`${base}/activate`)).status).toBe(200);
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
  });

  it('is reported healthy by Docker, through the image own HEALTHCHECK command', async () => {
    const image = JSON.parse(inspect('{{json .Config.Healthcheck}}', IMAGE)) as {
      Test: string[];
      StartPeriod: number;
    };
    expect(image.Test.join(' ')).toContain("path:'/healthz'");
    expect(image.StartPeriod).toBeGreaterThanOrEqual(45e9);
    expect(inspect('{{json .Config.Healthcheck.Test}}')).toBe(JSON.stringify(image.Test));
    const healthy = () => inspect('{{.State.Health.Status}}') === 'healthy';
    await until('Docker reports the container healthy', healthy, 30_000);
  });

  it('keeps a signup on the volume across docker restart', async () => {
    const form = new FormData();
    form.set('email', 'image-test@example.org');
    const signup = await fetch(`${base}/api/subscriptions`, { method: 'POST', body: form });
    expect(signup.status).toBe(201);
    expect(docker(['exec', NAME, 'waitlist', 'count'])).toBe('1');
    docker(['restart', NAME]);
    await until('the restarted container answers', () => answers('/healthz'), 30_000);
    expect(docker(['exec', NAME, 'waitlist', 'count'])).toBe('1');
    expect(docker(['exec', NAME, 'waitlist', 'list'])).toContain('image-test@example.org');
  });

  it('has the waitlist CLI on PATH: admin add reads the password from stdin', () => {
    const input = 'a long console password\n';
    const added = docker(['exec', '-i', NAME, 'waitlist', 'admin', 'add', 'ops@example.org'], {
      input,
    });
    expect(added).toBe('Added ops@example.org: the console is at /admin.');
    expect(docker(['exec', NAME, 'waitlist', 'admin', 'list'])).toContain('ops@example.org');
  });

  it('writes waitlist backup into the volume, under /data/backups', () => {
    docker(['exec', NAME, 'waitlist', 'backup', '/data/backups/x.db']);
    const header = docker(['exec', NAME, 'head', '-c', '15', '/data/backups/x.db']);
    expect(header).toBe('SQLite format 3');
    // The copy is on the volume itself: another container mounting it sees the file.
    const other = sh(`docker run --rm -v ${VOLUME}:/data ${IMAGE} ls /data/backups`);
    expect(other.stdout.trim()).toBe('x.db');
  });

  it('stops on docker stop with exit code 0 within Docker 10 s', () => {
    const started = Date.now();
    docker(['stop', NAME]);
    const seconds = (Date.now() - started) / 1000;
    expect(inspect('{{.State.ExitCode}}')).toBe('0');
    expect(seconds).toBeLessThan(10);
  });
});

describe('what the image holds', () => {
  const inImage = (script: string) => sh(`docker run --rm --entrypoint sh ${IMAGE} -c '${script}'`);

  it('holds no sources, no source maps, no dev dependencies and no toolchain', () => {
    const app = ['dist', 'node_modules', 'package-lock.json', 'package.json', 'public'];
    expect(inImage('ls /app').stdout.trim().split('\n')).toEqual(app);
    const typescript = 'find /app -path /app/node_modules -prune -o -name "*.ts*" -print';
    expect(inImage(typescript).stdout.trim()).toBe('');
    const maps = inImage('find /app/dist -name "*.map"; grep -rl sourcesContent /app/dist || true');
    expect(maps.stdout.trim()).toBe('');
    const devDependencies = Object.keys(manifest.devDependencies);
    expect(devDependencies).toContain('typescript');
    const present = inImage(`cd /app/node_modules; ls -d ${devDependencies.join(' ')} 2>/dev/null`);
    expect(present.stdout.trim()).toBe('');
    const toolchain = inImage('for t in gcc g++ cc c++ make python3; do command -v $t; done');
    expect(toolchain.stdout.trim()).toBe('');
  });

  it('prints its size', () => {
    const size = Number(inspect('{{.Size}}', IMAGE));
    const baseSize = Number(inspect('{{.Size}}', 'node:24-bookworm-slim'));
    const mb = (bytes: number) => `${Math.round(bytes / 1e6)} MB`;
    const above = mb(size - baseSize);
    console.log(`image ${IMAGE}: ${mb(size)}, of which ${above} above the base image`);
    expect(size).toBeGreaterThan(baseSize);
  });
});

describe('a bind-mounted /data', () => {
  let folder: string;
  beforeEach(() => {
    folder = fs.mkdtempSync(path.join(os.tmpdir(), 'orgnote-ci-data-'));
    fs.chmodSync(folder, 0o755);
  });
  afterEach(() => fs.rmSync(folder, { recursive: true, force: true }));

  /** `docker run` in the foreground, as the runbook's command with the folder at /data. */
  function runOnce(mount: string): Run {
    const name = `${NAME}-bind`;
    const result = sh(`docker run --name ${name} --read-only -v ${mount} ${IMAGE}`);
    docker(['rm', name]);
    return result;
  }

  it('another uid: the start stops with one line naming both uids and the chown, exit 1', () => {
    const owner = fs.statSync(folder).uid;
    const result = runOnce(`${folder}:/data`);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    const lines = result.stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`DATA_DIR /data is not writable by this process (uid 1000)`);
    expect(lines[0]).toContain(`it belongs to uid ${owner}`);
    expect(lines[0]).toContain('chown -R 1000:1000 /data (for a bind mount, the host folder');
    // Not the site's folder: its mode is its owner's to set.
    expect(fs.statSync(folder).mode & 0o7777).toBe(0o755);
  });

  it('uid 1000, 0755: read-only it stays as it is; writable, the site makes it 0700', async () => {
    fs.chownSync(folder, 1000, 1000);
    const readOnly = runOnce(`${folder}:/data:ro`);
    expect(readOnly.status).toBe(1);
    const line = 'DATA_DIR /data is on a read-only file system; mount a writable volume at /data.';
    expect(readOnly.stderr.trim().split('\n')).toEqual([line]);
    expect(fs.statSync(folder).mode & 0o7777).toBe(0o755);

    const name = `${NAME}-bind-writable`;
    const detached = ['run', '--detach', '--name', name, '--read-only', '--tmpfs', '/tmp'];
    docker([...detached, '-v', `${folder}:/data`, IMAGE]);
    try {
      const database = path.join(folder, 'waitlist.db');
      await until('the site writes its database in the folder', () => fs.existsSync(database));
      const { mode, uid } = fs.statSync(folder);
      expect([mode & 0o7777, uid]).toEqual([0o700, 1000]);
    } finally {
      docker(['rm', '--force', name]);
    }
  });
});
