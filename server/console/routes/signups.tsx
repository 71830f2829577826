// The signups: a table that searches by address (a substring, any case: field `q`, type
// search), filters by state and by the language of the page they came from, shows where each came
// from, sorts newest or oldest first, and pages with keyset pagination, 50 a page. Each row can
// be invited ("Invite", or "Invite again" once invited: invite.tsx) and removed ("Remove" leads
// to a confirmation button: remove.tsx); "Invite the next N" and the CSV export start here too.
// Everything is a plain form: no script.
import { LANGUAGES, type Language } from '../../../shared/i18n/languages';
import { asText } from '../../http/body';
import type { Store } from '../../store';
import { BOUNCE_PROVIDER_NAMES, type BounceProvider } from '../../bounces/notices';
import { SIGNUP_STATES, type SignupPageRow, type SignupState } from '../../store/signups';
import { Hidden, PostForm } from '../layout';
import { CONSOLE_URLS } from '../paths';
import type { RouteModule } from '../route';
import { ConsoleTable, StateLabel, Timestamp } from '../table';
import { NEXT_MAX } from './invite';

export const SIGNUPS_PAGE = 50;

// Loader

export interface SignupsQuery {
  q: string;
  state?: SignupState;
  /** Any known language, served or not: signups from a language since turned off stay listed. */
  language?: Language;
  order: 'newest' | 'oldest';
  /** "<created_at>|<id>" of the last row of the page before. */
  after: string;
}

/** The page's query: the search, the filter, the order and the cursor, as the forms send them. */
export function signupsQuery(query: Record<string, unknown>): SignupsQuery {
  const state = SIGNUP_STATES.find((s) => s === asText(query.state));
  const language = LANGUAGES.find((l) => l === asText(query.language));
  const order = asText(query.order) === 'oldest' ? 'oldest' : 'newest';
  const q = asText(query.q).trim().slice(0, 254);
  return { q, state, language, order, after: asText(query.after) };
}

type SignupRow = Awaited<ReturnType<Store['signups']['page']>>[number];

/** A page of signups as the query asks. */
export async function loadSignups(
  store: Pick<Store, 'signups'>,
  query: SignupsQuery,
): Promise<SignupRow[]> {
  const [createdAt, id] = query.after.split('|');
  return store.signups.page({
    q: query.q || undefined,
    state: query.state,
    language: query.language,
    order: query.order,
    limit: SIGNUPS_PAGE,
    after:
      createdAt && Number.isSafeInteger(Number(id)) ? { createdAt, id: Number(id) } : undefined,
  });
}

// View

function SearchForms({ query }: { query: SignupsQuery }) {
  return (
    <>
      <form method="get" action={CONSOLE_URLS.signups} className="console-search" role="search">
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
          <label className="field-label" htmlFor="language">
            Language
          </label>
          <select
            className="field-input"
            id="language"
            name="language"
            defaultValue={query.language ?? ''}
          >
            <option value="">any</option>
            {LANGUAGES.map((l) => (
              <option key={l} value={l}>
                {l}
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
      <form method="get" action={CONSOLE_URLS.inviteNext} className="console-search">
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
        <a className="button button-secondary" href={CONSOLE_URLS.export}>
          Export CSV
        </a>
        <a className="button button-secondary" href={CONSOLE_URLS.importList}>
          Import CSV
        </a>
      </form>
    </>
  );
}

/** Why a row is undeliverable, as its row says it: who found it, and their words. */
function whyUndeliverable(row: Pick<SignupPageRow, 'undeliverable_by' | 'undeliverable_detail'>) {
  const { undeliverable_by: by, undeliverable_detail: detail } = row;
  const words = detail ? `: ${detail}` : '';
  if (by === null || by === 'smtp') return `refused by the mail server${words}`;
  return `bounced at ${BOUNCE_PROVIDER_NAMES[by as BounceProvider] ?? by}${words}`;
}

function RowActions({ email, state, csrf }: { email: string; state: SignupState; csrf: string }) {
  const again = state === 'invited' || state === 'activated';
  return (
    <div>
      <PostForm action={CONSOLE_URLS.invite} csrf={csrf} className="console-action">
        <Hidden name="email" value={email} />
        {again && <Hidden name="again" value="1" />}
        <button type="submit" className="button button-secondary">
          {again ? 'Invite again' : 'Invite'}
        </button>
      </PostForm>
      {/* A POST, though it only asks: as a GET the address would be in a URL the proxy logs. */}
      <PostForm action={CONSOLE_URLS.removeConfirm} csrf={csrf} className="console-action">
        <Hidden name="email" value={email} />
        <button type="submit" className="button button-secondary">
          Remove
        </button>
      </PostForm>
    </div>
  );
}

interface SignupsViewProps {
  query: SignupsQuery;
  rows: SignupRow[];
  csrf: string;
}

export function SignupsView({ query, rows, csrf }: SignupsViewProps) {
  const last = rows.at(-1);
  const next = new URLSearchParams({
    q: query.q,
    state: query.state ?? '',
    language: query.language ?? '',
    order: query.order,
    after: last ? `${last.created_at}|${last.id}` : '',
  });
  return (
    <>
      <h1>Signups</h1>
      <p>
        <a href={CONSOLE_URLS.dashboard}>Dashboard</a>
      </p>
      <SearchForms query={query} />
      <ConsoleTable
        caption="Signups"
        columns={[
          'Address',
          'About me',
          'Joined',
          'Invited',
          'Activated',
          'State',
          'Language',
          'Source',
          'Actions',
        ]}
        rows={rows.map((r) => ({
          key: r.id,
          cells: [
            r.email,
            r.description,
            <Timestamp iso={r.created_at} />,
            <Timestamp iso={r.invited_at} />,
            <Timestamp iso={r.activated_at} />,
            r.state === 'undeliverable' ? (
              <>
                <StateLabel>{r.state}</StateLabel>
                <small className="console-note">{whyUndeliverable(r)}</small>
              </>
            ) : (
              <StateLabel>{r.state}</StateLabel>
            ),
            r.language,
            // What the dashboard counts it by: the link's utm_source, else the referring site.
            r.utm_source ?? r.referrer ?? '',
            <RowActions email={r.email} state={r.state} csrf={csrf} />,
          ],
        }))}
        empty="No signups match."
      />
      {last && rows.length === SIGNUPS_PAGE && (
        <p>
          <a href={`${CONSOLE_URLS.signups}?${next.toString()}`}>Next {SIGNUPS_PAGE}</a>
        </p>
      )}
    </>
  );
}

// Routes

export const signupsRoutes: RouteModule = ({ store }) => [
  {
    method: 'get',
    name: 'signups',
    handle: async (req, res) => {
      const query = signupsQuery(req.query);
      const rows = await loadSignups(store, query);
      const { csrf } = res.locals.consoleSession;
      return { title: 'Signups', view: <SignupsView query={query} rows={rows} csrf={csrf} /> };
    },
  },
];
