// The 'subscribed' localStorage flag (docs/product.md §3, §4). Read through useSyncExternalStore
// with a server snapshot of "not set", so the server HTML and the first client render agree and the
// joined view appears right after hydration. Other tabs' changes arrive via the storage event.
import { useSyncExternalStore } from 'react';
import { SUBSCRIBED_STORAGE_KEY, SUBSCRIBED_STORAGE_VALUE } from '../../shared/constants';

function subscribe(onChange: () => void): () => void {
  window.addEventListener('storage', onChange);
  return () => window.removeEventListener('storage', onChange);
}

function readFlag(): boolean {
  try {
    return window.localStorage.getItem(SUBSCRIBED_STORAGE_KEY) !== null;
  } catch {
    return false; // storage blocked (privacy mode): behave as a first visit
  }
}

export function useSubscribedFlag(): boolean {
  return useSyncExternalStore(subscribe, readFlag, () => false);
}

export function setSubscribedFlag(): void {
  try {
    window.localStorage.setItem(SUBSCRIBED_STORAGE_KEY, SUBSCRIBED_STORAGE_VALUE);
  } catch {
    // storage blocked: the joined view still shows for this visit
  }
}
