// Which release runs (server/version.ts): the commit a build names, whether given by the image's
// build (SOURCE_COMMIT), read from git, or neither; and `waitlist --version` as an operator runs
// it, from the built CLI, whatever state the settings and the store are in.
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { describeBuild, headFromFiles } from '../../server/version';
import { version as PACKAGE_VERSION } from '../../package.json';
import { tempDataDir } from '../support/config';

const CLI = path.resolve(__dirname, '../../dist/server/waitlist.js');

/** A checkout of its own: a package.json and, when asked, a git repository with one commit. */
function checkout({ git }: { git: boolean }): { root: string; head?: string } {
  const root = tempDataDir();
  const manifest = { name: 'x', version: '3.1.4' };
  fs.writeFileSync(path.join(root, 'package.json'), JSON.stringify(manifest));
  if (!git) return { root };
  const run = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' });
  run('init', '--quiet');
  run('add', 'package.json');
  run('-c', 'user.name=t', '-c', 'user.email=t@example.org', 'commit', '--quiet', '-m', 'one');
  return { root, head: run('rev-parse', '--short', 'HEAD').trim() };
}

describe('describeBuild', () => {
  it('names the commit given at build time (an image is built without .git)', () => {
    const { root } = checkout({ git: true });
    expect(describeBuild(root, 'f00dfeed')).toEqual({ version: '3.1.4', commit: 'f00dfeed' });
  });

  it("names git's HEAD when no commit is given, or an empty one", () => {
    const { root, head } = checkout({ git: true });
    expect(head).toMatch(/^[0-9a-f]{7,}$/);
    expect(describeBuild(root)).toEqual({ version: '3.1.4', commit: head });
    expect(describeBuild(root, '  ')).toEqual({ version: '3.1.4', commit: head });
  });

  it('says unknown without .git and without a commit given', () => {
    const { root } = checkout({ git: false });
    expect(describeBuild(root)).toEqual({ version: '3.1.4', commit: 'unknown' });
  });
});

// What an image build has (.dockerignore: HEAD, refs/heads and packed-refs, and no git binary):
// HEAD read from the files as git wrote them.
describe('headFromFiles', () => {
  /** Only what the image's build context carries of a real repository's .git. */
  function contextOf(root: string): string {
    const copy = tempDataDir();
    fs.copyFileSync(path.join(root, 'package.json'), path.join(copy, 'package.json'));
    for (const part of ['HEAD', 'refs/heads', 'packed-refs']) {
      const from = path.join(root, '.git', part);
      if (fs.existsSync(from)) fs.cpSync(from, path.join(copy, '.git', part), { recursive: true });
    }
    return copy;
  }
  const git = (root: string, ...args: string[]) =>
    execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();

  it("names a branch's commit from its ref file, and after `git pack-refs` from packed-refs", () => {
    const { root, head } = checkout({ git: true });
    expect(headFromFiles(contextOf(root))).toBe(head?.slice(0, 7));
    git(root, 'pack-refs', '--all');
    expect(
      fs.existsSync(path.join(root, '.git/refs/heads', git(root, 'branch', '--show-current'))),
    ).toBe(false);
    expect(headFromFiles(contextOf(root))).toBe(head?.slice(0, 7));
  });

  it('names a detached HEAD (a release tag checked out)', () => {
    const { root, head } = checkout({ git: true });
    git(root, 'checkout', '--quiet', '--detach');
    expect(headFromFiles(contextOf(root))).toBe(head?.slice(0, 7));
  });

  it('gives no answer for a HEAD it cannot follow, and describeBuild then says unknown', () => {
    const { root } = checkout({ git: false });
    fs.mkdirSync(path.join(root, '.git'));
    for (const head of ['ref: refs/heads/gone\n', 'ref: ../../etc/passwd\n', 'garbage\n']) {
      fs.writeFileSync(path.join(root, '.git/HEAD'), head);
      expect(headFromFiles(root)).toBeUndefined();
    }
    expect(describeBuild(root)).toEqual({ version: '3.1.4', commit: 'unknown' });
  });
});

describe('waitlist --version', () => {
  const cli = (env: Record<string, string>, ...args: string[]) => {
    const result = spawnSync(process.execPath, [CLI, ...args], {
      env: { PATH: process.env.PATH, ...env },
      encoding: 'utf8',
      timeout: 45_000, // a hang guard: a crowded machine takes seconds to start Node
    });
    return { code: result.status, out: result.stdout, err: result.stderr };
  };
  /** As `cli`, with this process free meanwhile to take the connections the CLI makes. */
  const cliAsync = (env: Record<string, string>, ...args: string[]) =>
    new Promise<ReturnType<typeof cli>>((resolve) => {
      const options = { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' as const };
      execFile(process.execPath, [CLI, ...args], options, (error, out, err) =>
        resolve({ code: error ? (error.code as number) : 0, out, err }),
      );
    });
  const version = new RegExp(`^orgnote-site ${PACKAGE_VERSION} \\(commit [0-9a-f]{7,}\\)\\n$`);
  const line = expect.stringMatching(version);

  it('prints the version and commit embedded in the build, exit 0', () => {
    expect(cli({ DATA_DIR: tempDataDir() }, '--version')).toEqual({ code: 0, out: line, err: '' });
  });

  it('needs no store and no valid settings: a database that never answers, a setting wrong', async () => {
    // A database that takes connections and never answers: a CLI that tried it would hang.
    const connections: net.Socket[] = [];
    const database = net.createServer((socket) => connections.push(socket));
    await new Promise<void>((resolve) => database.listen(0, '127.0.0.1', resolve));
    const { port } = database.address() as net.AddressInfo;
    const broken = { DATABASE_URL: `postgres://site@127.0.0.1:${port}/none`, PORT: 'not a port' };
    try {
      expect(await cliAsync(broken, '--version')).toEqual({ code: 0, out: line, err: '' });
      expect(connections).toHaveLength(0);
      // The same settings stop any command that needs them.
      expect(cli(broken, 'count').code).toBe(1);
    } finally {
      connections.forEach((socket) => socket.destroy());
      database.close();
    }
  });

  it('is listed by --help', () => {
    expect(cli({ DATA_DIR: tempDataDir() }, '--help').out).toMatch(/--version\s+print the version/);
  });
});
