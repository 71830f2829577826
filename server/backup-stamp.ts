// When the last scheduled backup succeeded, as the kit's backup service (deploy/backup.sh) leaves
// it in DATA_DIR after each copy it completes: Unix seconds on one line, written under another
// name and renamed. The metrics read it on every scrape (backup_last_success_timestamp_seconds),
// so an alert hears of backups that stopped, or never started.
import fs from 'node:fs/promises';
import path from 'node:path';

/** Its name in DATA_DIR; deploy/backup.sh writes it. */
export const BACKUP_STAMP_FILE = 'backup-last-success';

/**
 * A clock a little ahead of the site's is tolerated; a stamp further ahead is not believed: it
 * would pass for a fresh backup long after the backups stopped.
 */
const FUTURE_SLACK_SECONDS = 3_600;

export type BackupStamp =
  | { kind: 'none' }
  | { kind: 'at'; seconds: number }
  /** The file is there but holds no believable time; `reason` is fixed text, never its content. */
  | { kind: 'unreadable'; reason: string };

export async function readBackupStamp(dataDir: string, now = Date.now()): Promise<BackupStamp> {
  let text: string;
  try {
    text = await fs.readFile(path.join(dataDir, BACKUP_STAMP_FILE), 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'none' };
    return { kind: 'unreadable', reason: `cannot be read (${code ?? 'error'})` };
  }
  if (!/^\d{1,12}\s*$/.test(text)) return { kind: 'unreadable', reason: 'not Unix seconds' };
  const seconds = Number(text.trim());
  if (seconds === 0) return { kind: 'unreadable', reason: 'not Unix seconds' };
  if (seconds > now / 1000 + FUTURE_SLACK_SECONDS)
    return { kind: 'unreadable', reason: 'more than an hour ahead of this clock' };
  return { kind: 'at', seconds };
}
