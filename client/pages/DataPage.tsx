// '/privacy/data#<token>': the page a data link opens (decision 0036). The token is in the
// fragment, which the browser never sends, so the GET is the same page for everyone and spends
// nothing: a mail scanner following the link downloads nothing. Once hydrated, the page reads the
// fragment into its form; only the button's POST downloads the file (the server sends it, and
// this page is rendered only for a link that does nothing). Without JavaScript, the person types
// the code the mail gives below the link. A lazy chunk, glued to its route by address-route.tsx
// (client/routes.tsx says why).
import {
  DATA_PATH,
  DATA_REQUEST_SECTION,
  DATA_TOKEN_FIELD,
  PRIVACY_PATH,
} from '../../shared/data-requests';
import type { LinkRefusal } from '../../shared/address-links';
import type { DataMessages } from '../../shared/messages/types';
// The build's language's messages (package.json "imports"), in this chunk; the server hands the
// page its request's language's instead (address-route.tsx).
import messages from '#messages/data';
import { AddressCard, Heading, LinkRefused, linkAnswer } from './address-link';
import type { AddressPage, AddressViewProps } from './address-route';

export { messages };

type Refused = { ok: false; refusal: LinkRefusal };

/** The GET: nothing to look up, the token never reaches the server. */
export const load: AddressPage<null, Refused>['load'] = async () => ({ value: null, status: 200 });

/** The button's POST, when the server sent no file: why the link does nothing (4xx). */
export const act: AddressPage<null, Refused>['act'] = async (server) =>
  linkAnswer<Refused>({ ok: false, refusal: server.dataLinkRefusal() });

/**
 * Puts the link's code into the field and hides the field: the person only presses the button.
 * A ref, not an effect: the page imports nothing of React (client/routes.tsx). The fragment goes
 * from the address bar too, so the code stays out of the history the browser keeps.
 */
function fillFromLink(field: HTMLInputElement | null): void {
  if (!field || !location.hash) return;
  field.value = decodeURIComponent(location.hash.slice(1));
  field.closest('.field')?.setAttribute('hidden', '');
  history.replaceState(history.state, '', `${location.pathname}${location.search}`);
}

export function View({ acted, m, base }: AddressViewProps<null, Refused, DataMessages>) {
  return (
    <AddressCard title={m.title_}>
      {acted ? (
        <LinkRefused
          refusal={acted.refusal}
          m={m}
          base={base}
          askAt={`${PRIVACY_PATH}#${DATA_REQUEST_SECTION}`}
        />
      ) : (
        <>
          <Heading>{m.heading_}</Heading>
          <p>{m.text_}</p>
          <form method="post" action={`${base}${DATA_PATH}`}>
            <div className="field">
              <label className="field-label" htmlFor="data-code">
                {m.codeLabel_}
              </label>
              <input
                id="data-code"
                ref={fillFromLink}
                className="field-input"
                name={DATA_TOKEN_FIELD}
                required
                autoComplete="off"
                spellCheck={false}
              />
            </div>
            <button type="submit" className="button button-primary submit-button">
              {m.button_}
            </button>
          </form>
        </>
      )}
    </AddressCard>
  );
}
