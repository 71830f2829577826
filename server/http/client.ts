// Who sent a request and where it was addressed, honouring X-Forwarded-* only from the hops that
// TRUST_PROXY trusts, decided exactly as Express's req.ip, req.protocol and req.host decide it.
// Everything that needs the client's address or the request's origin (the rate limit, the
// cross-site check, canonical links, the headers we forward) reads it from here.
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import proxyaddr from 'proxy-addr';
import type { ForwardedHeaders } from '../../shared/form-checks';
import type { Logger } from '../logger';
import type { Metrics } from '../metrics';

/** Is the hop at this address, `hop` steps from us, trusted to report the one before it? */
export type TrustProxy = (address: string | undefined, hop: number) => boolean;

type Trust = (address: string, hop: number) => boolean;

/**
 * TRUST_PROXY compiled the way Express compiles 'trust proxy' (Express is handed this function).
 */
export function compileTrust(setting: boolean | number | string): TrustProxy {
  if (setting === true) return () => true;
  if (typeof setting === 'number') return (_address, hop) => hop < setting;
  if (setting === false) return () => false;
  return proxyaddr.compile(setting.split(',').map((part) => part.trim())) as TrustProxy;
}

/** The visitor's side of a request, worked out on first use and kept. */
export interface Client {
  /** The nearest address TRUST_PROXY does not vouch for (Express's req.ip). */
  readonly ip: string;
  /** The origin the request was addressed to, e.g. https://org-note.com. */
  readonly origin: string;
  /** X-Forwarded-For/-Proto/-Host for a request we pass on to the backend. */
  readonly forwarded: ForwardedHeaders;
}

export type { ForwardedHeaders };

function firstValue(header: string | string[] | undefined): string | undefined {
  const value = Array.isArray(header) ? header[0] : header;
  return value?.split(',')[0].trim() || undefined;
}

/**
 * Whether our peer may report the hop before it. Asked once per connection, not per request:
 * proxy-addr parses the address on every call, and keep-alive connections (a reverse proxy's, a
 * browser's) carry many requests.
 */
const peerTrusted = new WeakMap<object, boolean>();

function trustsPeer(req: IncomingMessage, trust: TrustProxy): boolean {
  let trusted = peerTrusted.get(req.socket);
  if (trusted === undefined)
    peerTrusted.set(req.socket, (trusted = trust(req.socket.remoteAddress, 0)));
  return trusted;
}

interface Target {
  protocol: string;
  host: string | undefined;
}

function addressedTo(req: IncomingMessage, trust: TrustProxy): Target {
  const direct = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
  const host = req.headers.host || undefined;
  if (!trustsPeer(req, trust)) return { protocol: direct, host };
  return {
    protocol: firstValue(req.headers['x-forwarded-proto']) ?? direct,
    host: firstValue(req.headers['x-forwarded-host']) ?? host,
  };
}

/** Lazy, one per request: most requests (prerendered pages, assets) need little or none of it. */
class LazyClient implements Client {
  #ip?: string;
  #target?: Target;
  #forwarded?: ForwardedHeaders;

  constructor(
    private readonly req: IncomingMessage,
    private readonly trust: TrustProxy,
  ) {}

  get ip(): string {
    return (this.#ip ??= proxyaddr(this.req, this.trust) ?? '');
  }

  get origin(): string {
    const { protocol, host } = this.#addressedTo();
    return `${protocol}://${host ?? 'localhost'}`;
  }

  get forwarded(): ForwardedHeaders {
    if (this.#forwarded) return this.#forwarded;
    const { protocol, host } = this.#addressedTo();
    // The trusted chain of addresses, farthest first, ending with our peer.
    const chain = proxyaddr
      .all(this.req, this.trust as Trust)
      .reverse()
      .filter(Boolean);
    return (this.#forwarded = {
      'x-forwarded-for': chain.join(', '),
      'x-forwarded-proto': protocol,
      ...(host ? { 'x-forwarded-host': host } : {}),
    });
  }

  #addressedTo(): Target {
    return (this.#target ??= addressedTo(this.req, this.trust));
  }
}

export function clientOf(req: IncomingMessage, trust: TrustProxy): Client {
  return new LazyClient(req, trust);
}

type ProxyMetrics = Pick<Metrics, 'untrustedProxy'>;

/**
 * Behind a proxy that TRUST_PROXY does not trust, every visitor has the proxy's address: one signup
 * limit and one login throttle for all. Each request that brings X-Forwarded-For from such a peer
 * is counted; the first is logged (once per request pipeline, so once per process), naming the
 * peer, never the forwarded value a client may have written.
 */
export function untrustedProxyWatch(trust: TrustProxy, logger: Logger, metrics: ProxyMetrics) {
  let warned = false;
  return (req: IncomingMessage): void => {
    if (req.headers['x-forwarded-for'] === undefined || trustsPeer(req, trust)) return;
    metrics.untrustedProxy();
    if (warned) return;
    warned = true;
    const peer = req.socket.remoteAddress ?? 'unknown';
    logger.warn(
      { event: 'untrusted-proxy', peer },
      `X-Forwarded-For from ${peer} is ignored: TRUST_PROXY does not trust that address, ` +
        'so every client behind it shares it. Set TRUST_PROXY to your reverse proxy.',
    );
  };
}
