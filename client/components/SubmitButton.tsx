// The submit button; while submitting it shows a spinner, is disabled and aria-busy
// (docs/product.md §4).
import type { ReactNode } from 'react';

export function SubmitButton({ busy = false, children }: { busy?: boolean; children: ReactNode }) {
  return (
    <button
      type="submit"
      className="button button-primary submit-button"
      disabled={busy}
      aria-busy={busy}
    >
      {busy ? <span className="spinner" aria-hidden="true" /> : null}
      <span>{children}</span>
    </button>
  );
}
