// The page's query (?email=, ?joined), read-only. React Router's useSearchParams reads it the same
// way but brings a setter and a long warning into the first-load bundle: about 300 bytes gzip that
// paid for the address pages' routes (budget in scripts/weights.ts).
import { useMemo } from 'react';
import { useLocation } from 'react-router';

export function useQueryParams(): URLSearchParams {
  const { search } = useLocation();
  return useMemo(() => new URLSearchParams(search), [search]);
}
