// Bodies made once and sent in whichever encoding the browser asks for: the prerendered pages,
// and the console's answer to a throttled login, which a flood asks for hundreds of times a second.
import type { IncomingMessage } from 'node:http';
import zlib from 'node:zlib';
import Negotiator from 'negotiator';

export type Encoding = 'br' | 'gzip' | 'identity';
const ENCODINGS: Encoding[] = ['br', 'gzip', 'identity'];

/** A body in each encoding a browser may ask for. */
export function compress(identity: Buffer): Record<Encoding, Buffer> {
  return {
    // Quality 9, not 11: a few percent larger, but a fill (which a Host header can force when
    // SITE_URL is unset) costs a millisecond, not twenty.
    br: zlib.brotliCompressSync(identity, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 9 } }),
    gzip: zlib.gzipSync(identity, { level: 9 }),
    identity,
  };
}

/**
 * Browsers send a handful of different Accept-Encoding headers, each millions of times: each is
 * negotiated once. The memo is cleared when full, so odd headers cannot grow it.
 */
const negotiated = new Map<string, Encoding>();
const NEGOTIATED_MAX = 256;

/** The encoding of the request's Accept-Encoding that we have, best first. */
export function preferredEncoding(req: IncomingMessage): Encoding {
  const header = req.headers['accept-encoding'] ?? '';
  let encoding = negotiated.get(header);
  if (encoding === undefined) {
    encoding = (new Negotiator(req).encoding(ENCODINGS) as Encoding | undefined) ?? 'identity';
    if (negotiated.size >= NEGOTIATED_MAX) negotiated.clear();
    negotiated.set(header, encoding);
  }
  return encoding;
}
