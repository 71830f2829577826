// Makes the one temporary folder every test's data goes under (removed in global-teardown.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { TEST_TMP_ENV } from './config';

export default function globalSetup(): void {
  // Workers start after this and inherit the environment.
  process.env[TEST_TMP_ENV] = fs.mkdtempSync(path.join(os.tmpdir(), 'orgnote-tests-'));
}
