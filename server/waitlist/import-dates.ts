// The dates an imported file may hold, to the ISO form the store keeps (toISOString()): this
// site's own (2026-03-01T09:30:00.000Z), ISO 8601 with an offset or none, Mailchimp's
// (2019-05-13 18:52:46, UTC), listmonk's, which is Go's time.Time.String()
// (2024-01-15 16:00:00.123456 +0530 IST), and a bare day (midnight UTC). A time without an offset
// is UTC. A date the calendar lacks (2025-02-30), or before 1970, is no date.

const DATE = new RegExp(
  [
    /^(\d{4})-(\d{2})-(\d{2})/.source,
    /(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?)?/.source,
    // The offset: Z, +05, +0530 or +05:30, right after the time or after a space (Go).
    / ?(Z|[+-]\d{2}(?::?\d{2})?)?/.source,
    // Go's zone name after the offset ("IST", "UTC", or the offset again when it has none).
    /(?: (?:[A-Za-z]{1,6}|[+-]\d{2,4}))?$/.source,
  ].join(''),
);

const MINUTE_MS = 60_000;

function offsetMinutes(offset: string | undefined): number | undefined {
  if (offset === undefined || offset === 'Z') return 0;
  const digits = offset.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = digits.length > 2 ? Number(digits.slice(2)) : 0;
  if (hours > 23 || minutes > 59) return undefined;
  return (offset.startsWith('-') ? -1 : 1) * (hours * 60 + minutes);
}

/** The date as the store keeps it, or undefined when it is none this import reads. */
export function importedDate(text: string): string | undefined {
  const match = DATE.exec(text.trim());
  if (!match) return undefined;
  const [, year, month, day, hour = '0', minute = '0', second = '0', fraction = '0', offset] =
    match;
  const offsetMin = offsetMinutes(offset);
  if (offsetMin === undefined) return undefined;
  const parts = [year, month, day, hour, minute, second].map(Number);
  const [y, mo, d, h, mi, s] = parts;
  // Before 1970 no waitlist kept anyone (and Date.UTC reads years below 100 as 19xx).
  if (y < 1970 || mo < 1 || mo > 12 || d < 1 || h > 23 || mi > 59 || s > 59) return undefined;
  const local = Date.UTC(y, mo - 1, d, h, mi, s, Number(fraction.padEnd(3, '0').slice(0, 3)));
  // Date.UTC rolls 30 February over into March: such a day is not in the calendar.
  if (new Date(local).getUTCDate() !== d) return undefined;
  const time = new Date(local - offsetMin * MINUTE_MS);
  return Number.isNaN(time.getTime()) ? undefined : time.toISOString();
}
