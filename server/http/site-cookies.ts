// The cookies the site itself sets: the console's session, and the device cookie of a browser
// that logged in to the console before. Named once, here, for the
// console that sets them and for the /api proxy, which must never pass a session id on to the
// backend (a secret in someone else's logs).
export const CONSOLE_COOKIE = 'orgnote-admin';
export const DEVICE_COOKIE = 'orgnote-admin-device';
/** Over https a cookie takes the __Host- prefix: Secure, Path=/, no Domain. */
export const secureName = (name: string) => `__Host-${name}`;

const OURS = new Set([CONSOLE_COOKIE, DEVICE_COOKIE].flatMap((name) => [name, secureName(name)]));

/** A Cookie header without the site's own cookies; undefined when nothing else is left. */
export function withoutSiteCookies(header: string): string | undefined {
  const kept = header
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => pair && !OURS.has(pair.split('=', 1)[0].trim()));
  return kept.length > 0 ? kept.join('; ') : undefined;
}
