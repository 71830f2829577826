// Who sent a request and where it was addressed, honouring X-Forwarded-* only from hops that
// TRUST_PROXY trusts, decided exactly as Express's req.ip, req.ips, req.protocol and req.host do.
// Written out because the page cache and the API answer without Express, yet must agree with it.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import proxyaddr from 'proxy-addr';

/** Express's compiled 'trust proxy' test (app.get('trust proxy fn')): is the hop at this address trusted? */
export type TrustProxy = (address: string | undefined, hop: number) => boolean;

type Trust = (address: string, hop: number) => boolean;

function firstValue(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value?.split(',')[0].trim() || undefined;
}

/** Protocol and host, with the trust test run once (it parses the peer address each time). */
function addressedTo(req: IncomingMessage, trust: TrustProxy): { protocol: string; host: string | undefined } {
  const direct = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
  const host = req.headers.host || undefined;
  if (!trust(req.socket.remoteAddress, 0)) return { protocol: direct, host };
  return {
    protocol: firstValue(req.headers['x-forwarded-proto']) ?? direct,
    host: firstValue(req.headers['x-forwarded-host']) ?? host,
  };
}

/** The origin a request came to, e.g. https://org-note.com. */
export function requestOrigin(req: IncomingMessage, trust: TrustProxy): string {
  const { protocol, host } = addressedTo(req, trust);
  return `${protocol}://${host ?? 'localhost'}`;
}

/** The client's address (Express's req.ip): the nearest hop that TRUST_PROXY does not vouch for. */
export function clientAddress(req: IncomingMessage, trust: TrustProxy): string {
  return proxyaddr(req, trust as Trust) ?? '';
}

/**
 * X-Forwarded-For/-Proto/-Host for a request we pass on: the trusted chain of addresses (farthest
 * first, ending with our peer), and the protocol and host the client used.
 */
export function forwardedHeaders(req: IncomingMessage, trust: TrustProxy): Record<string, string> {
  const { protocol, host } = addressedTo(req, trust);
  const chain = proxyaddr.all(req, trust as Trust).reverse().filter(Boolean);
  return {
    'x-forwarded-for': chain.join(', '),
    'x-forwarded-proto': protocol,
    ...(host ? { 'x-forwarded-host': host } : {}),
  };
}
