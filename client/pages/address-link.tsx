// What the address pages share: the card they sit in, and a link that does nothing
// saying why, with its status. Part of their lazy chunks, so it imports nothing of the first-load
// bundle (client/routes.tsx).
import type { ReactNode } from 'react';
import { REFUSAL_STATUS, type LinkRefusal } from '../../shared/address-links';
import type { ConfirmMessages, LeaveMessages } from '../../shared/messages/types';
import type { Answer } from './address-route';

/** A checked or used link's answer: 200, or its refusal's status. */
export function linkAnswer<T extends { ok: true } | { ok: false; refusal: LinkRefusal }>(
  value: T,
): Answer<T> {
  return { value, status: value.ok ? 200 : REFUSAL_STATUS[value.refusal] };
}

/** The page's card, `title` its <title>; each state's heading is its <h1 id="address-title">. */
export function AddressCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <article className="form-card address-page" aria-labelledby="address-title">
      <title>{title}</title>
      {children}
    </article>
  );
}

export function Heading({ children }: { children: string }) {
  return (
    <h1 id="address-title" className="form-title">
      {children}
    </h1>
  );
}

/** What a refused link says: each page's part words it for its purpose. */
type RefusalMessages = Pick<
  ConfirmMessages & LeaveMessages,
  'refusedHeading_' | 'malformed_' | 'invalid_' | 'expired_' | 'spent_' | 'backToWaitlist_'
> & { askNewLink_?: string };

/**
 * `m.askNewLink_`: a leave or data link, which a new one from `askAt` (/leave by default)
 * replaces. `base`: the language's path prefix; the links are page loads, outside the router
 * (/leave is the server's alone).
 */
export function LinkRefused({
  refusal,
  m,
  base,
  askAt = '/leave',
}: {
  refusal: LinkRefusal;
  m: RefusalMessages;
  base: string;
  askAt?: string;
}) {
  // Spelled out, not m[`${refusal}_`]: the browser build renames message keys (mangleProps).
  const reasons: Record<LinkRefusal, string> = {
    malformed: m.malformed_,
    invalid: m.invalid_,
    expired: m.expired_,
    spent: m.spent_,
  };
  return (
    <>
      <Heading>{m.refusedHeading_}</Heading>
      <p>{reasons[refusal]}</p>
      {m.askNewLink_ ? (
        <p>
          <a href={`${base}${askAt}`}>{m.askNewLink_}</a>
        </p>
      ) : null}
      <p>
        <a href={`${base}/`}>{m.backToWaitlist_}</a>
      </p>
    </>
  );
}
