// The dashboard (the console's home): the signups by state and by language, the mail queue and
// the outbox by state, the providers' bounce and complaint rates, the chart of the last 90
// days, and where the signups of a period the operator picks (a plain GET form) came from.
import { LANGUAGES } from '../../../shared/i18n/languages';
import { asText } from '../../http/body';
import type { Store } from '../../store';
import type { BounceCounts } from '../../store/bounces';
import { SIGNUP_STATES, type SourceCount, type SourceCounts } from '../../store/signups';
import { Chart, chartSince, lastDays } from '../chart';
import { CONSOLE_URLS } from '../paths';
import type { RouteModule } from '../route';

// Loader

type DashboardStore = Pick<Store, 'signups' | 'mail' | 'outbox' | 'bounces'>;

/** The periods the sources are counted over, in days, and all time; 30 days unless asked. */
const PERIODS = ['7', '30', '90', '365', 'all'] as const;
export type Period = (typeof PERIODS)[number];
const DEFAULT_PERIOD: Period = '30';

/** The most frequent sources listed; the rest are counted together. */
export const SOURCES_LISTED = 20;

/** The period the query names (`days`), or the default for anything else. */
export function periodOf(query: Record<string, unknown>): Period {
  return PERIODS.find((period) => period === asText(query.days)) ?? DEFAULT_PERIOD;
}

/** The first UTC day of the period ending today (YYYY-MM-DD); '' for all time. */
function periodSince(period: Period, today: Date): string {
  if (period === 'all') return '';
  const [year, month, date] = [today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()];
  return new Date(Date.UTC(year, month, date - (Number(period) - 1))).toISOString().slice(0, 10);
}

interface DashboardData {
  signups: Awaited<ReturnType<DashboardStore['signups']['stats']>>;
  languages: Awaited<ReturnType<DashboardStore['signups']['languages']>>;
  mail: Awaited<ReturnType<DashboardStore['mail']['counts']>>;
  outbox: { queued: number; dead: number };
  /** The chart's days, oldest first. */
  days: ReturnType<typeof lastDays>;
  period: Period;
  sources: SourceCounts;
  /** What the mail providers reported over the last BOUNCE_DAYS, beside the mail sent. */
  bounces: BounceCounts;
}

/** The days the bounce and complaint rates are taken over. */
export const BOUNCE_DAYS = 30;

export async function loadDashboard(
  store: DashboardStore,
  today: Date,
  period: Period = DEFAULT_PERIOD,
): Promise<DashboardData> {
  const bouncesSince = new Date(today.getTime() - BOUNCE_DAYS * 24 * 60 * 60_000).toISOString();
  const [stats, languages, mail, outbox, daily, sources, bounces] = await Promise.all([
    store.signups.stats(),
    store.signups.languages(),
    store.mail.counts(),
    store.outbox.all(),
    store.signups.daily(chartSince(today)),
    store.signups.sources(periodSince(period, today), SOURCES_LISTED),
    store.bounces.counts(bouncesSince),
  ]);
  const dead = outbox.filter((item) => item.state === 'dead').length;
  return {
    signups: stats,
    languages,
    mail,
    outbox: { queued: outbox.length - dead, dead },
    days: lastDays(daily, today),
    period,
    sources,
    bounces,
  };
}

// View

function Figures({ caption, pairs }: { caption: string; pairs: [string, number | string][] }) {
  return (
    <table className="console-figures">
      <caption>{caption}</caption>
      <tbody>
        {pairs.map(([name, n]) => (
          <tr key={name}>
            <th scope="row">{name}</th>
            <td>{n}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** `n` and its share of `of`, as "12 (2.4 %)"; no share while nothing was sent. */
function withRate(n: number, of: number, digits: number): string {
  // No-break spaces: the figure and its share stay on one line in a narrow column.
  return of > 0 ? `${n}\u00a0(${((100 * n) / of).toFixed(digits)}\u00a0%)` : String(n);
}

/**
 * The providers' bounces and complaints over the mail sent: the rates providers watch (SES reviews
 * an account past 5 % bounces or 0.1 % complaints), so complaints get one more digit.
 */
function Bounces({ bounces }: Pick<DashboardData, 'bounces'>) {
  const { sent, permanent, transient, complaint } = bounces;
  return (
    <Figures
      caption={`Bounces and complaints, the last ${BOUNCE_DAYS} days`}
      pairs={[
        ['mail sent', sent],
        ['permanent bounces', withRate(permanent, sent, 1)],
        ['transient bounces', withRate(transient, sent, 1)],
        ['complaints', withRate(complaint, sent, 2)],
      ]}
    />
  );
}

/** A source as the table names it: by the field it was known from, the words of the export. */
function sourceName({ kind, name }: SourceCount): string {
  if (kind === 'campaign') return `utm_source=${name}`;
  if (kind === 'site') return `referrer=${name}`;
  return 'direct or unknown';
}

const PERIOD_WORDS: Record<Period, string> = {
  '7': 'the last 7 days',
  '30': 'the last 30 days',
  '90': 'the last 90 days',
  '365': 'the last 365 days',
  all: 'all time',
};

/** Where the period's signups came from, the period chosen with a plain GET form. */
function Sources({ period, sources }: Pick<DashboardData, 'period' | 'sources'>) {
  const { top, total } = sources;
  const others = total - top.reduce((sum, source) => sum + source.signups, 0);
  const pairs = top.map((source): [string, number] => [sourceName(source), source.signups]);
  if (others > 0) pairs.push(['all other sources', others]);
  return (
    <section aria-labelledby="sources-title">
      <h2 id="sources-title">Where signups came from</h2>
      <form method="get" action={CONSOLE_URLS.dashboard} className="console-search">
        <div className="field">
          <label className="field-label" htmlFor="days">
            Period
          </label>
          <select className="field-input" id="days" name="days" defaultValue={period}>
            {PERIODS.map((each) => (
              <option key={each} value={each}>
                {PERIOD_WORDS[each]}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" className="button button-secondary">
          Show
        </button>
      </form>
      <Figures
        caption={`Signups by source, ${PERIOD_WORDS[period]}`}
        pairs={[...pairs, ['total', total]]}
      />
    </section>
  );
}

export function DashboardView({
  signups,
  languages,
  mail,
  outbox,
  days,
  period,
  sources,
  bounces,
}: DashboardData) {
  const byState = SIGNUP_STATES.map((state): [string, number] => [state, signups[state]]);
  const byLanguage = LANGUAGES.map((language): [string, number] => [language, languages[language]]);
  return (
    <>
      <h1>Dashboard</h1>
      <div className="console-grid">
        <Figures caption="Signups" pairs={[...byState, ['total', signups.total]]} />
        <Figures caption="Signups by language" pairs={byLanguage} />
        <Figures
          caption="Mail"
          pairs={[
            ['queued', mail.queued],
            ['failed', mail.failed],
            ['dead', mail.dead],
          ]}
        />
        <Figures
          caption="Outbox"
          pairs={[
            ['queued', outbox.queued],
            ['dead', outbox.dead],
          ]}
        />
        <Bounces bounces={bounces} />
      </div>
      <Chart days={days} />
      <Sources period={period} sources={sources} />
    </>
  );
}

// Routes

export const dashboardRoutes: RouteModule = ({ store, now = Date.now }) => [
  {
    method: 'get',
    name: 'dashboard',
    handle: async (req) => ({
      title: 'Dashboard',
      view: <DashboardView {...await loadDashboard(store, new Date(now()), periodOf(req.query))} />,
    }),
  },
];
