// Makes the one temporary folder every test's data goes under (removed in global-teardown.ts),
// after removing those of earlier runs that ended without their teardown (Ctrl-C, a kill).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TEST_TMP_ENV } from './config';

const PREFIX = 'orgnote-tests-';
/** Names the process that runs the folder's run (Jest's main process, alive until its teardown). */
const OWNER_FILE = '.owner-pid';

export default function globalSetup(): void {
  const root = tempRoot();
  removeAbandoned(root);
  const folder = fs.mkdtempSync(path.join(root, PREFIX));
  fs.writeFileSync(path.join(folder, OWNER_FILE), String(process.pid));
  // Workers start after this and inherit the environment.
  process.env[TEST_TMP_ENV] = folder;
}

/**
 * Linux's /dev/shm (memory) unless TMPDIR names a place: initdb takes a third of the time there,
 * CREATE DATABASE a fifth, and SQLite's fsyncs cost nothing (issue 22, item 8). What the tests
 * check of a crash is a killed process, whose writes a memory file system keeps as a disk does.
 */
function tempRoot(): string {
  if (process.env.TMPDIR) return os.tmpdir();
  try {
    fs.accessSync('/dev/shm', fs.constants.W_OK | fs.constants.X_OK);
    return fs.statSync('/dev/shm').isDirectory() ? '/dev/shm' : os.tmpdir();
  } catch {
    return os.tmpdir();
  }
}

/**
 * A run folder whose owner has ended is garbage, and in memory it would stay until a reboot. A run
 * beside this one (another clone's) has a live owner and is left alone; so is a folder without an
 * owner file (not made by this setup).
 */
function removeAbandoned(root: string): void {
  for (const name of fs.readdirSync(root).filter((entry) => entry.startsWith(PREFIX))) {
    const folder = path.join(root, name);
    let owner: number;
    try {
      owner = Number(fs.readFileSync(path.join(folder, OWNER_FILE), 'utf8'));
    } catch {
      continue;
    }
    if (owner > 0 && !isAlive(owner)) fs.rmSync(folder, { recursive: true, force: true });
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists, as another user's process.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
