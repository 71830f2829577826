// '/confirm?token=…': the link in the confirmation mail (double opt-in). The GET only
// shows a button, so a mail scanner following the link confirms nothing; the button's POST does.
// A lazy chunk, glued to its route by address-route.tsx (client/routes.tsx says why).
import {
  CONFIRM_PATH,
  TOKEN_PARAM,
  type LinkCheck,
  type LinkUse,
} from '../../shared/address-links';
import { AddressCard, Heading, LinkRefused, linkAnswer } from './address-link';
import type { AddressPage } from './address-route';

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

export function View({ loaded, acted }: { loaded: Loaded; acted?: LinkUse }) {
  const outcome = acted ?? loaded.check;
  return (
    <AddressCard title="Confirm your address">
      {!outcome.ok ? (
        <LinkRefused purpose="confirm" refusal={outcome.refusal} />
      ) : acted ? (
        <>
          <Heading>Your address is confirmed</Heading>
          <p>Thank you. We will write to you when your invitation is ready.</p>
        </>
      ) : (
        <>
          <Heading>Confirm your address</Heading>
          <p>
            Press the button to confirm that this address is yours; the invitation will go to it.
          </p>
          <form method="post" action={CONFIRM_PATH}>
            <input type="hidden" name={TOKEN_PARAM} value={loaded.token} />
            <button type="submit" className="button button-primary submit-button">
              Confirm my address
            </button>
          </form>
        </>
      )}
    </AddressCard>
  );
}
