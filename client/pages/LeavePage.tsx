// '/leave'. With ?token=… it is the link every mail carries (also the mail's
// List-Unsubscribe URL, RFC 8058): what leaving erases, and one button. Without a token it asks for
// such a link by address, and answers the same whether or not the address is on the waitlist.
// A lazy chunk, glued to its route by address-route.tsx (client/routes.tsx says why).
import {
  LEAVE_PATH,
  ONE_CLICK_FIELD,
  ONE_CLICK_VALUE,
  TOKEN_PARAM,
  type LeaveLinkRequest,
  type LinkCheck,
  type LinkUse,
} from '../../shared/address-links';
import type { LeaveMessages } from '../../shared/messages/types';
// The build's language's messages (package.json "imports"), in this chunk; the server hands the
// page its request's language's instead (address-route.tsx).
import messages from '#messages/leave';
import { AddressCard, Heading, LinkRefused, linkAnswer } from './address-link';
import type { AddressPage, AddressViewProps } from './address-route';
import { EmailField, refusalText } from './email-field';

export { messages };

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

export function View({ loaded, acted, m, base }: AddressViewProps<Loaded, Acted, LeaveMessages>) {
  return (
    <AddressCard title={m.title_}>
      {/* The loader and the action read one query: `acted` is of the same kind as `loaded`. */}
      {loaded.token === null ? (
        <AskForLink answer={acted as LeaveLinkRequest | undefined} m={m} base={base} />
      ) : (
        <LeaveByLink
          token={loaded.token}
          check={loaded.check}
          used={acted as LinkUse | undefined}
          m={m}
          base={base}
        />
      )}
    </AddressCard>
  );
}

/** The language's messages and path prefix, which every state needs. */
interface InLanguage {
  m: LeaveMessages;
  base: string;
}

function LeaveByLink({
  token,
  check,
  used,
  m,
  base,
}: { token: string; check: LinkCheck; used?: LinkUse } & InLanguage) {
  const outcome = used ?? check;
  if (!outcome.ok) return <LinkRefused refusal={outcome.refusal} m={m} base={base} />;
  if (used) {
    return (
      <>
        <Heading>{m.leftHeading_}</Heading>
        <p>{m.left_}</p>
      </>
    );
  }
  const action = `${base}${LEAVE_PATH}?${new URLSearchParams({ [TOKEN_PARAM]: token })}`;
  return (
    <>
      <Heading>{m.heading_}</Heading>
      <p>{m.erases_}</p>
      <ul>
        <li>{m.erasesAddress_}</li>
        <li>{m.erasesPlace_}</li>
        <li>{m.erasesKey_}</li>
        <li>{m.erasesMail_}</li>
      </ul>
      {check.ok && check.subscriptionActive ? (
        <p>
          <strong>{m.subscriptionEnds_}</strong>
        </p>
      ) : null}
      <form method="post" action={action}>
        <input type="hidden" name={TOKEN_PARAM} value={token} />
        <input type="hidden" name={ONE_CLICK_FIELD} value={ONE_CLICK_VALUE} />
        <button type="submit" className="button button-primary submit-button">
          {m.button_}
        </button>
      </form>
    </>
  );
}

function AskForLink({ answer, m, base }: { answer?: LeaveLinkRequest } & InLanguage) {
  if (answer?.ok) {
    return (
      <>
        <Heading>{m.sentHeading_}</Heading>
        <p>{m.sent_}</p>
      </>
    );
  }
  return (
    <>
      <Heading>{m.askHeading_}</Heading>
      <p>{m.ask_}</p>
      <form method="post" action={`${base}${LEAVE_PATH}`}>
        <EmailField
          id="leave-email"
          label={m.emailLabel_}
          error={refusalText(answer, m)}
          typed={answer?.email}
        />
        <button type="submit" className="button button-primary submit-button">
          {m.send_}
        </button>
      </form>
    </>
  );
}
