// Builds the client and server bundles once for the whole run: the server tests read the real
// manifest and assets, the shutdown and browser tests start the real production server. Also
// makes the one temporary folder every test's data goes under (removed in global-teardown.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stop } from 'esbuild';
import { build } from '../../scripts/build';
import { TEST_TMP_ENV } from './config';

export default async function globalSetup(): Promise<void> {
  // Workers start after this and inherit the environment.
  process.env[TEST_TMP_ENV] = fs.mkdtempSync(path.join(os.tmpdir(), 'orgnote-tests-'));
  const log = console.log;
  console.log = () => {};
  try {
    await build();
  } finally {
    console.log = log;
    // esbuild keeps a service process alive; stop it so Jest can exit on its own.
    await stop();
  }
}
