// What the server hands the routes' loaders and actions for one request: the operations they call,
// in React Router's typed context. The browser sets none, so each reads as null there.
import { createContext } from 'react-router';
import type { AddressPagesContext } from '../shared/address-links';
import type { SubmitWaitlistForm } from '../shared/native-form';
import type { SignupSource } from '../shared/sources';

/** The native waitlist form's operation (server/pages/native-form.ts). */
export const waitlistFormContext = createContext<SubmitWaitlistForm | null>(null);

/** With PROOF_OF_WORK on: a new issue time for the plain form (server/guard/issued-field.ts). */
export const issuedFieldContext = createContext<(() => Promise<string>) | null>(null);

/**
 * Where the visitor of a page for one request came from (server/pages/page-source.ts): the root
 * route's loader hands it to the page (client/landing-source.ts).
 */
export const pageSourceContext = createContext<SignupSource | null>(null);

/** The address pages' operations (server/pages/address-pages.ts). */
export const addressPagesContext = createContext<AddressPagesContext | null>(null);
