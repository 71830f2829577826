// The dashboard's chart (issue 24): signups, invitations and activations per day over the last 90
// days, drawn on the server as SVG (readable without JavaScript), with a table of the same figures
// as its text alternative for screen readers and for anyone who wants the numbers.
import { escapeMarkup as e } from '../../shared/markup';
import type { DailyCounts } from '../store/types';

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
  return Array.from({ length: CHART_DAYS }, (_, i) => {
    const day = new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth(), today.getUTCDate() - (CHART_DAYS - 1 - i))).toISOString().slice(0, 10);
    return byDay.get(day) ?? { day, signups: 0, invited: 0, activated: 0 };
  });
}

/** The first day the chart shows, for the store's query. */
export function chartSince(today: Date): string {
  return lastDays([], today)[0].day;
}

export function chart(days: DailyCounts[]): string {
  const max = Math.max(1, ...days.flatMap((d) => SERIES.map((s) => d[s.key])));
  const x = (i: number) => PAD.left + (i * (WIDTH - PAD.left - PAD.right)) / (days.length - 1);
  const y = (n: number) => PAD.top + (HEIGHT - PAD.top - PAD.bottom) * (1 - n / max);
  const lines = SERIES.map(
    (s) =>
      `<polyline fill="none" stroke="${s.colour}" stroke-width="2" points="${days.map((d, i) => `${x(i).toFixed(1)},${y(d[s.key]).toFixed(1)}`).join(' ')}"/>`,
  ).join('');
  // The scale and the dates are HTML under the drawing, not SVG text: the drawing shrinks with the
  // screen (to half its size on a phone), and text inside it would shrink with it.
  const axis = `<line x1="${PAD.left}" y1="${y(0)}" x2="${WIDTH - PAD.right}" y2="${y(0)}" stroke="#3b3658"/>`;
  const scale = `<p class="console-axis">Top of the chart: ${max} a day</p>`;
  const dates = `<p class="console-axis console-dates"><span>${e(days[0].day)}</span><span>${e(days[days.length - 1].day)}</span></p>`;
  const totals = SERIES.map((s) => `${days.reduce((sum, d) => sum + d[s.key], 0)} ${s.label.toLowerCase()}`).join(', ');
  // Swatches as SVG (fill is an attribute, not a style): the CSP allows no inline style attribute.
  const legend = SERIES.map(
    (s) =>
      `<li><svg width="12" height="12" aria-hidden="true" focusable="false"><rect width="12" height="12" rx="2" fill="${s.colour}"/></svg> ${s.label}</li>`,
  ).join('');
  const rows = days
    .filter((d) => d.signups || d.invited || d.activated)
    .map((d) => `<tr><th scope="row">${e(d.day)}</th><td>${d.signups}</td><td>${d.invited}</td><td>${d.activated}</td></tr>`)
    .join('');
  return (
    `<figure class="console-chart">${scale}<svg viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-labelledby="chart-title chart-summary">` +
    `<title id="chart-title">Signups, invitations and activations per day, last ${CHART_DAYS} days</title>` +
    `<desc id="chart-summary">In all: ${totals}. The table below gives each day.</desc>${axis}${lines}</svg>${dates}` +
    `<figcaption><ul class="console-legend">${legend}</ul></figcaption></figure>` +
    `<details><summary>The figures by day</summary><table><thead><tr><th scope="col">Day</th><th scope="col">Signups</th><th scope="col">Invitations</th><th scope="col">Activations</th></tr></thead><tbody>${
      rows || '<tr><td colspan="4">Nothing in these 90 days.</td></tr>'
    }</tbody></table></details>`
  );
}
