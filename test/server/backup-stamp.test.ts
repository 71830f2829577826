// backup_last_success_timestamp_seconds as an operator's Prometheus reads it: the time the kit's
// backup service stamped into DATA_DIR after its last good copy, read on every scrape. No stamp
// (never a backup) and a stamp not to be believed both leave the gauge without a sample, which
// the alert OrgNoteBackupStale treats as "never"; a 0 would pass for a time in 1970.
import fs from 'node:fs';
import path from 'node:path';
import { BACKUP_STAMP_FILE, readBackupStamp } from '../../server/backup-stamp';
import { createMetrics } from '../../server/metrics';
import { capturingLogger, tempDataDir } from '../support/config';
import { rawRequest } from '../support/http';
import { serverWithMetrics } from '../support/server-process';

const NAME = 'backup_last_success_timestamp_seconds';
const noPending = { outbox: () => 0, mail: () => 0 };

/** The gauge's samples in Prometheus text (its HELP and TYPE lines aside). */
function samples(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${NAME} `) || line.startsWith(NAME + '{'));
}

function scrapeOf(dataDir: string) {
  const { logger, lines } = capturingLogger();
  const metrics = createMetrics({
    pending: noPending,
    lastBackup: () => readBackupStamp(dataDir),
    logger,
  });
  return { text: () => metrics.text(), lines };
}

const stamp = (dataDir: string, content: string) =>
  fs.writeFileSync(path.join(dataDir, BACKUP_STAMP_FILE), content);

describe('the gauge, read on every scrape', () => {
  it('is the stamped time, and follows a new stamp at the next scrape', async () => {
    const dataDir = tempDataDir();
    const scrape = scrapeOf(dataDir);
    const earlier = Math.floor(Date.now() / 1000) - 26 * 3600;
    stamp(dataDir, `${earlier}\n`);
    expect(samples(await scrape.text())).toEqual([`${NAME} ${earlier}`]);
    const later = Math.floor(Date.now() / 1000);
    stamp(dataDir, `${later}\n`);
    expect(samples(await scrape.text())).toEqual([`${NAME} ${later}`]);
    expect(scrape.lines).toEqual([]);
  });

  it('has no sample without a stamp (never a backup), and says nothing of it', async () => {
    const scrape = scrapeOf(tempDataDir());
    const text = await scrape.text();
    expect(text).toContain(`# TYPE ${NAME} gauge`);
    expect(samples(text)).toEqual([]);
    expect(scrape.lines).toEqual([]);
  });

  it.each([
    ['words', 'yesterday at three\n', 'not Unix seconds'],
    ['an empty file', '', 'not Unix seconds'],
    ['a negative time', '-5\n', 'not Unix seconds'],
    ['zero', '0\n', 'not Unix seconds'],
    ['a time a day ahead', `${Math.floor(Date.now() / 1000) + 86_400}\n`, 'an hour ahead'],
  ])(
    'has no sample for a stamp of %s, and logs why (never the content)',
    async (_, content, why) => {
      const dataDir = tempDataDir();
      stamp(dataDir, content);
      const scrape = scrapeOf(dataDir);
      expect(samples(await scrape.text())).toEqual([]);
      expect(scrape.lines).toHaveLength(1);
      const line = JSON.parse(scrape.lines[0]);
      expect(line.msg).toBe('the backup stamp in DATA_DIR is not believed');
      expect(line.reason).toContain(why);
      // Fixed words only: whatever the file holds stays out of the log.
      expect(Object.keys(line).sort()).toEqual(['level', 'msg', 'reason', 'time']);
    },
  );

  it('is not exported at all without a source', async () => {
    const text = await createMetrics({ pending: noPending }).text();
    expect(text).not.toContain(NAME);
  });
});

describe('the built server', () => {
  const site = serverWithMetrics();

  it('exports the stamp of its DATA_DIR', async () => {
    const dataDir = tempDataDir();
    await site.start({ DATA_DIR: dataDir });
    const scrape = async () =>
      samples((await rawRequest(site.metricsPort, '/metrics')).body.toString('utf8'));
    expect(await scrape()).toEqual([]);
    const at = Math.floor(Date.now() / 1000);
    stamp(dataDir, `${at}\n`);
    expect(await scrape()).toEqual([`${NAME} ${at}`]);
  });
});
