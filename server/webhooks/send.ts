// One attempt at a webhook: a POST of the delivery's exact body, signed, to the endpoint. Nothing
// is followed: a redirect is an answer like any other (a failure, as any non-2xx is). The attempt
// ends within WEBHOOK_TIMEOUT_MS, and its address is checked as the socket connects
// (address-guard.ts).
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import {
  AddressNotAllowedError,
  guardedLookup,
  isPublicAddress,
  resolveAll,
} from './address-guard';
import type { ResolveAll } from './address-guard';

export interface SendOptions {
  timeoutMs: number;
  /** WEBHOOKS_ALLOW_PRIVATE: private and loopback receivers, over plain http too. */
  allowPrivate: boolean;
  resolve?: ResolveAll;
}

export interface WebhookAnswer {
  status: number;
  durationMs: number;
  /** The receiver's Retry-After, as a delay. */
  retryAfterMs?: number;
}

/** Why an endpoint's URL cannot take webhooks; undefined when it can (checked at `add` too). */
export function endpointUrlProblem(url: string, allowPrivate: boolean): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'not a URL';
  }
  if (parsed.protocol !== 'https:' && !(allowPrivate && parsed.protocol === 'http:'))
    return allowPrivate ? 'not an http(s) URL' : 'not an https URL (WEBHOOKS_ALLOW_PRIVATE is off)';
  if (parsed.username || parsed.password) return 'a URL with credentials';
  const host = parsed.hostname.replace(/^\[|\]$/g, '');
  // A literal address never goes through the lookup: it is judged here.
  if (!allowPrivate && net.isIP(host) !== 0 && !isPublicAddress(host))
    return new AddressNotAllowedError(host).message;
  return undefined;
}

/** Seconds or an HTTP date, as a delay from `at`; undefined when absent or unreadable. */
export function retryAfterMs(header: string | undefined, at: number): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim()) * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - at);
}

/** The receiver's answer; rejects when none came (refused, timed out, not allowed). */
export function sendWebhook(
  url: string,
  headers: Record<string, string>,
  body: string,
  options: SendOptions,
): Promise<WebhookAnswer> {
  const problem = endpointUrlProblem(url, options.allowPrivate);
  if (problem) return Promise.reject(new Error(problem));
  const target = new URL(url);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const request = (target.protocol === 'https:' ? https : http).request(target, {
      method: 'POST',
      headers: {
        ...headers,
        'content-length': String(Buffer.byteLength(body)),
        'user-agent': 'OrgNote-Webhooks',
      },
      lookup: guardedLookup(options.resolve ?? resolveAll, options.allowPrivate),
      // No socket reused from an earlier attempt: each one connects, so each one is checked.
      agent: false,
    });
    const timer = setTimeout(
      () => request.destroy(new Error(`no answer within ${options.timeoutMs / 1000} s`)),
      options.timeoutMs,
    );
    request.on('response', (response) => {
      clearTimeout(timer);
      response.resume();
      const status = response.statusCode ?? 0;
      const header: string | undefined = response.headers['retry-after'];
      resolve({
        status,
        durationMs: Math.round(performance.now() - started),
        retryAfterMs: retryAfterMs(header, Date.now()),
      });
      request.destroy();
    });
    request.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    request.end(body);
  });
}
