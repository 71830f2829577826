// Where a signup comes from (docs/decisions/0035-where-signups-come-from.md): a link's utm_source,
// utm_medium and utm_campaign, and the host of the site that linked here. A landing's query and
// Referer name them; the page carries them to the form (hidden inputs, or the script's memory),
// the signup sends them, and the embedded store keeps the first signup's, bounded here.

/**
 * The names everywhere: the landing's query parameters (which the site's own links carry from page
 * to page), the form's and the API's fields, the store's columns, the export's and the webhooks'.
 */
export const SOURCE_FIELDS = ['utm_source', 'utm_medium', 'utm_campaign', 'referrer'] as const;
export type SourceField = (typeof SOURCE_FIELDS)[number];

/** What is known of where a signup came from: any of the four, none when nothing is. */
export type SignupSource = Partial<Record<SourceField, string>>;

/** A value's bound, in characters (code points). */
export const SOURCE_MAX_LENGTH = 64;

/**
 * What a landing says of where its visitor came from, as found: the four in its query, and the
 * referring page's host when that is another site's (our own pages are no source; a Referer names
 * the page, the host is all that is kept). A Referer wins over a `referrer` the query carried.
 */
export function landingSource(
  query: URLSearchParams,
  referer: string | null | undefined,
  ownHost: string,
): SignupSource {
  const source: SignupSource = {};
  for (const field of SOURCE_FIELDS) {
    const value = query.get(field);
    if (value) source[field] = value;
  }
  try {
    const host = new URL(referer!).hostname;
    if (host && host !== ownHost) source.referrer = host;
  } catch {
    // No Referer, or not a URL: nothing to add.
  }
  return source;
}

/** Characters that print nothing: controls, format characters, lone surrogates, private use. */
const NOT_PRINTABLE = /[\p{Cc}\p{Cf}\p{Cs}\p{Co}]/gu;

/**
 * A campaign's word as kept: whitespace runs made one space, what does not print removed, cut to
 * the bound. The visitor cannot mend a link's value, so it is cleaned, never refused.
 */
function boundText(raw: string): string | undefined {
  const text = raw.replace(/\s/gu, ' ').replace(NOT_PRINTABLE, '').replace(/ {2,}/g, ' ').trim();
  return [...text].slice(0, SOURCE_MAX_LENGTH).join('').trimEnd() || undefined;
}

/**
 * A referring site as kept: the host of a URL or of a host as given, never a path or a query; one
 * longer than the bound keeps its last labels that fit (the site's own domain).
 */
function boundHost(raw: string): string | undefined {
  let host: string;
  try {
    host = new URL(raw.includes('://') ? raw : `http://${raw.trim()}`).hostname;
  } catch {
    return undefined;
  }
  while (host.length > SOURCE_MAX_LENGTH) {
    const dot = host.indexOf('.');
    if (dot < 0) return undefined;
    host = host.slice(dot + 1);
  }
  return host || undefined;
}

/**
 * A signup's source as the store keeps it, from whatever fields arrived: each a single text,
 * bounded (boundText, boundHost); anything else (a repeated field, an object) is left out, and
 * undefined when nothing is left. Never a refusal: no signup is lost over where it came from.
 */
export function boundSource(fields: Record<string, unknown>): SignupSource | undefined {
  const source: SignupSource = {};
  for (const field of SOURCE_FIELDS) {
    const raw = fields[field];
    if (typeof raw !== 'string') continue;
    const value = field === 'referrer' ? boundHost(raw) : boundText(raw);
    if (value) source[field] = value;
  }
  return Object.keys(source).length > 0 ? source : undefined;
}
