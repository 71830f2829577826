// DATA_DIR must be writable before anything opens it: a bind-mounted folder owned by another uid
// is an operator's first mistake with Docker, and SQLite would only fail later with a stack
// trace, restarted in a loop. The check names the folder, both uids and the command that fixes it.
// It holds keys not yet sent, mail and backups: only its owner may list or enter it.
import fs from 'node:fs';
import path from 'node:path';
import { ConfigError } from './config';

/** Start-up reports it as it reports a bad setting: its message alone, then exit 1. */
export class DataDirError extends ConfigError {}

/**
 * Creates DATA_DIR when missing, readable by this user only, and takes group and others off one
 * this user owns (a volume or bind mount made 0755); a one-line DataDirError when this process
 * cannot write it.
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
  if (existing === folder) keepToOwner(folder);
}

/**
 * Only a folder of this process's own uid: root could change anyone's, and a folder another user
 * owns and lets us write is theirs to set. Never a sticky one, which is shared by design (/tmp,
 * for a site run as root). Where the file system refuses (some network mounts) the folder stays
 * as it is: what the site writes in it is 0600 or 0700 itself.
 */
function keepToOwner(folder: string): void {
  const { mode, uid } = fs.statSync(folder);
  const shared = (mode & 0o1000) !== 0;
  if (uid !== process.getuid?.() || shared || (mode & 0o077) === 0) return;
  try {
    fs.chmodSync(folder, mode & 0o7700);
  } catch {
    // Not a reason to stop the start: see above.
  }
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
