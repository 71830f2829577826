// DATA_DIR must be writable before anything opens it: a bind-mounted folder owned by another uid
// is an operator's first mistake with Docker, and SQLite would only fail later with a stack
// trace, restarted in a loop. The check names the folder, both uids and the command that fixes it.
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from './config';

/** Start-up reports it as it reports a bad setting: its message alone, then exit 1. */
export class DataDirError extends ConfigError {}

/**
 * Creates DATA_DIR when missing, readable by this user only (it holds keys and mail not yet
 * sent); a one-line DataDirError when this process cannot write it.
 */
export function ensureWritableDataDir(dataDir: string): void {
  const folder = path.resolve(dataDir);
  const existing = nearestExisting(folder);
  try {
    fs.accessSync(existing, fs.constants.W_OK | fs.constants.X_OK);
  } catch (err) {
    const where = existing === folder ? '' : ` cannot be created: ${existing}`;
    const code = (err as NodeJS.ErrnoException).code;
    const problem = code === 'EROFS' ? readOnly(folder) : notOwned(existing);
    throw new DataDirError(`DATA_DIR ${dataDir}${where} ${problem}`);
  }
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
}

function nearestExisting(folder: string): string {
  let candidate = folder;
  while (!fs.existsSync(candidate) && path.dirname(candidate) !== candidate) {
    candidate = path.dirname(candidate);
  }
  return candidate;
}

function readOnly(folder: string): string {
  return `is on a read-only file system; mount a writable volume at ${folder}.`;
}

function notOwned(folder: string): string {
  const owner = fs.statSync(folder);
  const uid = process.getuid?.() ?? owner.uid;
  const gid = process.getgid?.() ?? owner.gid;
  return (
    `is not writable by this process (uid ${uid}); it belongs to uid ${owner.uid}. ` +
    `Fix: chown -R ${uid}:${gid} ${folder} (for a bind mount, the host folder mounted there).`
  );
}
