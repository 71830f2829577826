// /admin/audit (issue 24): the audit log, newest first, 50 a page with keyset pagination (the
// next page starts after the last entry shown, so a page deep in a long log costs what the first
// does). Entries name accounts and counts, never an address of the waitlist.
import { escapeMarkup as e } from '../../shared/markup';
import type { Store } from '../store';

export const AUDIT_PAGE = 50;

/** `before`: "<at>|<id>" of the last entry of the page before, as the "Older" link carries it. */
export async function auditPage(store: Pick<Store, 'audit'>, before: string): Promise<string> {
  const [at, id] = before.split('|');
  const entries = await store.audit.list({ limit: AUDIT_PAGE, before: at && id ? { at, id } : undefined });
  const rows = entries
    .map((entry) => `<tr><td>${e(entry.at)}</td><td>${e(entry.account)}</td><td>${e(entry.action)}</td><td>${entry.addresses}</td></tr>`)
    .join('');
  const last = entries.at(-1);
  const older =
    last && entries.length === AUDIT_PAGE ? `<p><a href="/admin/audit?before=${encodeURIComponent(`${last.at}|${last.id}`)}">Older entries</a></p>` : '';
  return (
    '<h1>Audit log</h1><p><a href="/admin">Dashboard</a></p>' +
    '<table class="console-table"><caption>What was done in the console, newest first</caption>' +
    '<thead><tr><th scope="col">Time</th><th scope="col">Account</th><th scope="col">Action</th><th scope="col">Addresses</th></tr></thead>' +
    `<tbody>${rows || '<tr><td colspan="4">Nothing recorded yet.</td></tr>'}</tbody></table>${older}`
  );
}
