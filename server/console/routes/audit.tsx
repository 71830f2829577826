// The audit log: newest first, 50 a page with keyset pagination (the next page starts after the
// last entry shown, so a page deep in a long log costs what the first does). Entries name
// accounts, counts and the client address that acted (none for the CLI, nor after 90 days),
// never an address of the waitlist.
import type { Store } from '../../store';
import { CONSOLE_URLS } from '../paths';
import { text } from '../request';
import type { RouteModule } from '../route';
import { ConsoleTable, Timestamp } from '../table';

export const AUDIT_PAGE = 50;

// Loader

type AuditEntry = Awaited<ReturnType<Store['audit']['list']>>[number];

interface AuditData {
  entries: AuditEntry[];
  /** The "Older entries" link's cursor, when there may be older entries. */
  older?: string;
}

/** `before`: "<at>|<id>" of the last entry of the page before, as the "Older" link carries it. */
export async function loadAudit(store: Pick<Store, 'audit'>, before: string): Promise<AuditData> {
  const [at, id] = before.split('|');
  const entries = await store.audit.list({
    limit: AUDIT_PAGE,
    before: at && id ? { at, id } : undefined,
  });
  const last = entries.at(-1);
  const older =
    last && entries.length === AUDIT_PAGE ? encodeURIComponent(`${last.at}|${last.id}`) : undefined;
  return { entries, older };
}

// View

export function AuditView({ entries, older }: AuditData) {
  return (
    <>
      <h1>Audit log</h1>
      <p>
        <a href={CONSOLE_URLS.dashboard}>Dashboard</a>
      </p>
      <ConsoleTable
        caption="What was done in the console, newest first"
        columns={['Time', 'Account', 'Action', 'Addresses', 'Client address']}
        rows={entries.map((entry) => ({
          key: entry.id,
          cells: [
            <Timestamp iso={entry.at} />,
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
          <a href={`${CONSOLE_URLS.audit}?before=${older}`}>Older entries</a>
        </p>
      )}
    </>
  );
}

// Routes

export const auditRoutes: RouteModule = ({ store }) => [
  {
    method: 'get',
    name: 'audit',
    handle: async (req) => ({
      title: 'Audit log',
      view: <AuditView {...await loadAudit(store, text(req.query.before))} />,
    }),
  },
];
