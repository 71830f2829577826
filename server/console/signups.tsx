// /admin/signups: the signups as a table that searches by address (a substring, any case: field
// `q`, type search), filters by state, sorts newest or oldest first, and pages with keyset
// pagination, 50 a page. Each row can be invited ("Invite", or "Invite again" once invited) and
// removed ("Remove" leads to a confirmation button). Everything is a plain form: no script.
import { createHash } from 'node:crypto';
import { asText } from '../http/body';
import type { Store } from '../store';
import { SIGNUP_STATES, type SignupState } from '../store/types';
import { BackToSignups, Hidden, PostForm } from './layout';
import { ConsoleTable, When, Word } from './table';

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
  const order = asText(query.order) === 'oldest' ? 'oldest' : 'newest';
  return { q: asText(query.q).trim().slice(0, 254), state, order, after: asText(query.after) };
}

function SearchForms({ query }: { query: SignupsQuery }) {
  return (
    <>
      <form method="get" action="/admin/signups" className="console-search" role="search">
        <div className="field">
          <label className="field-label" htmlFor="q">
            Address contains
          </label>
          <input className="field-input" id="q" name="q" type="search" defaultValue={query.q} />
        </div>
        <div className="field">
          <label className="field-label" htmlFor="state">
            State
          </label>
          <select className="field-input" id="state" name="state" defaultValue={query.state ?? ''}>
            <option value="">any</option>
            {SIGNUP_STATES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label className="field-label" htmlFor="order">
            Order
          </label>
          <select className="field-input" id="order" name="order" defaultValue={query.order}>
            <option value="newest">newest first</option>
            <option value="oldest">oldest first</option>
          </select>
        </div>
        <button type="submit" className="button button-secondary">
          Search
        </button>
      </form>
      <form method="get" action="/admin/signups/next" className="console-search">
        <div className="field">
          <label className="field-label" htmlFor="n">
            Invite the next
          </label>
          <input
            className="field-input"
            id="n"
            name="n"
            type="number"
            min="1"
            max={NEXT_MAX}
            defaultValue="10"
            required
          />
        </div>
        <button type="submit" className="button button-secondary">
          Show who
        </button>
        <a className="button button-secondary" href="/admin/signups/export">
          Export CSV
        </a>
      </form>
    </>
  );
}

function RowActions({ email, state, csrf }: { email: string; state: SignupState; csrf: string }) {
  const again = state === 'invited' || state === 'activated';
  return (
    <div>
      <PostForm action="/admin/signups/invite" csrf={csrf} className="console-action">
        <Hidden name="email" value={email} />
        {again && <Hidden name="again" value="1" />}
        <button type="submit" className="button button-secondary">
          {again ? 'Invite again' : 'Invite'}
        </button>
      </PostForm>
      {/* A POST, though it only asks: as a GET the address would be in a URL the proxy logs. */}
      <PostForm action="/admin/signups/remove/confirm" csrf={csrf} className="console-action">
        <Hidden name="email" value={email} />
        <button type="submit" className="button button-secondary">
          Remove
        </button>
      </PostForm>
    </div>
  );
}

export async function signupsPage(
  store: Pick<Store, 'signups'>,
  query: SignupsQuery,
  csrf: string,
) {
  const [createdAt, id] = query.after.split('|');
  const rows = await store.signups.page({
    q: query.q || undefined,
    state: query.state,
    order: query.order,
    limit: SIGNUPS_PAGE,
    after:
      createdAt && Number.isSafeInteger(Number(id)) ? { createdAt, id: Number(id) } : undefined,
  });
  const last = rows.at(-1);
  const next = new URLSearchParams({
    q: query.q,
    state: query.state ?? '',
    order: query.order,
    after: last ? `${last.created_at}|${last.id}` : '',
  });
  return (
    <>
      <h1>Signups</h1>
      <p>
        <a href="/admin">Dashboard</a>
      </p>
      <SearchForms query={query} />
      <ConsoleTable
        caption="Signups"
        columns={['Address', 'About me', 'Joined', 'Invited', 'Activated', 'State', 'Actions']}
        rows={rows.map((r) => ({
          key: r.id,
          cells: [
            r.email,
            r.description,
            <When iso={r.created_at} />,
            <When iso={r.invited_at} />,
            <When iso={r.activated_at} />,
            <Word>{r.state}</Word>,
            <RowActions email={r.email} state={r.state} csrf={csrf} />,
          ],
        }))}
        empty="No signups match."
      />
      {last && rows.length === SIGNUPS_PAGE && (
        <p>
          <a href={`/admin/signups?${next.toString()}`}>Next {SIGNUPS_PAGE}</a>
        </p>
      )}
    </>
  );
}

/** The confirmation step of Remove: what goes, and one button that posts. */
export function RemoveConfirmation({ email, csrf }: { email: string; csrf: string }) {
  return (
    <>
      <h1>Remove {email}?</h1>
      <p>
        This erases the signup, its activation keys, its mail and any outbox item, as{' '}
        <code>waitlist remove</code> does. It cannot be undone.
      </p>
      <PostForm action="/admin/signups/remove" csrf={csrf}>
        <Hidden name="email" value={email} />
        <button type="submit" className="button button-primary">
          Remove {email}
        </button>
      </PostForm>
      <BackToSignups>Keep it</BackToSignups>
    </>
  );
}

/** What the preview showed, as a form field: the confirmation invites only if it still holds. */
export function previewDigest(would: string[]): string {
  return createHash('sha256').update(would.join('\n')).digest('base64url');
}

interface NextPreviewProps {
  n: number;
  would: string[];
  csrf: string;
  /** Why the preview is shown again. */
  changed?: string;
}

/** Who "Invite the next N" would invite, and the button that does it. */
export function NextPreview({ n, would, csrf, changed }: NextPreviewProps) {
  const note = changed && <p role="alert">{changed}</p>;
  if (would.length === 0)
    return (
      <>
        <h1>Nobody to invite</h1>
        {note}
        <p>No confirmed address is waiting.</p>
        <BackToSignups />
      </>
    );
  return (
    <>
      <h1>Invite these {would.length}?</h1>
      {note}
      <ol>
        {would.map((email) => (
          <li key={email}>{email}</li>
        ))}
      </ol>
      <PostForm action="/admin/signups/next" csrf={csrf}>
        <Hidden name="n" value={n} />
        <Hidden name="seen" value={previewDigest(would)} />
        <button type="submit" className="button button-primary">
          Invite {would.length}
        </button>
      </PostForm>
      <BackToSignups />
    </>
  );
}
