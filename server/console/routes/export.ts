// The signups as CSV, through the CLI's export, streamed: a million rows never sit in memory. The
// audit log has the export before its first row leaves and its outcome before the download ends.
import type { Response } from 'express';
import type { Store } from '../../store';
import { exportSignups } from '../../waitlist/listing';
import { audit } from '../request';
import type { RouteModule } from '../route';

async function streamExport(store: Store, res: Response): Promise<void> {
  // Recorded before the first row leaves: an export cut short by a crash or a kill has left its
  // trace, and the outcome recorded after says how many rows went.
  await audit(store, res, 'export started', 0);
  res.setHeader('Content-Type', 'text/csv; charset=utf-8');
  res.setHeader('Content-Disposition', 'attachment; filename="waitlist.csv"');
  let lines = 0;
  // A download cancelled while the socket is full never drains: wait for either, and stop once
  // the socket is gone. Leaving the loop ends the export, and with it the store's read (a
  // PostgreSQL pool connection, a SQLite snapshot), which waiting for 'drain' held for ever.
  let gone = false;
  const left = new Promise<void>((resolve) => res.once('close', () => resolve(void (gone = true))));
  // One 'drain' listener for the whole download, not a once() a wait: compression hands
  // res.on('drain') to its gzip stream, from which once() never removes it (a leak warning).
  let drained = () => {};
  res.on('drain', () => drained());
  let outcome = 'export (failed)';
  try {
    for await (const chunk of exportSignups({ store })) {
      if (gone) break;
      lines += chunk.split('\r\n').length - 1;
      if (!res.write(chunk))
        await Promise.race([new Promise<void>((resolve) => (drained = resolve)), left]);
    }
    outcome = gone ? 'export (cancelled)' : 'export';
  } finally {
    // The rows handed to the socket, the header aside, also when the store's read failed
    // halfway. Recorded before the download ends, so the log has it when the operator looks.
    await audit(store, res, outcome, Math.max(0, lines - 1));
  }
  if (!gone) res.end();
}

export const exportRoutes: RouteModule = ({ store }) => [
  { method: 'get', name: 'export', handle: (_req, res) => streamExport(store, res) },
];
