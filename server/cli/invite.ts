// The CLI's command for the invite operation (waitlist/invite.ts): argv to its input, then one line
// per address as each outcome is known, a tally, and where the mail went.
import {
  invite,
  type DryRunOutcome,
  type InviteOutcome,
  type InviteResult,
} from '../waitlist/invite';
import {
  CommandError,
  UsageError,
  type CliContext,
  type CliIo,
  type Status,
} from './command-table';

/** What each outcome prints, padded so the addresses line up. */
const OUTCOME_LABELS: Record<InviteOutcome | DryRunOutcome, string> = {
  sent: 'sent',
  queued: 'queued',
  failed: 'failed',
  skipped: 'skipped',
  unconfirmed: 'unconfirmed',
  'not-on-waitlist': 'not on the waitlist',
  unmailable: 'cannot be mailed',
  'would-invite': 'would invite',
};

const LABEL_WIDTH = Math.max(...Object.values(OUTCOME_LABELS).map((label) => label.length));

const REFUSALS: Record<Extract<InviteResult, { kind: 'refused' }>['reason'], string> = {
  'backend-owns-signups':
    'BACKEND_URL is set: signups live in the backend, so invitations belong there too. ' +
    'Invite from the embedded store (no BACKEND_URL).',
  'no-site-url':
    'invite needs SITE_URL, the public address of this site, for the activation link in the mail.',
};

/** The order the tally is printed in. */
const TALLY: InviteOutcome[] = [
  'sent',
  'queued',
  'failed',
  'skipped',
  'unconfirmed',
  'not-on-waitlist',
  'unmailable',
];

function countOf(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw new UsageError(`--next: not a positive whole number: ${value}`);
  }
  return Number(value);
}

export interface InviteOptions {
  next?: string;
  again?: boolean;
  'dry-run'?: boolean;
}

export async function inviteCommand(
  { store, config }: CliContext,
  addresses: string[],
  options: InviteOptions,
  io: CliIo,
): Promise<Status> {
  const next = countOf(options.next);
  if (next !== undefined && addresses.length > 0)
    throw new UsageError('invite takes addresses or --next N, not both');
  if (next === undefined && addresses.length === 0)
    throw new UsageError('invite needs addresses or --next N');

  const result = await invite(
    { store, config },
    {
      targets: next === undefined ? { addresses } : { next },
      again: options.again === true,
      dryRun: options['dry-run'] === true,
      onEach: (email, outcome) =>
        void io.out(`${OUTCOME_LABELS[outcome].padEnd(LABEL_WIDTH)}  ${email}\n`),
    },
  );
  switch (result.kind) {
    case 'refused':
      throw new CommandError(REFUSALS[result.reason]);
    case 'dry-run':
      await io.out(
        `${result.counts['would-invite']} would be invited (dry run: nothing changed)\n`,
      );
      return result.counts['not-on-waitlist'] || result.counts.unmailable ? 1 : 0;
    case 'done': {
      const { counts, mail } = result;
      await io.out(
        `${TALLY.map((outcome) => `${counts[outcome]} ${OUTCOME_LABELS[outcome]}`).join(', ')}\n`,
      );
      await io.out(
        mail.smtp
          ? `Mail goes through ${mail.where}.\n`
          : `No SMTP_URL set: mail written as .eml files to ${mail.where}\n`,
      );
      if (counts.queued)
        await io.out('Queued mail is retried by the running site (see: waitlist mail).\n');
      return counts['not-on-waitlist'] || counts.failed || counts.unmailable ? 1 : 0;
    }
  }
}
