// /admin/audit: the audit log, newest first, 50 a page with keyset pagination (the next page
// starts after the last entry shown, so a page deep in a long log costs what the first does).
// Entries name accounts, counts and the client address that acted (none for the CLI, nor after
// 90 days), never an address of the waitlist.
import type { Store } from '../store';
import { ConsoleTable, When } from './table';

export const AUDIT_PAGE = 50;

/** `before`: "<at>|<id>" of the last entry of the page before, as the "Older" link carries it. */
export async function auditPage(store: Pick<Store, 'audit'>, before: string) {
  const [at, id] = before.split('|');
  const entries = await store.audit.list({
    limit: AUDIT_PAGE,
    before: at && id ? { at, id } : undefined,
  });
  const last = entries.at(-1);
  const older =
    last && entries.length === AUDIT_PAGE ? encodeURIComponent(`${last.at}|${last.id}`) : undefined;
  return (
    <>
      <h1>Audit log</h1>
      <p>
        <a href="/admin">Dashboard</a>
      </p>
      <ConsoleTable
        caption="What was done in the console, newest first"
        columns={['Time', 'Account', 'Action', 'Addresses', 'Client address']}
        rows={entries.map((entry) => ({
          key: entry.id,
          cells: [
            <When iso={entry.at} />,
            entry.account,
            // An action may name an account's address: it wraps like any text.
            entry.action,
            entry.addresses,
            entry.client ?? '—',
          ],
        }))}
        empty="Nothing recorded yet."
      />
      {older && (
        <p>
          <a href={`/admin/audit?before=${older}`}>Older entries</a>
        </p>
      )}
    </>
  );
}
