// The README's two commands on a machine whose own Node is older than the site's (Debian's and
// Ubuntu's packaged Node, or Node 20 past its end of life): npm's scripts run the project's own
// Node 24 (the `node` package of devDependencies, first on their PATH), and the built server and
// CLI run outside npm on the old Node say in one line what they need instead of a stack trace.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { freePort } from '../../scripts/lib/launch/ports';
import { tempDataDir } from '../support/config';
import { until } from '../support/wait';

const ROOT = path.resolve(__dirname, '../..');

/** The machine's own Node and npm (outside the project), when that Node is older than 24. */
function machineNode(): { bin: string; version: string } | undefined {
  for (const bin of ['/usr/bin', '/usr/local/bin']) {
    const node = path.join(bin, 'node');
    if (!fs.existsSync(node) || !fs.existsSync(path.join(bin, 'npm'))) continue;
    const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
    if (Number(/^v(\d+)\./.exec(version)?.[1]) < 24) return { bin, version };
  }
  return undefined;
}

const old = machineNode();
/** Only the machine's folders on PATH: nothing npm or this run put there. */
const machineEnv = (env: Record<string, string> = {}) => ({
  PATH: `${old?.bin}:/usr/bin:/bin`,
  HOME: process.env.HOME ?? '/root',
  DATA_DIR: tempDataDir(),
  ...env,
});

if (!old) {
  it.skip('needs a Node older than 24 in /usr/bin or /usr/local/bin (CI has Debian Node 20)', () => {});
} else {
  describe(`on the machine's own ${old.version}`, () => {
    it.each([
      ['the built server', 'dist/server/index.js', []],
      ['the built CLI', 'dist/server/waitlist.js', ['count']],
    ])('%s run outside npm exits 1 with one line saying what it needs', (_, entry, args) => {
      const result = spawnSync(path.join(old.bin, 'node'), [entry, ...args], {
        cwd: ROOT,
        env: machineEnv(),
        encoding: 'utf8',
        timeout: 45_000, // a hang guard: a crowded machine takes seconds to start Node
      });
      expect(result.status).toBe(1);
      expect(result.stdout).toBe('');
      const lines = result.stderr.split('\n').filter(Boolean);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`this is Node ${old.version.slice(1)}`);
      expect(lines[0]).toContain('needs Node 24');
      expect(lines[0]).toContain('`npm start`');
    });

    it('`npm start` serves the site with the project’s own Node 24', async () => {
      const port = await freePort();
      const child = spawn(path.join(old.bin, 'npm'), ['start'], {
        cwd: ROOT,
        env: machineEnv({ PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' }),
        stdio: ['ignore', 'pipe', 'pipe'],
        // npm runs the server in a process group of its own: the whole group is stopped below.
        detached: true,
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const exited = new Promise((resolve) => child.once('exit', resolve));
      try {
        const healthz = () =>
          new Promise<string | undefined>((resolve) => {
            http
              .get({ host: '127.0.0.1', port, path: '/healthz' }, (res) => {
                let body = '';
                res.on('data', (chunk: Buffer) => (body += chunk.toString()));
                res.on('end', () => resolve(res.statusCode === 200 ? body : undefined));
              })
              .on('error', () => resolve(undefined));
          });
        let health: string | undefined;
        await until(
          'npm start serves /healthz',
          async () => child.exitCode === null && (health = await healthz()) !== undefined,
          30_000,
        );
        expect(JSON.parse(health!)).toMatchObject({ status: 'ok' });
        expect(output).not.toMatch(/needs Node 24|TypeError|EBADENGINE/);
      } finally {
        process.kill(-child.pid!, 'SIGTERM');
        await exited;
      }
    });
  });
}
