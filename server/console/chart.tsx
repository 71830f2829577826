// The dashboard's chart: signups, invitations and activations per day over the last 90 days, drawn
// on the server as SVG (readable without JavaScript), with a table of the same figures as its text
// alternative for screen readers and for anyone who wants the numbers.
import type { DailyCounts } from '../store/signups';

export const CHART_DAYS = 90;

const SERIES = [
  { key: 'signups', label: 'Signups', colour: '#a78bfa' },
  { key: 'invited', label: 'Invitations', colour: '#5eead4' },
  { key: 'activated', label: 'Activations', colour: '#fcd34d' },
] as const;

const WIDTH = 720;
const HEIGHT = 200;
const PAD = { left: 8, right: 8, top: 8, bottom: 8 };

/** The 90 UTC days ending today, oldest first, each with its counts (0 where none). */
export function lastDays(counts: DailyCounts[], today: Date): DailyCounts[] {
  const byDay = new Map(counts.map((c) => [c.day, c]));
  const [year, month, date] = [today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate()];
  return Array.from({ length: CHART_DAYS }, (_, i) => {
    const day = new Date(Date.UTC(year, month, date - (CHART_DAYS - 1 - i)))
      .toISOString()
      .slice(0, 10);
    return byDay.get(day) ?? { day, signups: 0, invited: 0, activated: 0 };
  });
}

/** The first day the chart shows, for the store's query. */
export function chartSince(today: Date): string {
  return lastDays([], today)[0].day;
}

export function Chart({ days }: { days: DailyCounts[] }) {
  const max = Math.max(1, ...days.flatMap((d) => SERIES.map((s) => d[s.key])));
  const x = (i: number) => PAD.left + (i * (WIDTH - PAD.left - PAD.right)) / (days.length - 1);
  const y = (n: number) => PAD.top + (HEIGHT - PAD.top - PAD.bottom) * (1 - n / max);
  const totals = SERIES.map(
    (s) => `${days.reduce((sum, d) => sum + d[s.key], 0)} ${s.label.toLowerCase()}`,
  );
  const busy = days.filter((d) => d.signups || d.invited || d.activated);
  const title = `Signups, invitations and activations per day, last ${CHART_DAYS} days`;
  const summary = `In all: ${totals.join(', ')}. The table below gives each day.`;
  return (
    <>
      <figure className="console-chart">
        {/* The scale and the dates are HTML around the drawing, not SVG text: the drawing shrinks
            with the screen (to half its size on a phone), and text inside it would shrink too. */}
        <p className="console-axis">Top of the chart: {max} a day</p>
        <svg
          viewBox={`0 0 ${WIDTH} ${HEIGHT}`}
          role="img"
          aria-labelledby="chart-title chart-summary"
        >
          <title id="chart-title">{title}</title>
          <desc id="chart-summary">{summary}</desc>
          <line x1={PAD.left} y1={y(0)} x2={WIDTH - PAD.right} y2={y(0)} stroke="#3b3658" />
          {SERIES.map((s) => (
            <polyline
              key={s.key}
              fill="none"
              stroke={s.colour}
              strokeWidth="2"
              points={days.map((d, i) => `${x(i).toFixed(1)},${y(d[s.key]).toFixed(1)}`).join(' ')}
            />
          ))}
        </svg>
        <p className="console-axis console-dates">
          <span>{days[0].day}</span>
          <span>{days[days.length - 1].day}</span>
        </p>
        <figcaption>
          <ul className="console-legend">
            {SERIES.map((s) => (
              <li key={s.key}>
                {/* Swatches as SVG: fill is an attribute; the CSP allows no style attribute. */}
                <svg width="12" height="12" aria-hidden="true" focusable="false">
                  <rect width="12" height="12" rx="2" fill={s.colour} />
                </svg>{' '}
                {s.label}
              </li>
            ))}
          </ul>
        </figcaption>
      </figure>
      <details>
        <summary>The figures by day</summary>
        <table>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col">Signups</th>
              <th scope="col">Invitations</th>
              <th scope="col">Activations</th>
            </tr>
          </thead>
          <tbody>
            {busy.length ? (
              busy.map((d) => (
                <tr key={d.day}>
                  <th scope="row">{d.day}</th>
                  <td>{d.signups}</td>
                  <td>{d.invited}</td>
                  <td>{d.activated}</td>
                </tr>
              ))
            ) : (
              <tr>
                <td colSpan={4}>Nothing in these 90 days.</td>
              </tr>
            )}
          </tbody>
        </table>
      </details>
    </>
  );
}
