// /admin/signups (issue 24): the signups as a table that searches by address (a substring, any
// case: field `q`, type search), filters by state, sorts newest or oldest first, and pages with
// keyset pagination, 50 a page. Each row can be invited ("Invite", or "Invite again" once invited)
// and removed ("Remove" leads to a confirmation button). Everything is a plain form: no script.
import { createHash } from 'node:crypto';
import { asText } from '../http/body';
import { consoleTable, when, word } from './table';
import { escapeMarkup as e } from '../../shared/markup';
import type { Store } from '../store';
import { SIGNUP_STATES, type SignupState } from '../store/types';
import { postForm } from './pages';

export const SIGNUPS_PAGE = 50;

/** The most "Invite the next N" takes at once from the console (the CLI takes any number). */
export const NEXT_MAX = 1_000;

export interface SignupsQuery {
  q: string;
  state?: SignupState;
  order: 'newest' | 'oldest';
  /** "<created_at>|<id>" of the last row of the page before. */
  after: string;
}

export function signupsQuery(query: Record<string, unknown>): SignupsQuery {
  const state = SIGNUP_STATES.find((s) => s === asText(query.state));
  return { q: asText(query.q).trim().slice(0, 254), state, order: asText(query.order) === 'oldest' ? 'oldest' : 'newest', after: asText(query.after) };
}

const option = (value: string, label: string, selected: boolean) => `<option value="${value}"${selected ? ' selected' : ''}>${label}</option>`;

export async function signupsPage(store: Pick<Store, 'signups'>, query: SignupsQuery, csrf: string): Promise<string> {
  const [createdAt, id] = query.after.split('|');
  const rows = await store.signups.page({
    q: query.q || undefined,
    state: query.state,
    order: query.order,
    limit: SIGNUPS_PAGE,
    after: createdAt && Number.isSafeInteger(Number(id)) ? { createdAt, id: Number(id) } : undefined,
  });
  const search =
    '<form method="get" action="/admin/signups" class="console-search" role="search">' +
    `<div class="field"><label class="field-label" for="q">Address contains</label><input class="field-input" id="q" name="q" type="search" value="${e(query.q)}"></div>` +
    `<div class="field"><label class="field-label" for="state">State</label><select class="field-input" id="state" name="state">${option('', 'any', !query.state)}${SIGNUP_STATES.map((s) => option(s, s, query.state === s)).join('')}</select></div>` +
    `<div class="field"><label class="field-label" for="order">Order</label><select class="field-input" id="order" name="order">${option('newest', 'newest first', query.order === 'newest')}${option('oldest', 'oldest first', query.order === 'oldest')}</select></div>` +
    '<button type="submit" class="button button-secondary">Search</button></form>' +
    '<form method="get" action="/admin/signups/next" class="console-search"><div class="field"><label class="field-label" for="n">Invite the next</label>' +
    `<input class="field-input" id="n" name="n" type="number" min="1" max="${NEXT_MAX}" value="10" required></div>` +
    '<button type="submit" class="button button-secondary">Show who</button><a class="button button-secondary" href="/admin/signups/export">Export CSV</a></form>';
  const actions = (email: string, state: SignupState) =>
    '<div>' +
    postForm(
      '/admin/signups/invite',
      csrf,
      `<input type="hidden" name="email" value="${e(email)}">` +
        (state === 'invited' || state === 'activated'
          ? '<input type="hidden" name="again" value="1"><button type="submit" class="button button-secondary">Invite again</button>'
          : '<button type="submit" class="button button-secondary">Invite</button>'),
      'console-action',
    ) +
    // A POST, though it only asks: as a GET the address would be in a URL the proxy logs.
    postForm(
      '/admin/signups/remove/confirm',
      csrf,
      `<input type="hidden" name="email" value="${e(email)}"><button type="submit" class="button button-secondary">Remove</button>`,
      'console-action',
    ) +
    '</div>';
  const last = rows.at(-1);
  const next = new URLSearchParams({ q: query.q, state: query.state ?? '', order: query.order, after: last ? `${last.created_at}|${last.id}` : '' });
  const more = last && rows.length === SIGNUPS_PAGE ? `<p><a href="/admin/signups?${e(next.toString())}">Next ${SIGNUPS_PAGE}</a></p>` : '';
  return (
    '<h1>Signups</h1><p><a href="/admin">Dashboard</a></p>' +
    search +
    consoleTable({
      caption: 'Signups',
      columns: ['Address', 'About me', 'Joined', 'Invited', 'Activated', 'State', 'Actions'],
      rows: rows.map((r) => [
        e(r.email),
        e(r.description),
        when(r.created_at),
        when(r.invited_at),
        when(r.activated_at),
        word(r.state),
        actions(r.email, r.state),
      ]),
      empty: 'No signups match.',
    }) +
    more
  );
}

/** The confirmation step of Remove: what goes, and one button that posts. */
export function removeConfirmation(email: string, csrf: string): string {
  return (
    `<h1>Remove ${e(email)}?</h1><p>This erases the signup, its activation keys, its mail and any outbox item, as <code>waitlist remove</code> does. It cannot be undone.</p>` +
    postForm(
      '/admin/signups/remove',
      csrf,
      `<input type="hidden" name="email" value="${e(email)}"><button type="submit" class="button button-primary">Remove ${e(email)}</button>`,
    ) +
    '<p><a href="/admin/signups">Keep it</a></p>'
  );
}

/** What the preview showed, as a form field: the confirmation invites only if it still holds. */
export function previewDigest(would: string[]): string {
  return createHash('sha256').update(would.join('\n')).digest('base64url');
}

/**
 * Who "Invite the next N" would invite, and the button that does it; `changed` says why it is
 * shown again.
 */
export function nextPreview(n: number, would: string[], csrf: string, changed?: string): string {
  const note = changed ? `<p role="alert">${e(changed)}</p>` : '';
  if (would.length === 0)
    return `<h1>Nobody to invite</h1>${note}<p>No confirmed address is waiting.</p><p><a href="/admin/signups">Back to the signups</a></p>`;
  return (
    `<h1>Invite these ${would.length}?</h1>${note}<ol>${would.map((email) => `<li>${e(email)}</li>`).join('')}</ol>` +
    postForm(
      '/admin/signups/next',
      csrf,
      `<input type="hidden" name="n" value="${n}"><input type="hidden" name="seen" value="${previewDigest(would)}">` +
        `<button type="submit" class="button button-primary">Invite ${would.length}</button>`,
    ) +
    '<p><a href="/admin/signups">Back to the signups</a></p>'
  );
}
