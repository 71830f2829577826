import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
// A validated Config for tests, from env-style overrides (so the real parsing runs too).
import { loadConfig, type Config } from '../../server/config';
import { createLogger, type Logger } from '../../server/logger';

/** Names the run's temporary folder (made in global-setup.ts, removed in global-teardown.ts). */
export const TEST_TMP_ENV = 'ORGNOTE_TEST_TMP';

/** A fresh, empty data directory under the run's temporary folder. */
export function tempDataDir(): string {
  return fs.mkdtempSync(path.join(process.env[TEST_TMP_ENV] ?? os.tmpdir(), 'orgnote-test-'));
}

/** Each config gets its own empty DATA_DIR and no rate limit, unless the test says otherwise. */
export function testConfig(env: Record<string, string | undefined> = {}): Config {
  return loadConfig({
    LOG_LEVEL: 'silent',
    DATA_DIR: tempDataDir(),
    SIGNUP_RATE_LIMIT: '0',
    ...env,
  });
}

/** A logger that keeps every line it writes, to check what reaches the log. */
export function capturingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const logger = createLogger(
    { logLevel: 'debug' },
    { write: (line: string) => void lines.push(line) },
  );
  return { logger, lines };
}
