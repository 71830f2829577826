// The floor for bench:mainthread: a page of one line, served on 127.0.0.1 with the response
// headers the site's own page has (its CSP, COOP and the rest), so that it loads through the same
// process model. What it costs the main thread is what any page costs this browser here: chiefly
// the navigation's commit, which crosses 50 ms under 4× CPU slowdown in many of its loads. That is
// Cross-Origin-Opener-Policy's doing: from the new tab's blank document a COOP page commits in a
// fresh renderer process (57 ms against 21 without the header, docs/benchmarks.md), as it does for
// a visitor arriving from any other site.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Headers that describe the site's own body, not how any page of it is handled. */
const BODY_HEADERS = new Set([
  'content-length',
  'content-encoding',
  'etag',
  'date',
  'vary',
  'connection',
  'keep-alive',
  'transfer-encoding',
]);

const PAGE =
  '<!doctype html><html lang="en"><meta charset="utf-8"><title>Floor</title><p>One line of text.</p></html>';

/** Serves PAGE with the headers `siteUrl` answers with; returns its URL and a stop function. */
export async function startFloorPage(
  siteUrl: string,
): Promise<{ url: string; stop: () => Promise<void> }> {
  const response = await fetch(siteUrl);
  await response.arrayBuffer();
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!BODY_HEADERS.has(name)) headers[name] = value;
  });
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { ...headers, 'content-type': 'text/html; charset=utf-8' });
    res.end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
