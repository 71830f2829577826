// The address field of the forms that ask for a link to be mailed (/leave's, /privacy's), and
// what it says when the request was refused. TextField's markup (label, aria-invalid,
// aria-describedby, an alert) written out: importing TextField would pull React into a shared
// first-load chunk (client/routes.tsx). Part of those pages' lazy chunks.
import type { LeaveLinkRefusal, LeaveLinkRequest } from '../../shared/address-links';
import { LEAVE_EMAIL_FIELD } from '../../shared/address-links';

/** The words of a refusal, which each form's part of the catalog has. */
export type RefusalWords = Record<'required_' | 'notAnAddress_' | 'busy_' | 'unavailable_', string>;

/** What the field says under it for a refused request; nothing before one or after success. */
export function refusalText(answer: LeaveLinkRequest | undefined, m: RefusalWords) {
  if (!answer || answer.ok) return undefined;
  // Spelled out: the browser build renames message keys (mangleProps).
  const words: Record<LeaveLinkRefusal, string> = {
    required: m.required_,
    'not-an-address': m.notAnAddress_,
    busy: m.busy_,
    unavailable: m.unavailable_,
  };
  return words[answer.refusal];
}

export function EmailField({
  id,
  label,
  error,
  typed,
}: {
  id: string;
  label: string;
  error?: string;
  /** What was typed, given back with a refusal. */
  typed?: string;
}) {
  return (
    <div className="field">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <input
        id={id}
        className={`field-input${error ? ' field-input-error' : ''}`}
        name={LEAVE_EMAIL_FIELD}
        type="email"
        autoComplete="email"
        required
        defaultValue={typed}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-message` : undefined}
      />
      {error ? (
        <p id={`${id}-message`} className="field-message" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}
