// Guards the upstream path: whatever a client sends, the proxied request must stay under /api/.
// Dot segments and encoded separators are refused outright rather than normalised, because the
// backend (or a proxy in front of it) may decode once more than we do.

export const MAX_DECODE_ROUNDS = 8;

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
  return current.includes('%') && /%[0-9a-f]{2}/i.test(current) ? null : forms;
}

/**
 * Dot segments, separators, NUL, and ';' (matrix parameters: some servers read '/..;/' as '/../'),
 * and anything starting with '..'.
 */
function isUnsafeForm(form: string): boolean {
  return form === '.' || form.startsWith('..') || /[/\\\0;]/.test(form);
}

/** True when the raw request path (no query) is a plain path under /api with no way out. */
export function isSafeApiPath(rawPath: string): boolean {
  if (!rawPath.startsWith('/api/') && rawPath !== '/api') return false;
  if (rawPath.includes('\\')) return false;
  for (const segment of rawPath.split('/').slice(1)) {
    const forms = decodeRounds(segment);
    if (forms === null || forms.some(isUnsafeForm)) return false;
  }
  return true;
}

/** BACKEND_URL + the same path and query; null if the result would leave the backend's /api/. */
export function upstreamUrl(backendUrl: string, originalUrl: string): URL | null {
  const base = new URL(backendUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const target = new URL(`${base.origin}${basePath}${originalUrl}`);
  const prefix = `${basePath}/api`;
  if (target.origin !== base.origin) return null;
  if (target.pathname !== prefix && !target.pathname.startsWith(`${prefix}/`)) return null;
  return target;
}
