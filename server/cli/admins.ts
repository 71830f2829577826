// `waitlist admin …`: the console's accounts from the CLI. A password is read from
// stdin when it is not a terminal (`printf '%s' "$PW" | waitlist admin add ops@example.org`), and
// asked for without echo otherwise; it never appears in argv, where `ps` would show it.
import QRCode from 'qrcode';
import {
  addAdmin,
  changePassword,
  enrolTotp,
  listAdmins,
  removeAdmin,
  unlockAdmin,
  type PasswordRefusal,
} from '../console/accounts';
import { CONSOLE_MOUNT } from '../console/paths';
import { textTable } from './columns';
import { REMEMBERED_MS } from '../store/login-throttle';
import type { AuditVerdict } from '../store/audit-log';
import {
  CommandError,
  type CliContext,
  type CliIo,
  type CommandRow,
  type Status,
} from './command-table';

function refusalText(refused: PasswordRefusal, email: string): string {
  return refused.kind === 'too-short'
    ? `the password must have at least ${refused.min} characters`
    : `not an email address: ${email}`;
}

async function password(io: CliIo): Promise<string> {
  if (!io.readSecret) throw new CommandError('no way to read a password here');
  return io.readSecret('Password: ');
}

/** The rows that change one account, named by its address. */
const ONE_ACCOUNT = {
  store: 'writes',
  args: '<email>',
  needs: 'exactly one email address',
  onlyOne: true,
} as const;

export const ADMIN_ROWS: CommandRow<{ verify?: boolean }>[] = [
  {
    name: 'audit',
    help:
      "the console's audit log, newest first: time, account, action, addresses touched, " +
      'client (the last 100)',
    also: [
      {
        args: '--verify',
        help: "walk the audit log's hash chain; exit 1 naming the first entry changed or missing",
      },
    ],
    async run(context, _args, options, io) {
      if (options.verify) return verifyAudit(context, io);
      const entries = await context.store.audit.list({ limit: 100 });
      await io.out(
        textTable(
          ['at', 'account', 'action', 'addresses', 'client'],
          entries.map((e) => [e.at, e.account, e.action, String(e.addresses), e.client ?? '-']),
        ),
      );
      return 0;
    },
  },
  {
    name: 'admin add',
    ...ONE_ACCOUNT,
    help: 'a console account; the password from stdin, or asked for (at least 12 characters)',
    async run(context, [address], _options, io) {
      const added = await addAdmin(context, address, await password(io));
      if (added.kind === 'exists')
        throw new CommandError(
          `${address.trim()} has an account already (admin password changes its password)`,
        );
      if (added.kind !== 'added') throw new CommandError(refusalText(added, address));
      await io.out(`Added ${address.trim()}: the console is at ${CONSOLE_MOUNT}.\n`);
      return 0;
    },
  },
  {
    name: 'admin list',
    help: 'the console accounts, and which use two-factor authentication',
    async run(context, _args, _options, io) {
      const accounts = await listAdmins(context);
      await io.out(
        textTable(
          ['email', 'created_at', 'two-factor'],
          accounts.map((a) => [a.email, a.createdAt, a.totp ? 'yes' : 'no']),
        ),
      );
      const off = `: the console is off (every ${CONSOLE_MOUNT} path answers 404)`;
      await io.out(`${accounts.length} account(s)${accounts.length === 0 ? off : ''}\n`);
      return 0;
    },
  },
  {
    name: 'admin remove',
    ...ONE_ACCOUNT,
    help: 'delete a console account and end its sessions',
    async run(context, [address], _options, io) {
      if ((await removeAdmin(context, address)).kind === 'unknown')
        throw new CommandError(`no account for ${address.trim()}`);
      await io.out(`Removed ${address.trim()} and ended its sessions.\n`);
      return 0;
    },
  },
  {
    name: 'admin password',
    ...ONE_ACCOUNT,
    help: "a new password for a console account (read as for add); ends the account's sessions",
    async run(context, [address], _options, io) {
      const changed = await changePassword(context, address, await password(io));
      if (changed.kind === 'unknown') throw new CommandError(`no account for ${address.trim()}`);
      if (changed.kind !== 'changed') throw new CommandError(refusalText(changed, address));
      await io.out(`New password for ${address.trim()}; its sessions have ended.\n`);
      return 0;
    },
  },
  {
    name: 'admin totp',
    ...ONE_ACCOUNT,
    help:
      'enrol two-factor authentication: prints an otpauth:// URI and its QR code; ' +
      "ends the account's sessions",
    async run(context, [address], _options, io) {
      const enrolled = await enrolTotp(context, address);
      if (enrolled.kind === 'unknown') throw new CommandError(`no account for ${address.trim()}`);
      await io.out(`${await QRCode.toString(enrolled.uri, { type: 'terminal', small: true })}\n`);
      await io.out(
        `Scan the code with an authenticator app, or enter this URI in it:\n${enrolled.uri}\n`,
      );
      await io.out(
        `From now on, logging in as ${address.trim()} needs the app's 6-digit code; ` +
          'its sessions have ended.\n',
      );
      return 0;
    },
  },
  {
    name: 'admin unlock',
    ...ONE_ACCOUNT,
    help:
      'let an account log in again from a new browser while its failed logins hold it shut ' +
      '(a browser that logged in before was never held)',
    async run(context, [address], _options, io) {
      if ((await unlockAdmin(context, address)).kind === 'unknown')
        throw new CommandError(`no account for ${address.trim()}`);
      await io.out(
        `Unlocked ${address.trim()}: a new browser may log in again ` +
          `(on every replica within ${REMEMBERED_MS / 1000} seconds).\n`,
      );
      return 0;
    },
  },
];

const BROKEN: Record<Extract<AuditVerdict, { kind: 'broken' }>['reason'], string> = {
  changed: 'it is not what was recorded (changed by hand)',
  gap: 'the entry before it is not the one it followed (an entry deleted or changed)',
};

async function verifyAudit({ store }: CliContext, io: CliIo): Promise<Status> {
  const verdict = await store.audit.verify();
  const before =
    verdict.unchained > 0
      ? `${verdict.unchained} entry(ies) from before the chain began are not covered.\n`
      : '';
  if (verdict.kind === 'intact') {
    await io.out(`${verdict.verified} entry(ies) verified: the chain is whole.\n${before}`);
    return 0;
  }
  await io.out(
    `The chain breaks at entry ${verdict.entry.id} of ${verdict.entry.at}: ` +
      `${BROKEN[verdict.reason]}.\n${verdict.verified} entry(ies) before it verified.\n${before}`,
  );
  return 1;
}
