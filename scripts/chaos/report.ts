// The chaos run's printout: what was done, what went unanswered, and every count the run is
// judged by, each miss named with enough to look it up in the replicas' logs.
import type { Kill } from './faults';
import type { Sent } from './load';
import type { Tally } from './accounting';

const line = (text = '') => process.stdout.write(`${text}\n`);
const counts = (map: Map<string, number>) =>
  [...map]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, n]) => `${key} ${n}`)
    .join(', ');

export function printReport(
  tally: Tally,
  kills: Kill[],
  { seconds, killTarget }: { seconds: number; killTarget: number },
): void {
  const restarts = kills.map((k) => k.restartMs).filter(Number.isFinite);
  const byReplica = new Map<string, number>();
  for (const kill of kills)
    byReplica.set(`#${kill.replica}`, (byReplica.get(`#${kill.replica}`) ?? 0) + 1);
  line();
  line(`chaos run: ${seconds} s of load, ${kills.length} kills (target ≥ ${killTarget})`);
  line(
    `  kills by replica: ${counts(byReplica)}; restart to ready: max ${Math.max(0, ...restarts)} ms`,
  );
  line('requests (status: count):');
  for (const [kind, byStatus] of tally.byKind) line(`  ${kind.padEnd(14)} ${counts(byStatus)}`);
  line(`unanswered (in flight on a killed replica, or sent to it): ${tally.unanswered}`);
  if (tally.unanswered > 0) line(`  by error: ${counts(tally.unansweredWhy)}`);
  line(`mails accepted by the sink: ${tally.mails.accepted} (${counts(tally.mails.byKind)})`);
  line(`mail still queued at the end: ${tally.stillQueued}`);
  line();
  const verdict = (name: string, value: number, detail: string[] = []) => {
    line(`${value === 0 ? 'ok  ' : 'MISS'} ${name}: ${value}`);
    for (const text of detail.slice(0, 10)) line(`       ${text}`);
    if (detail.length > 10) line(`       … and ${detail.length - 10} more`);
  };
  verdict('signups answered 2xx and lost', tally.lostSignups.length, tally.lostSignups);
  line(
    `     mails sent twice, excused (the sender was killed holding the claim): ${tally.duplicates.excused}`,
  );
  verdict(
    'mails sent twice outside that window',
    tally.duplicates.unexcused.length,
    tally.duplicates.unexcused.map(
      (m) => `${m.messageId} "${m.subject}" to ${m.to}, again from replica #${m.replica}`,
    ),
  );
  const { confirms, leaves } = tally;
  line(`     confirmations answered 2xx: ${confirms.answered2xx}, applied: ${confirms.applied}`);
  verdict(
    'confirmations answered 2xx, not applied',
    confirms.notApplied.length,
    confirms.notApplied,
  );
  verdict('confirmations applied twice', confirms.twice.length, confirms.twice);
  line(`     leaves answered 2xx: ${leaves.answered2xx}, applied: ${leaves.applied}`);
  verdict('leaves answered 2xx, not applied', leaves.notApplied.length, leaves.notApplied);
  verdict(
    '5xx other than 503 with Retry-After',
    tally.serverErrors.length,
    describe(tally.serverErrors),
  );
  verdict('other unexpected answers', tally.unexpected.length, describe(tally.unexpected));
  verdict(
    'mails the store marked sent that the sink never accepted',
    tally.sentNeverReceived.length,
    tally.sentNeverReceived,
  );
  line();
}

function describe(sent: Sent[]): string[] {
  return sent.map((s) => {
    const status = s.outcome.answered ? s.outcome.status : 'none';
    const why = s.wrong ? ` (${s.wrong})` : '';
    return `${s.kind} on replica #${s.replica}: ${status}${why}, expected ${s.expected.join(' or ')}`;
  });
}
