// The files `waitlist import` reads, known by their header's column names (any case): this site's
// own export (listing.ts), listmonk's subscriber export, and Mailchimp's audience export (one file
// per status). `--map COLUMN=FIELD` reads any other column as one of ours, in a known file or in
// any other, which is then read as this site's export would be. What each format's rows become,
// and what is refused: docs/operating.md, "Importing a list".
import { checkSignup } from '../../shared/form-checks';
import { LANGUAGES } from '../../shared/i18n/languages';
import type { ImportedSignup } from '../store/imports';
import { SIGNUP_STATES } from '../store/signups';
import { unguardedCell } from './csv';
import { importedDate } from './import-dates';
import { boundSource, SOURCE_FIELDS } from '../../shared/sources';

/** What a column can be read as. */
export const IMPORT_FIELDS = [
  'email',
  'description',
  'created_at',
  'confirmed_at',
  'invited_at',
  'activated_at',
  'state',
  'language',
  ...SOURCE_FIELDS,
] as const;
export type ImportField = (typeof IMPORT_FIELDS)[number];

export type ImportFormat = 'site' | 'listmonk' | 'mailchimp' | 'mapped';

/**
 * Why a row is not added and its address is suppressed instead, in the words of the suppression
 * list: listmonk's blocklist, Mailchimp's unsubscribed and cleaned (bounced) members.
 */
export type ImportRefusal = 'blocklisted' | 'unsubscribed' | 'cleaned';

/**
 * What is wrong with a row that is skipped: an address the site would not take, a date it cannot
 * read, another value out of place (a description too long, an unknown state or language), or a
 * record that is no CSV (a broken quote, not UTF-8, too long, the wrong number of fields).
 */
export type RowError = 'bad-address' | 'bad-date' | 'bad-value' | 'broken-row';

export type RowVerdict =
  | { kind: 'signup'; signup: ImportedSignup }
  | { kind: 'refused'; email: string; refusal: ImportRefusal }
  | { kind: 'error'; error: RowError };

/** How a row stands in the list it came from. */
type Standing =
  | { kind: 'in'; confirmed: boolean; undeliverable?: boolean }
  | { kind: 'refused'; refusal: ImportRefusal }
  | { kind: 'error'; error: RowError };

/** One row: a column's value by its name (lower case), and a field's by the columns it is in. */
interface Row {
  /** '' for a column the file lacks. */
  cell(column: string): string;
  /** The first of the field's columns with a value; '' when none has. */
  value(field: ImportField): string;
}

interface Format {
  name: ImportFormat;
  /** Whether a header (names in lower case) is this format's. */
  recognises(names: ReadonlySet<string>): boolean;
  /** Each field's columns, the first with a value wins. */
  columns: Partial<Record<ImportField, readonly string[]>>;
  /** How the row stands, from its values and, for Mailchimp, the file's kind. */
  standing(row: Row, file: FileTraits): Standing;
  /** Cells as they are read: this site's export guards formulas, which its import undoes. */
  unguard?: true;
}

/** What a whole file says about each of its rows (Mailchimp's file a status). */
interface FileTraits {
  names: ReadonlySet<string>;
  fileName: string;
}

/** Each field under its own name: this site's export, and a file described by --map. */
const OWN_COLUMNS: Format['columns'] = Object.fromEntries(
  IMPORT_FIELDS.map((field) => [field, [field]]),
);

/** This site's export: confirmed when it has a confirmation date; undeliverable as it says. */
function ownStanding({ value }: Row): Standing {
  const state = value('state').trim();
  if (state !== '' && !(SIGNUP_STATES as readonly string[]).includes(state))
    return { kind: 'error', error: 'bad-value' };
  return {
    kind: 'in',
    confirmed: value('confirmed_at') !== '',
    undeliverable: state === 'undeliverable',
  };
}

/**
 * The site's own export, with the columns after `language` (utm_source, utm_medium, utm_campaign,
 * referrer) when it has them: an export from before them has none.
 */
const SITE: Format = {
  name: 'site',
  recognises: (names) => names.has('email'),
  columns: OWN_COLUMNS,
  standing: ownStanding,
  unguard: true,
};

/** Statuses of listmonk's subscribers: enabled come in confirmed, disabled unconfirmed. */
const LISTMONK: Format = {
  name: 'listmonk',
  recognises: (names) => ['uuid', 'email', 'status', 'attributes'].every((n) => names.has(n)),
  columns: { email: ['email'], created_at: ['created_at'] },
  standing({ cell }) {
    switch (cell('status').trim()) {
      case 'enabled':
        return { kind: 'in', confirmed: true };
      case 'disabled':
        return { kind: 'in', confirmed: false };
      case 'blocklisted':
        return { kind: 'refused', refusal: 'blocklisted' };
      default:
        return { kind: 'error', error: 'bad-value' };
    }
  },
};

/**
 * Mailchimp exports an audience as one file a status, with the status in no column: the
 * unsubscribed file has UNSUB_TIME, the cleaned one CLEAN_TIME, and the non-subscribed one only
 * its name (nonsubscribed_members_export_….csv) tells it from the subscribed.
 */
const MAILCHIMP: Format = {
  name: 'mailchimp',
  recognises: (names) => names.has('email address'),
  columns: {
    email: ['email address'],
    created_at: ['optin_time', 'confirm_time', 'last_changed'],
    confirmed_at: ['confirm_time', 'optin_time', 'last_changed'],
  },
  standing(_row, { names, fileName }) {
    if (names.has('unsub_time')) return { kind: 'refused', refusal: 'unsubscribed' };
    if (names.has('clean_time')) return { kind: 'refused', refusal: 'cleaned' };
    const nonSubscribed = /^non-?subscribed/i.test(fileName);
    return { kind: 'in', confirmed: !nonSubscribed };
  },
};

/** Any other file: --map says which column is which field, read as this site's export is. */
const MAPPED: Format = {
  name: 'mapped',
  recognises: () => true,
  columns: OWN_COLUMNS,
  standing: ownStanding,
};

/** In the order they are tried: listmonk's columns include this site's `email`. */
const FORMATS: readonly Format[] = [LISTMONK, MAILCHIMP, SITE, MAPPED];

export interface ReadOptions {
  /** The file's name as given (Mailchimp's non-subscribed file is known by it). */
  fileName: string;
  /** Columns (any case) to read as a field, over the format's own. */
  map: Readonly<Record<string, ImportField>>;
  /** Every row comes in unconfirmed, whatever the file says. */
  unconfirmed: boolean;
  /** The import's time: the join date of a row that has none. */
  now: string;
}

/** How the rows of one file are read, once its header is known. */
export interface RowReader {
  format: ImportFormat;
  /** How many fields each record has. */
  columns: number;
  read(fields: readonly string[]): RowVerdict;
}

/** Why a header is none this import reads: one line for the operator. */
export type HeaderProblem =
  { kind: 'no-address-column' } | { kind: 'mapped-column-missing'; column: string };

const normalised = (name: string) => name.trim().toLowerCase();

/** The reader of a file whose header is `header`, or why it has none. */
export function rowReader(
  header: readonly string[],
  options: ReadOptions,
): RowReader | HeaderProblem {
  const names = header.map(normalised);
  const present = new Set(names);
  const mapped = Object.entries(options.map).map(([column, field]) => ({
    column: normalised(column),
    field,
  }));
  const missing = mapped.find(({ column }) => !present.has(column));
  if (missing) return { kind: 'mapped-column-missing', column: missing.column };
  const format = FORMATS.find((f) => f.recognises(present))!;
  const columns: Partial<Record<ImportField, readonly string[]>> =
    format === MAPPED ? {} : { ...format.columns };
  for (const { column, field } of mapped) columns[field] = [column];
  if (!columns.email?.some((column) => present.has(column))) return { kind: 'no-address-column' };

  // A name a file repeats (Mailchimp's exports have) is read from its first column.
  const index = new Map<string, number>();
  for (const [i, name] of names.entries()) if (!index.has(name)) index.set(name, i);
  const traits: FileTraits = { names: present, fileName: options.fileName };
  return {
    format: format.name,
    columns: header.length,
    read(fields) {
      if (fields.length !== header.length) return { kind: 'error', error: 'broken-row' };
      const cell = (column: string) => {
        const at = index.get(column);
        const raw = at === undefined ? '' : fields[at];
        return format.unguard ? unguardedCell(raw) : raw;
      };
      const value = (field: ImportField) =>
        (columns[field] ?? []).map(cell).find((text) => text.trim() !== '') ?? '';
      return verdict(value, format.standing({ cell, value }, traits), options);
    },
  };
}

/** One row's verdict, from its fields and how it stands. */
function verdict(
  value: Row['value'],
  standing: Standing,
  { unconfirmed, now }: ReadOptions,
): RowVerdict {
  const checked = checkSignup(
    { email: value('email'), description: value('description'), language: value('language') },
    { languages: LANGUAGES },
  );
  if (!checked.ok)
    return { kind: 'error', error: checked.field === 'email' ? 'bad-address' : 'bad-value' };
  const { email, description, language = 'en' } = checked.value;
  // Bounded as a signup's are; a value the file cannot give is left out, never a refusal.
  const source = boundSource(Object.fromEntries(SOURCE_FIELDS.map((f) => [f, value(f)])));
  if (standing.kind === 'error') return standing;
  if (standing.kind === 'refused') return { kind: 'refused', email, refusal: standing.refusal };

  const dates = (['created_at', 'confirmed_at', 'invited_at', 'activated_at'] as const).map(
    (field) => {
      const text = value(field);
      return text === '' ? null : importedDate(text);
    },
  );
  if (dates.includes(undefined)) return { kind: 'error', error: 'bad-date' };
  const [createdAt, confirmedAt, invitedAt, activatedAt] = dates as (string | null)[];
  const joined = createdAt ?? now;
  const confirmed = standing.confirmed && !unconfirmed;
  return {
    kind: 'signup',
    signup: {
      email,
      description,
      language,
      ...(source && { source }),
      createdAt: joined,
      confirmedAt: confirmed ? (confirmedAt ?? joined) : null,
      invitedAt,
      activatedAt,
      undeliverable: standing.undeliverable === true,
    },
  };
}
