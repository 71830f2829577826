// Removes the run's temporary folder: every DATA_DIR, SQLite file, PostgreSQL cluster and log the
// tests made, once the run's shared PostgreSQL server (shared-postgres.ts) has stopped.
import fs from 'node:fs';
import { releaseAbandonedPorts } from '../../scripts/lib/launch/ports';
import { TEST_TMP_ENV } from './config';
import { stopSharedServers } from './shared-postgres';

export default async function globalTeardown(): Promise<void> {
  const root = process.env[TEST_TMP_ENV];
  if (!root) return;
  await stopSharedServers(root);
  fs.rmSync(root, { recursive: true, force: true });
  // The workers have ended: what they had reserved is free again.
  releaseAbandonedPorts();
}
