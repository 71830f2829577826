// The CLI's commands and options, one row each, in the order help lists them. Each row's handler
// only turns its arguments into an operation's input (server/waitlist/) and the outcome into
// lines and an exit code.
import { dnsRecords, txtData } from '../waitlist/dns';
import { issueKey } from '../waitlist/issue-key';
import { backup, migrate, restore } from '../waitlist/maintenance';
import { remove } from '../waitlist/remove';
import {
  countSignups,
  countSuppressed,
  exportSignups,
  listSignups,
  SIGNUP_STATES,
  waitlistStats,
  type SignupsSince,
} from '../waitlist/listing';
import { oneLine, textTable } from './columns';
import { CommandError, UsageError, type CommandRow, type OptionRow } from './command-table';
import { ADMIN_ROWS } from './admins';
import { IMPORT_OPTIONS, IMPORT_ROWS, type ImportOptions } from './import';
import { inviteCommand } from './invite';
import { MAIL_ROWS, OUTBOX_ROWS } from './queues';
import { WEBHOOK_OPTIONS, WEBHOOK_ROWS, type WebhookOptions } from './webhooks';

export const OPTIONS = {
  since: {
    type: 'string',
    value: 'DATE',
    help:
      'only what was created at or after DATE (e.g. 2026-11-01): signups, or webhook ' +
      'deliveries',
    check: sinceOf,
  },
  next: {
    type: 'string',
    value: 'N',
    help: 'invite: the N oldest waitlisted addresses not invited yet',
  },
  again: {
    type: 'boolean',
    help: 'invite: also addresses already invited (a new key; the old one stops working)',
  },
  'dry-run': {
    type: 'boolean',
    help: 'invite: list who would be invited; import: report what it would do; change nothing',
  },
  verify: {
    type: 'boolean',
    help: "audit: check the audit log's hash chain instead of listing it",
  },
  ...IMPORT_OPTIONS,
  ...WEBHOOK_OPTIONS,
  help: { type: 'boolean', short: 'h', help: 'show this help' },
  version: { type: 'boolean', help: 'print the version and the commit it was built from' },
} as const satisfies Record<string, OptionRow>;

/** The options as parseArgs hands them over. */
export interface Options extends WebhookOptions, ImportOptions {
  since?: string;
  next?: string;
  again?: boolean;
  'dry-run'?: boolean;
  verify?: boolean;
  help?: boolean;
  version?: boolean;
}

function sinceOf(value: string | undefined): SignupsSince {
  if (value === undefined) return {};
  const since = new Date(value);
  if (Number.isNaN(since.getTime())) throw new UsageError(`--since: not a date: ${value}`);
  return { since };
}

export const COMMANDS: CommandRow<Options>[] = [
  {
    name: 'list',
    help: 'signups as a table, newest first',
    async run(context, _args, options, io) {
      const rows = await listSignups(context, sinceOf(options.since));
      await io.out(
        textTable(
          [
            'created_at',
            'email',
            'state',
            'confirmed_at',
            'invited_at',
            'activated_at',
            'description',
          ],
          rows.map((r) => [
            r.created_at,
            r.email,
            r.state,
            r.confirmed_at ?? '',
            r.invited_at ?? '',
            r.activated_at ?? '',
            oneLine(r.description),
          ]),
        ),
      );
      await io.out(`${rows.length} signup(s)\n`);
      return 0;
    },
  },
  {
    name: 'count',
    help: 'number of signups',
    async run(context, _args, _options, io) {
      await io.out(`${await countSignups(context)}\n`);
      return 0;
    },
  },
  {
    name: 'suppressed count',
    help:
      'number of suppressed addresses (left, removed, expired or refused by an import), which ' +
      'an import never adds again',
    async run(context, _args, _options, io) {
      await io.out(`${await countSuppressed(context)}\n`);
      return 0;
    },
  },
  {
    name: 'stats',
    help:
      'signups by state (unconfirmed, waitlisted, invited, activated, undeliverable) and mail ' +
      'by state',
    async run(context, _args, _options, io) {
      const { signups, mail } = await waitlistStats(context);
      const states = ([...SIGNUP_STATES, 'total'] as const).map((state) => [
        state,
        String(signups[state]),
      ]);
      await io.out(textTable(['state', 'signups'], states));
      const { queued, failed, dead, sent } = mail;
      await io.out(`mail: ${queued} queued, ${failed} failed, ${dead} dead, ${sent} sent\n`);
      // Only where there is something to say: a site without confirmation has none due.
      if (mail.due > 0)
        await io.out(`confirmations owed: ${mail.due} (the running site writes and sends them)\n`);
      return 0;
    },
  },
  {
    name: 'export',
    args: '[--since DATE]',
    help:
      'CSV (RFC 4180) to stdout: ' +
      'email,description,created_at,invited_at,activated_at,confirmed_at,state',
    async run(context, _args, options, io) {
      // Each chunk waits until the pipe has taken the last: a slow reader never makes it pile up.
      for await (const chunk of exportSignups(context, sinceOf(options.since))) await io.out(chunk);
      return 0;
    },
  },
  ...IMPORT_ROWS,
  {
    name: 'invite',
    args: '<email>...',
    store: 'writes',
    help: 'e-mail an activation key to waitlisted addresses',
    also: [{ args: '--next N', help: 'the same for the N oldest addresses not invited yet' }],
    run: inviteCommand,
  },
  ...MAIL_ROWS,
  {
    name: 'remove',
    args: '<email>',
    store: 'writes',
    help: 'delete an address with its keys and mail (right to erasure)',
    needs: 'exactly one email address',
    onlyOne: true,
    async run(context, [email], _options, io) {
      const removed = await remove(context, email);
      if (removed.kind === 'nothing-stored') {
        await io.out(`Nothing stored for ${removed.email}\n`);
        return 1;
      }
      const files = removed.emlFiles ? ` and ${removed.emlFiles} .eml file(s)` : '';
      const parts = [
        removed.signup ? 'the signup' : 'no signup',
        `${removed.keys} activation key(s)`,
        `${removed.mails} mail(s)${files}`,
        `${removed.outbox} outbox item(s)`,
      ];
      await io.out(`Removed ${removed.email}: ${parts.join(', ')}\n`);
      return 0;
    },
  },
  {
    name: 'issue-key',
    args: '<email>',
    store: 'writes',
    help: 'create an activation key for a waitlisted address (printed last)',
    needs: 'an email address',
    async run(context, [email], _options, io) {
      const issued = await issueKey(context, email);
      if (issued.kind === 'not-on-waitlist')
        throw new CommandError(`${issued.email} is not on the waitlist`);
      await io.out(
        `Activation key for ${issued.email} (shown once, stored only as a hash):\n${issued.key}\n`,
      );
      return 0;
    },
  },
  ...OUTBOX_ROWS,
  {
    name: 'migrate',
    help: 'apply the schema migrations of this release, without starting the site',
    store: 'writes',
    async run(context, _args, _options, io) {
      const { engine } = await migrate(context);
      const where = engine === 'postgres' ? 'PostgreSQL at DATABASE_URL' : 'SQLite in DATA_DIR';
      await io.out(`Schema up to date (${where})\n`);
      return 0;
    },
  },
  {
    name: 'backup',
    args: '<file>',
    help:
      'consistent copy of the database (SQLite online backup, mode 0600), safe while the site ' +
      'runs',
    needs: 'a destination file',
    onlyOne: true,
    // A backup is taken before an upgrade: it copies the schema it finds, never migrating it.
    store: 'copies',
    async run(context, [file], _options, io) {
      const copy = await backup(context, file);
      if (copy.kind === 'not-a-file')
        throw new CommandError(
          'backup copies the SQLite file; with DATABASE_URL, back up PostgreSQL with pg_dump -Fc ' +
            '(docs/operating.md).',
        );
      if (copy.kind === 'onto-the-database')
        throw new CommandError(`${copy.file} is the database itself: back up to another file`);
      await io.out(
        `Backed up ${copy.signups} signup(s) (schema version ${copy.schemaVersion}) ` +
          `to ${copy.file}\n`,
      );
      return 0;
    },
  },
  {
    name: 'restore',
    args: '<file>',
    help: 'replace DATA_DIR/waitlist.db with a backup; the site must be stopped (SQLite only)',
    needs: 'a backup file',
    onlyOne: true,
    // Not opened: the file is replaced, and an open connection would keep the site's lock on it.
    store: 'none',
    async run(context, [file], _options, io) {
      const restored = restore(context, file);
      switch (restored.kind) {
        case 'not-a-file':
          throw new CommandError(
            'restore replaces the SQLite file; with DATABASE_URL, restore PostgreSQL with ' +
              'pg_restore (docs/operating.md).',
          );
        case 'no-backup':
          throw new CommandError(`no backup file at ${restored.file}`);
        case 'not-a-database':
          throw new CommandError(
            `${restored.file} is not a waitlist database (${restored.reason}); nothing was changed`,
          );
        case 'in-use':
          throw new CommandError(
            `${restored.database} is open in another process: stop the site first ` +
              '(docker stop orgnote-site)',
          );
      }
      const kept = restored.replaced
        ? `; the database it replaced is kept as ${restored.replaced}`
        : '';
      await io.out(
        `Restored ${restored.signups} signup(s) (schema version ${restored.schemaVersion}) ` +
          `from ${restored.file} to ${restored.database}${kept}\n`,
      );
      return 0;
    },
  },
  {
    name: 'dns',
    help: 'the DNS records to publish: DKIM from the signing key, SPF and DMARC to adapt',
    store: 'none',
    async run(context, _args, _options, io) {
      const result = dnsRecords(context);
      if (result.kind === 'no-dkim')
        throw new CommandError(
          'dns needs DKIM_PRIVATE_KEY_FILE and DKIM_SELECTOR ' +
            '(DKIM_DOMAIN defaults to the domain of MAIL_FROM).',
        );
      // Zone-file lines: a ';' comment saying what each record is for, then the record.
      await io.out(
        result.records
          .map(
            (record) =>
              `; ${record.note}\n${record.name} ${record.type} ${txtData(record.value)}\n`,
          )
          .join(''),
      );
      return 0;
    },
  },
  ...(ADMIN_ROWS as CommandRow<Options>[]),
  ...WEBHOOK_ROWS,
];
