// What the two address pages share: the card they sit in, and a link that does nothing
// saying why, with its status. Part of their lazy chunks, so it imports nothing of the first-load
// bundle (client/routes.tsx).
import type { ReactNode } from 'react';
import { REFUSAL_STATUS, type LinkPurpose, type LinkRefusal } from '../../shared/address-links';
import type { Answer } from './address-route';

/** A checked or used link's answer: 200, or its refusal's status. */
export function linkAnswer<T extends { ok: true } | { ok: false; refusal: LinkRefusal }>(
  value: T,
): Answer<T> {
  return { value, status: value.ok ? 200 : REFUSAL_STATUS[value.refusal] };
}

/** The page's card; each state's heading is its <h1 id="address-title">. */
export function AddressCard({ title, children }: { title: string; children: ReactNode }) {
  return (
    <article className="form-card address-page" aria-labelledby="address-title">
      <title>{`${title} · OrgNote`}</title>
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

const INCOMPLETE =
  'This link is incomplete. Copy the whole link from the mail into your browser’s address bar.';

const REASONS: Record<LinkPurpose, Record<LinkRefusal, string>> = {
  confirm: {
    malformed: INCOMPLETE,
    invalid: 'This link is not valid.',
    expired: 'This link has expired. Join the waitlist again, and we will send you a new one.',
    spent: 'This link has been used already: your address is confirmed.',
  },
  leave: {
    malformed: INCOMPLETE,
    invalid:
      'This link is not valid. If you followed a link from our mail, you may have left the ' +
      'waitlist already.',
    expired: 'This link has expired. Ask for a new one, and we will mail it to you.',
    spent: 'This link has been used already: the address has left the waitlist.',
  },
};

export function LinkRefused({ purpose, refusal }: { purpose: LinkPurpose; refusal: LinkRefusal }) {
  return (
    <>
      <Heading>This link does not work</Heading>
      <p>{REASONS[purpose][refusal]}</p>
      {purpose === 'leave' ? (
        <p>
          <a href="/leave">Ask for a new link to leave</a>
        </p>
      ) : null}
      <p>
        <a href="/">Back to the waitlist</a>
      </p>
    </>
  );
}
