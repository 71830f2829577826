// Removes the run's temporary folder: every DATA_DIR, SQLite file and log the tests made.
import fs from 'node:fs';
import { TEST_TMP_ENV } from './config';

export default function globalTeardown(): void {
  const root = process.env[TEST_TMP_ENV];
  if (root) fs.rmSync(root, { recursive: true, force: true });
}
