// The dashboard (the console's home): the signups by state and by language, the mail queue and
// the outbox by state, and the chart of the last 90 days.
import { LANGUAGES } from '../../../shared/i18n/languages';
import type { Store } from '../../store';
import { SIGNUP_STATES } from '../../store/signups';
import { Chart, chartSince, lastDays } from '../chart';
import type { RouteModule } from '../route';

// Loader

type DashboardStore = Pick<Store, 'signups' | 'mail' | 'outbox'>;

interface DashboardData {
  signups: Awaited<ReturnType<DashboardStore['signups']['stats']>>;
  languages: Awaited<ReturnType<DashboardStore['signups']['languages']>>;
  mail: Awaited<ReturnType<DashboardStore['mail']['counts']>>;
  outbox: { queued: number; dead: number };
  /** The chart's days, oldest first. */
  days: ReturnType<typeof lastDays>;
}

export async function loadDashboard(store: DashboardStore, today: Date): Promise<DashboardData> {
  const [stats, languages, mail, outbox, daily] = await Promise.all([
    store.signups.stats(),
    store.signups.languages(),
    store.mail.counts(),
    store.outbox.all(),
    store.signups.daily(chartSince(today)),
  ]);
  const dead = outbox.filter((item) => item.state === 'dead').length;
  return {
    signups: stats,
    languages,
    mail,
    outbox: { queued: outbox.length - dead, dead },
    days: lastDays(daily, today),
  };
}

// View

function Figures({ caption, pairs }: { caption: string; pairs: [string, number][] }) {
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

export function DashboardView({ signups, languages, mail, outbox, days }: DashboardData) {
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
      </div>
      <Chart days={days} />
    </>
  );
}

// Routes

export const dashboardRoutes: RouteModule = ({ store, now = Date.now }) => [
  {
    method: 'get',
    name: 'dashboard',
    handle: async () => ({
      title: 'Dashboard',
      view: <DashboardView {...await loadDashboard(store, new Date(now()))} />,
    }),
  },
];
