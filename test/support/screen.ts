// What page tests look for on the screen, found as a reader finds it: by role and name.
import { screen } from '@testing-library/react';

/** The link of this accessible name. */
export const link = (name: string | RegExp) => screen.getByRole('link', { name });

/** The page's own heading (level 1) with this text. */
export const pageHeading = (name: string | RegExp) =>
  screen.getByRole('heading', { level: 1, name });
