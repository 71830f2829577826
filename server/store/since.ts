// `since` (list, export --since) as the stored form of a time: ISO 8601 in UTC with milliseconds,
// so any ISO spelling ('…T00:00:00Z', '…+01:00') compares as the instant it names, in both engines,
// which keep times as that text. Something that is no time at all is left as it is (a prefix).
export function sinceInstant(since: string): string {
  const time = Date.parse(since);
  return since === '' || Number.isNaN(time) ? since : new Date(time).toISOString();
}
