// Makes the one temporary folder every test's data goes under (removed in global-teardown.ts),
// after removing what earlier runs that ended without their teardown (Ctrl-C, a kill) left: their
// folders and their port reservations (ports.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isAlive, releaseAbandonedPorts } from '../../scripts/lib/launch/ports';
import { TEST_TMP_ENV } from './config';

const PREFIX = 'orgnote-tests-';
/** Names the process that runs the folder's run (Jest's main process, alive until its teardown). */
const OWNER_FILE = '.owner-pid';
const MEMORY_ROOM = 2 * 1024 ** 3;

export default function globalSetup(): void {
  const root = tempRoot();
  removeAbandoned(root);
  releaseAbandonedPorts();
  const folder = fs.mkdtempSync(path.join(root, PREFIX));
  fs.writeFileSync(path.join(folder, OWNER_FILE), String(process.pid));
  // Workers start after this and inherit the environment.
  process.env[TEST_TMP_ENV] = folder;
}

/**
 * Linux's /dev/shm (memory) unless TMPDIR names a place: initdb takes a third of the time there,
 * CREATE DATABASE a fifth, and SQLite's fsyncs cost nothing. What the tests
 * check of a crash is a killed process, whose writes a memory file system keeps as a disk does.
 * A run holds a few hundred MB at its peak (PostgreSQL clusters, their databases), more than a
 * container's default /dev/shm (64 MB) has room for: there, the disk.
 */
function tempRoot(): string {
  if (process.env.TMPDIR) return os.tmpdir();
  try {
    fs.accessSync('/dev/shm', fs.constants.W_OK | fs.constants.X_OK);
    const { bavail, bsize } = fs.statfsSync('/dev/shm');
    return bavail * bsize >= MEMORY_ROOM ? '/dev/shm' : os.tmpdir();
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
