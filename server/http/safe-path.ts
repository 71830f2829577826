// Guards the API path: whatever a client sends, a request relayed to the backend must stay under
// /api/. Dot segments and encoded separators are refused outright rather than normalised, because
// the backend (or a proxy in front of it) may decode once more than we do.

const MAX_DECODE_ROUNDS = 8;

function decodeRounds(segment: string): string[] | null {
  const forms = [segment];
  let current = segment;
  for (let round = 0; round < MAX_DECODE_ROUNDS && current.includes('%'); round++) {
    try {
      current = decodeURIComponent(current);
    } catch {
      return null; // malformed percent-encoding
    }
    forms.push(current);
  }
  // Still encoded after that many rounds: nobody legitimate nests encodings this deep.
  return /%[0-9a-f]{2}/i.test(current) ? null : forms;
}

/**
 * Dot segments, separators, NUL, and ';' (matrix parameters: some servers read '/..;/' as '/../'),
 * and anything starting with '..'.
 */
function isUnsafeForm(form: string): boolean {
  return form === '.' || form.startsWith('..') || /[/\\\0;]/.test(form);
}

/**
 * The raw request path (no query) with every segment fully decoded and empty ones dropped, when it
 * is a plain path under /api with no way out; null when it is not. Route matching reads this form,
 * so an encoded spelling of a form POST, or one with doubled or trailing slashes (which many
 * backends and proxies merge), still meets the rate limit and the checks.
 */
export function decodeApiPath(rawPath: string): string | null {
  if (!rawPath.startsWith('/api/') && rawPath !== '/api') return null;
  if (rawPath.includes('\\')) return null;
  const decoded: string[] = [];
  for (const segment of rawPath.split('/').slice(1)) {
    const forms = decodeRounds(segment);
    if (forms === null || forms.some(isUnsafeForm)) return null;
    const plain = forms[forms.length - 1];
    if (plain !== '') decoded.push(plain);
  }
  return `/${decoded.join('/')}`;
}

/** BACKEND_URL + the same path and query; null if the result would leave the backend's /api/. */
export function backendTarget(backendUrl: string, originalUrl: string): URL | null {
  const base = new URL(backendUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const target = new URL(`${base.origin}${basePath}${originalUrl}`);
  const prefix = `${basePath}/api`;
  if (target.origin !== base.origin) return null;
  if (target.pathname !== prefix && !target.pathname.startsWith(`${prefix}/`)) return null;
  return target;
}
