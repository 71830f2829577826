// A DATA_DIR the process cannot write stops the start with one line that says how to fix it.
// The production entry runs against a folder it may not write: when the tests run as root (who
// may write anywhere), as root without the capabilities that bypass file permissions, against a
// folder of uid 1000; otherwise as this user against a folder made read-only. Dropping to another
// uid instead would fail on a checkout that only root can reach.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ensureWritableDataDir } from '../../server/data-dir';
import { tempDataDir } from '../support/config';

const ENTRY = path.resolve(__dirname, '../../dist/server/index.js');
const asRoot = process.getuid?.() === 0;
const processUid = process.getuid!();
const processGid = process.getgid!();
/** util-linux's setpriv: root without CAP_DAC_OVERRIDE and CAP_DAC_READ_SEARCH. */
const withoutOverride = ['--bounding-set', '-dac_override,-dac_read_search'];

let scratch: string;
beforeEach(() => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'orgnote-data-dir-'));
});
afterEach(() => fs.rmSync(scratch, { recursive: true, force: true }));

/** A folder the started process cannot write: another uid's, or ours with no write bit. */
function foreignFolder(name: string): string {
  const folder = path.join(scratch, name);
  fs.mkdirSync(folder, { mode: 0o755 });
  if (asRoot) fs.chownSync(folder, 1000, 1000);
  else fs.chmodSync(folder, 0o555);
  return folder;
}

function start(dataDir: string) {
  const [command, args] = asRoot
    ? ['setpriv', [...withoutOverride, process.execPath, ENTRY]]
    : [process.execPath, [ENTRY]];
  return spawnSync(command, args, {
    env: { PATH: process.env.PATH, NODE_ENV: 'production', PORT: '0', DATA_DIR: dataDir },
    encoding: 'utf8',
    timeout: 45_000, // a hang guard: a crowded machine takes seconds to start Node
  });
}

describe('DATA_DIR check at start-up', () => {
  it('creates a missing DATA_DIR and accepts a writable one', () => {
    const folder = path.join(tempDataDir(), 'nested', 'data');
    ensureWritableDataDir(folder);
    expect(fs.statSync(folder).isDirectory()).toBe(true);
    expect(() => ensureWritableDataDir(folder)).not.toThrow();
  });

  it('takes group and others off a DATA_DIR this user owns, and keeps what is in it', () => {
    const folder = path.join(scratch, 'data');
    fs.mkdirSync(folder);
    fs.chmodSync(folder, 0o755);
    fs.writeFileSync(path.join(folder, 'waitlist.db'), 'kept', { mode: 0o600 });
    ensureWritableDataDir(folder);
    expect(fs.statSync(folder).mode & 0o7777).toBe(0o700);
    expect(fs.readFileSync(path.join(folder, 'waitlist.db'), 'utf8')).toBe('kept');
  });

  it('leaves a sticky DATA_DIR of this user as it is: a shared folder, like /tmp', () => {
    const folder = path.join(scratch, 'shared');
    fs.mkdirSync(folder);
    fs.chmodSync(folder, 0o1777);
    ensureWritableDataDir(folder);
    expect(fs.statSync(folder).mode & 0o7777).toBe(0o1777);
  });

  it('leaves the mode of a DATA_DIR another user owns and lets this one write', () => {
    // As root: a folder of uid 1000 open to all. Otherwise: the temp folder, root's and 1777.
    const folder = asRoot ? path.join(scratch, 'shared') : os.tmpdir();
    if (asRoot) {
      fs.mkdirSync(folder);
      fs.chownSync(folder, 1000, 1000);
      fs.chmodSync(folder, 0o777);
    }
    const before = fs.statSync(folder);
    expect(before.uid).not.toBe(processUid);
    expect(before.mode & 0o077).not.toBe(0);
    ensureWritableDataDir(folder);
    expect(fs.statSync(folder).mode).toBe(before.mode);
  });

  it('stops the server with one line: DATA_DIR, both uids, the chown that fixes it', () => {
    const folder = foreignFolder('data');
    const owner = fs.statSync(folder).uid;
    const result = start(folder);
    expect(result.status).toBe(1);
    expect(result.stdout).toBe('');
    const problem = `is not writable by this process (uid ${processUid});`;
    const owned = `it belongs to uid ${owner}.`;
    const fix = `Fix: chown -R ${processUid}:${processGid} ${folder}`;
    const mount = '(for a bind mount, the host folder mounted there).';
    const line = `DATA_DIR ${folder} ${problem} ${owned} ${fix} ${mount}`;
    expect(result.stderr.trim().split('\n')).toEqual([line]);
    expect(fs.readdirSync(folder)).toEqual([]);
    expect(fs.statSync(folder).mode & 0o7777).toBe(asRoot ? 0o755 : 0o555);
  });

  it('names the parent folder when DATA_DIR is missing and cannot be created', () => {
    const parent = foreignFolder('srv');
    const folder = path.join(parent, 'orgnote', 'data');
    const result = start(folder);
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    const where = `DATA_DIR ${folder} cannot be created: ${parent}`;
    expect(result.stderr).toContain(`${where} is not writable by this process`);
    expect(result.stderr).toContain(`chown -R ${processUid}:${processGid} ${parent}`);
  });
});
