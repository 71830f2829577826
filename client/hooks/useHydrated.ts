// False in the server HTML and during hydration, true from the render right after it: the way to
// mark something as script-driven without a hydration mismatch, and without setting state in an
// effect (one extra render pass, react-hooks/set-state-in-effect).
import { useSyncExternalStore } from 'react';

const subscribeToNothing = () => () => {};

export function useHydrated(): boolean {
  return useSyncExternalStore(
    subscribeToNothing,
    () => true,
    () => false,
  );
}
