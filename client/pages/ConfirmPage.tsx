// '/confirm?token=…': the link in the confirmation mail (double opt-in). The GET only
// shows a button, so a mail scanner following the link confirms nothing; the button's POST does.
// A lazy chunk, glued to its route by address-route.tsx (client/routes.tsx says why).
import {
  CONFIRM_PATH,
  TOKEN_PARAM,
  type LinkCheck,
  type LinkUse,
} from '../../shared/address-links';
import type { ConfirmMessages } from '../../shared/messages/types';
// The build's language's messages (package.json "imports"), in this chunk; the server hands the
// page its request's language's instead (address-route.tsx).
import messages from '#messages/confirm';
import { AddressCard, Heading, LinkRefused, linkAnswer } from './address-link';
import type { AddressPage, AddressViewProps } from './address-route';

export { messages };

interface Loaded {
  token: string;
  check: LinkCheck;
}

export const load: AddressPage<Loaded, LinkUse>['load'] = async (server, url) => {
  const { value, status } = linkAnswer(await server.checkLink('confirm'));
  return { value: { token: url.searchParams.get(TOKEN_PARAM) ?? '', check: value }, status };
};

export const act: AddressPage<Loaded, LinkUse>['act'] = async (server, _url, form) => {
  return linkAnswer(await server.confirm(form));
};

export function View({
  loaded,
  acted,
  m,
  base,
}: AddressViewProps<Loaded, LinkUse, ConfirmMessages>) {
  const outcome = acted ?? loaded.check;
  return (
    <AddressCard title={m.title_}>
      {!outcome.ok ? (
        <LinkRefused refusal={outcome.refusal} m={m} base={base} />
      ) : acted ? (
        <>
          <Heading>{m.confirmedHeading_}</Heading>
          <p>{m.confirmed_}</p>
        </>
      ) : (
        <>
          <Heading>{m.heading_}</Heading>
          <p>{m.ask_}</p>
          <form method="post" action={`${base}${CONFIRM_PATH}`}>
            <input type="hidden" name={TOKEN_PARAM} value={loaded.token} />
            <button type="submit" className="button button-primary submit-button">
              {m.button_}
            </button>
          </form>
        </>
      )}
    </AddressCard>
  );
}
