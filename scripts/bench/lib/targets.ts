// The bench's targets as data: each one what was measured, its figure (a ratio is the median of
// its per-round ratios), the bound and whether it was met, so the bench prints them as one table
// and its exit code says whether all were met.
import { median } from './stats';

export interface Check {
  what: string;
  value: number;
  unit: string;
  /** '≥' or '≤' the bound. */
  bound: string;
  met: boolean;
  /** A ratio's per-round values, of which `value` is the median. */
  rounds?: number[];
}

export function atLeast(what: string, value: number, min: number, unit = ''): Check {
  return { what, value, unit, bound: `≥ ${min}${unit}`, met: value >= min };
}

export function atMost(what: string, value: number, max: number, unit = ''): Check {
  return { what, value, unit, bound: `≤ ${max}${unit}`, met: value <= max };
}

/** A ratio of two cases measured in the same rounds: the median of the per-round ratios. */
export function ratio(what: string, rounds: number[], bound: { min?: number; max?: number }) {
  const value = median(rounds);
  const check =
    bound.min !== undefined
      ? atLeast(what, value, bound.min, '×')
      : atMost(what, value, bound.max!, '×');
  return { ...check, rounds };
}

const figure = (n: number) => (Number.isInteger(n) ? String(n) : n.toFixed(2));

/** The checks as printed rows. */
export const checkRows = (checks: Check[]) =>
  checks.map(({ what, value, unit, bound, met, rounds }) => ({
    target: what,
    value: `${figure(value)}${unit}`,
    bound,
    met: met ? 'yes' : 'NO',
    rounds: rounds?.map(figure).join(', ') ?? '',
  }));
