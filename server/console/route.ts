// What a console route module (routes/*.tsx) gives the router, and what it is given. A module is
// one page, shaped as a React Router route module: its loader reads the data (the store, the
// operations), its view renders it (TSX, props in and markup out), its actions handle the page's
// POSTs. `routes(deps)` lists its routes by their names in paths.ts; the router (router.tsx) puts
// every request through the console's checks first, then calls `handle`.
import type { Request, Response } from 'express';
import type { ReactElement } from 'react';
import type { Config } from '../config';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';
import type { Store } from '../store';
import type { InviteDeps } from '../waitlist/invite';
import type { ConsoleRouteName } from './paths';

export interface ConsoleDeps {
  /**
   * What the console's operations need of the settings: the same as the CLI's invite and remove.
   */
  config: InviteDeps['config'] & Pick<Config, 'dataDir'>;
  /** The clock of the chart's days; injectable for tests. */
  now?: () => number;
  store: Store;
  logger: Logger;
  /** Counts the logins the throttle refuses; nothing is counted when not given. */
  metrics?: Pick<Metrics, 'loginThrottled'>;
  /** The site's inline stylesheet, and the page CSP that allows it (no script source). */
  css: string;
  policy: string;
}

/** A page for the operator: the router renders its view in the console's layout. */
export interface Page {
  /** The document's title, before " · OrgNote console". */
  title: string;
  view: ReactElement;
  status?: number;
}

export interface ConsoleRoute {
  method: 'get' | 'post';
  /** Its name in the path table (paths.ts). */
  name: ConsoleRouteName;
  /**
   * True for the login form, which anyone may use. Every other route is the operator's: a live
   * session, and for a POST the session's CSRF token.
   */
  open?: true;
  /**
   * A POST that uploads one file (multipart, in memory): its field and largest size, and the page
   * a larger one gets (413). Other routes take no file.
   */
  upload?: { field: string; maxBytes: number; tooLarge: Page };
  /** Answers: a page to show, or nothing when it answered itself (a redirect, a download). */
  handle(req: Request, res: Response): Page | void | Promise<Page | void>;
}

/** A route module's routes, built from the console's dependencies. */
export type RouteModule = (deps: ConsoleDeps) => ConsoleRoute[];
