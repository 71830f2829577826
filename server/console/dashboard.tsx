// The console's dashboard: the signups by state, the mail queue and the outbox by state, and the
// chart of the last 90 days.
import type { Store } from '../store';
import { SIGNUP_STATES } from '../store/types';
import { Chart, chartSince, lastDays } from './chart';

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

type DashboardStore = Pick<Store, 'signups' | 'mail' | 'outbox'>;

export async function dashboard(store: DashboardStore, today: Date) {
  const [stats, mail, outbox, daily] = await Promise.all([
    store.signups.stats(),
    store.mail.counts(),
    store.outbox.all(),
    store.signups.daily(chartSince(today)),
  ]);
  const dead = outbox.filter((item) => item.state === 'dead').length;
  const signups = SIGNUP_STATES.map((state): [string, number] => [state, stats[state]]);
  return (
    <>
      <h1>Dashboard</h1>
      <div className="console-grid">
        <Figures caption="Signups" pairs={[...signups, ['total', stats.total]]} />
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
            ['queued', outbox.length - dead],
            ['dead', dead],
          ]}
        />
      </div>
      <Chart days={lastDays(daily, today)} />
    </>
  );
}
