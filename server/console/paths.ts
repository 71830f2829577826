// The console's paths, in one table: where it is mounted on the site's port, and every page and
// form under it. The router declares its routes from `CONSOLE_PATHS`; links, form actions,
// redirects, the mount in app.ts and the CLI's words take theirs from `CONSOLE_URLS`. Moving or
// renaming a page is one line here.

/** Where the console answers on the site's own port. */
export const CONSOLE_MOUNT = '/admin';

/** Each route's path under the mount, as the router declares it. */
export const CONSOLE_PATHS = {
  dashboard: '/',
  login: '/login',
  logout: '/logout',
  signups: '/signups',
  invite: '/signups/invite',
  inviteNext: '/signups/next',
  export: '/signups/export',
  importList: '/signups/import',
  importResend: '/signups/import/resend',
  removeConfirm: '/signups/remove/confirm',
  remove: '/signups/remove',
  mail: '/mail',
  mailRetry: '/mail/retry',
  outbox: '/outbox',
  outboxRetry: '/outbox/retry',
  webhooks: '/webhooks',
  webhookReplay: '/webhooks/replay',
  webhookTest: '/webhooks/test',
  audit: '/audit',
} as const;

export type ConsoleRouteName = keyof typeof CONSOLE_PATHS;

/** A route's path as a browser asks for it: the dashboard is the mount itself, without a slash. */
const underMount = (path: string) => (path === '/' ? CONSOLE_MOUNT : `${CONSOLE_MOUNT}${path}`);

/** Each route's URL, for links, form actions and redirects. */
export const CONSOLE_URLS = Object.fromEntries(
  Object.entries(CONSOLE_PATHS).map(([name, path]) => [name, underMount(path)]),
) as Record<ConsoleRouteName, string>;
