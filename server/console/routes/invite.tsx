// Inviting from the console, through the same operation as `waitlist invite` (the same key, mail
// and states): one address from its row on the signups page, or "Invite the next N", which first
// shows who would be invited (the CLI's `invite --next N --dry-run`) and invites on confirmation.
import { createHash } from 'node:crypto';
import { fieldsOf } from '../../http/body';
import { invite } from '../../waitlist/invite';
import { BackToSignups, Hidden, PostForm } from '../layout';
import { CONSOLE_URLS } from '../paths';
import { audit, text } from '../request';
import type { ConsoleDeps, Page, RouteModule } from '../route';

/** The most "Invite the next N" takes at once from the console (the CLI takes any number). */
export const NEXT_MAX = 1_000;

/** Why the console could not invite, in the CLI's message. */
const REFUSED = {
  'backend-owns-signups':
    'BACKEND_URL is set: signups live in the backend, so invitations belong there too.',
  'no-site-url':
    'Inviting needs SITE_URL, the public address of this site, for the activation link in ' +
    'the mail.',
} as const;

// Loader: who `invite --next n` would invite now, the CLI's dry run.

async function wouldInvite({ store, config }: ConsoleDeps, n: number): Promise<string[]> {
  const would: string[] = [];
  await invite(
    { store, config },
    {
      targets: { next: n },
      again: false,
      dryRun: true,
      onEach: (email, outcome) => void (outcome === 'would-invite' && would.push(email)),
    },
  );
  return would;
}

/** What the preview showed, as a form field: the confirmation invites only if it still holds. */
function previewDigest(would: string[]): string {
  return createHash('sha256').update(would.join('\n')).digest('base64url');
}

// Views

interface NextPreviewProps {
  n: number;
  would: string[];
  csrf: string;
  /** Why the preview is shown again. */
  changed?: string;
}

/** Who "Invite the next N" would invite, and the button that does it. */
export function NextPreview({ n, would, csrf, changed }: NextPreviewProps) {
  const note = changed && <p role="alert">{changed}</p>;
  if (would.length === 0)
    return (
      <>
        <h1>Nobody to invite</h1>
        {note}
        <p>No confirmed address is waiting.</p>
        <BackToSignups />
      </>
    );
  return (
    <>
      <h1>Invite these {would.length}?</h1>
      {note}
      <ol>
        {would.map((email) => (
          <li key={email}>{email}</li>
        ))}
      </ol>
      <PostForm action={CONSOLE_URLS.inviteNext} csrf={csrf}>
        <Hidden name="n" value={n} />
        <Hidden name="seen" value={previewDigest(would)} />
        <button type="submit" className="button button-primary">
          Invite {would.length}
        </button>
      </PostForm>
      <BackToSignups />
    </>
  );
}

/** What one address's invitation did, in the CLI's word for it. */
function InvitedOne({ address, outcome }: { address: string; outcome?: string }) {
  return (
    <>
      <h1>
        {address}: {outcome ?? 'nothing done'}
      </h1>
      <BackToSignups />
    </>
  );
}

type InviteCounts = { sent: number; queued: number; failed: number };

/** How many "Invite the next N" invited. */
function InvitedNext({ invited, counts }: { invited: number; counts?: InviteCounts }) {
  return (
    <>
      <h1>Invited {invited}</h1>
      <p>{counts && `${counts.sent} sent, ${counts.queued} queued, ${counts.failed} failed.`}</p>
      <BackToSignups />
    </>
  );
}

function NotInvited({ reason }: { reason: keyof typeof REFUSED }) {
  return (
    <>
      <h1>Not invited</h1>
      <p>{REFUSED[reason]}</p>
      <BackToSignups />
    </>
  );
}

function BadCount() {
  return (
    <>
      <h1>Invite the next N</h1>
      <p>N must be a whole number from 1 to {NEXT_MAX}.</p>
      <BackToSignups />
    </>
  );
}

// Routes

/** Why an invitation did not happen, in the CLI's message (409). */
const refused = (title: string, reason: keyof typeof REFUSED): Page => ({
  title,
  view: <NotInvited reason={reason} />,
  status: 409,
});
/** A count out of range (400). */
const badCount: Page = { title: 'Invite the next', view: <BadCount />, status: 400 };

/** N of "Invite the next N", when it is in range. */
const nextCount = (value: unknown) => {
  const n = Number(text(value));
  return Number.isSafeInteger(n) && n >= 1 && n <= NEXT_MAX ? n : undefined;
};

export const inviteRoutes: RouteModule = (deps) => {
  const { store, config } = deps;
  return [
    {
      method: 'post',
      name: 'invite',
      handle: async (req, res) => {
        const fields = fieldsOf(req);
        const address = text(fields.email);
        const outcomes: string[] = [];
        const result = await invite(
          { store, config },
          {
            targets: { addresses: [address] },
            again: text(fields.again) === '1',
            dryRun: false,
            onEach: (_email, outcome) => outcomes.push(outcome),
          },
        );
        if (result.kind === 'refused') return refused('Invite', result.reason);
        const invited = result.kind === 'done' ? result.counts.sent + result.counts.queued : 0;
        await audit(store, res, 'invite', invited);
        return { title: 'Invite', view: <InvitedOne address={address} outcome={outcomes[0]} /> };
      },
    },
    {
      method: 'get',
      name: 'inviteNext',
      handle: async (req, res) => {
        const n = nextCount(req.query.n);
        if (n === undefined) return badCount;
        const { csrf } = res.locals.consoleSession;
        const would = await wouldInvite(deps, n);
        return { title: 'Invite the next', view: <NextPreview n={n} would={would} csrf={csrf} /> };
      },
    },
    {
      method: 'post',
      name: 'inviteNext',
      handle: async (req, res) => {
        const fields = fieldsOf(req);
        const n = nextCount(fields.n);
        if (n === undefined) return badCount;
        // The operator approved the list the preview showed. If it is another list now (an older
        // signup confirmed, one left), nobody is invited: the new list is shown to approve instead.
        const would = await wouldInvite(deps, n);
        if (previewDigest(would) !== text(fields.seen)) {
          const changed = 'The list changed since you looked at it; nobody was invited.';
          const { csrf } = res.locals.consoleSession;
          return {
            title: 'Invite the next',
            view: <NextPreview n={n} would={would} csrf={csrf} changed={changed} />,
            status: 409,
          };
        }
        const result = await invite(
          { store, config },
          { targets: { addresses: would }, again: false, dryRun: false },
        );
        if (result.kind === 'refused') return refused('Invite the next', result.reason);
        const counts = result.kind === 'done' ? result.counts : undefined;
        const invited = counts ? counts.sent + counts.queued : 0;
        await audit(store, res, 'invite', invited);
        return {
          title: 'Invite the next',
          view: <InvitedNext invited={invited} counts={counts} />,
        };
      },
    },
  ];
};
