// The console's dashboard (issue 24): the signups by state, the mail queue and the outbox by state,
// and the chart of the last 90 days.
import type { Store } from '../store';
import { SIGNUP_STATES } from '../store/types';
import { chart, chartSince, lastDays } from './chart';

function figures(caption: string, pairs: [string, number][]): string {
  return `<table class="console-figures"><caption>${caption}</caption><tbody>${pairs.map(([name, n]) => `<tr><th scope="row">${name}</th><td>${n}</td></tr>`).join('')}</tbody></table>`;
}

export async function dashboard(store: Pick<Store, 'signups' | 'mail' | 'outbox'>, today: Date): Promise<string> {
  const [stats, mail, outbox, daily] = await Promise.all([
    store.signups.stats(),
    store.mail.counts(),
    store.outbox.all(),
    store.signups.daily(chartSince(today)),
  ]);
  const dead = outbox.filter((item) => item.state === 'dead').length;
  return (
    '<h1>Dashboard</h1><div class="console-grid">' +
    figures('Signups', [...SIGNUP_STATES.map((state): [string, number] => [state, stats[state]]), ['total', stats.total]]) +
    figures('Mail', [
      ['queued', mail.queued],
      ['failed', mail.failed],
      ['dead', mail.dead],
    ]) +
    figures('Outbox', [
      ['queued', outbox.length - dead],
      ['dead', dead],
    ]) +
    `</div>${chart(lastDays(daily, today))}`
  );
}
