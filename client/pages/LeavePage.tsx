// '/leave'. With ?token=… it is the link every mail carries (also the mail's
// List-Unsubscribe URL, RFC 8058): what leaving erases, and one button. Without a token it asks for
// such a link by address, and answers the same whether or not the address is on the waitlist.
// A lazy chunk, glued to its route by address-route.tsx (client/routes.tsx says why).
import {
  LEAVE_EMAIL_FIELD,
  LEAVE_PATH,
  ONE_CLICK_FIELD,
  ONE_CLICK_VALUE,
  TOKEN_PARAM,
  type LeaveLinkRequest,
  type LinkCheck,
  type LinkUse,
} from '../../shared/address-links';
import { AddressCard, Heading, LinkRefused, linkAnswer } from './address-link';
import type { AddressPage } from './address-route';

/** A token in the query: a leave link (checked, then used); none: a request for one. */
type Loaded = { token: string; check: LinkCheck } | { token: null };
type Acted = LinkUse | LeaveLinkRequest;

/**
 * The query, not the body (which the server has read), tells a leave from a request for a link: the
 * leave button posts to /leave?token=…, as a mail provider's one-click POST does.
 */
const tokenOf = (url: URL) => url.searchParams.get(TOKEN_PARAM);

export const load: AddressPage<Loaded, Acted>['load'] = async (server, url) => {
  const token = tokenOf(url);
  if (token === null) return { value: { token }, status: 200 };
  const { value, status } = linkAnswer(await server.checkLink('leave'));
  return { value: { token, check: value }, status };
};

export const act: AddressPage<Loaded, Acted>['act'] = async (server, url, form) => {
  if (tokenOf(url) !== null) return linkAnswer(await server.leave(form));
  const asked = await server.requestLeaveLink(form);
  return { value: asked, status: asked.ok ? 200 : asked.status };
};

export function View({ loaded, acted }: { loaded: Loaded; acted?: Acted }) {
  return (
    <AddressCard title="Leave the waitlist">
      {/* The loader and the action read one query: `acted` is of the same kind as `loaded`. */}
      {loaded.token === null ? (
        <AskForLink answer={acted as LeaveLinkRequest | undefined} />
      ) : (
        <LeaveByLink
          token={loaded.token}
          check={loaded.check}
          used={acted as LinkUse | undefined}
        />
      )}
    </AddressCard>
  );
}

function LeaveByLink({ token, check, used }: { token: string; check: LinkCheck; used?: LinkUse }) {
  const outcome = used ?? check;
  if (!outcome.ok) return <LinkRefused purpose="leave" refusal={outcome.refusal} />;
  if (used) {
    return (
      <>
        <Heading>You have left the waitlist</Heading>
        <p>Everything we kept about your address is erased. You are welcome back at any time.</p>
      </>
    );
  }
  return (
    <>
      <Heading>Leave the waitlist</Heading>
      <p>Leaving erases:</p>
      <ul>
        <li>your address and what you wrote about yourself;</li>
        <li>your place on the waitlist;</li>
        <li>any activation key we sent you;</li>
        <li>mail still waiting to be sent to you.</li>
      </ul>
      {check.ok && check.subscriptionActive ? (
        <p>
          <strong>Your free subscription is active: leaving ends it.</strong>
        </p>
      ) : null}
      <form method="post" action={`${LEAVE_PATH}?${new URLSearchParams({ [TOKEN_PARAM]: token })}`}>
        <input type="hidden" name={TOKEN_PARAM} value={token} />
        <input type="hidden" name={ONE_CLICK_FIELD} value={ONE_CLICK_VALUE} />
        <button type="submit" className="button button-primary submit-button">
          Leave the waitlist
        </button>
      </form>
    </>
  );
}

/**
 * The field is TextField's markup (label, aria-invalid, aria-describedby, an alert), written out:
 * importing TextField would pull React into a shared first-load chunk (client/routes.tsx).
 */
function AskForLink({ answer }: { answer?: LeaveLinkRequest }) {
  if (answer?.ok) {
    return (
      <>
        <Heading>Check your inbox</Heading>
        <p>If this address is on the waitlist, we have sent it a link. Open it to leave.</p>
      </>
    );
  }
  const error = answer?.error;
  return (
    <>
      <Heading>Leave the waitlist</Heading>
      <p>Enter the address you joined with, and we will mail it a link to leave.</p>
      <form method="post" action={LEAVE_PATH}>
        <div className="field">
          <label className="field-label" htmlFor="leave-email">
            Email address
          </label>
          <input
            id="leave-email"
            className={`field-input${error ? ' field-input-error' : ''}`}
            name={LEAVE_EMAIL_FIELD}
            type="email"
            autoComplete="email"
            required
            defaultValue={answer?.email}
            aria-invalid={error ? true : undefined}
            aria-describedby={error ? 'leave-email-message' : undefined}
          />
          {error ? (
            <p id="leave-email-message" className="field-message" role="alert">
              {error}
            </p>
          ) : null}
        </div>
        <button type="submit" className="button button-primary submit-button">
          Send me a link
        </button>
      </form>
    </>
  );
}
