// The console answers over https, or over plain http only to a client on this machine (loopback:
// an ssh tunnel, the tests). From anywhere else a password and a session would cross the network
// in clear, so a page is redirected to SITE_URL when that is https and a form post is refused.
import type { Request, Response } from 'express';
import proxyaddr from 'proxy-addr';
import type { Config } from '../config';
import { CONTENT_TYPES, sendText } from '../http/errors';
import { contextOf } from '../http/request-pipeline';
import type { Logger } from '../logger';
import { ConsolePage, renderPage } from './layout';
import { CONSOLE_URLS } from './paths';

const isLoopback = proxyaddr.compile('loopback');

/** Over https, or from loopback, as TRUST_PROXY lets the request say. */
function mayAnswer(req: Request): boolean {
  const client = contextOf(req).client;
  return client.origin.startsWith('https:') || isLoopback(client.ip, 0);
}

function PlainHttpPage({ css, httpsUrl }: { css: string; httpsUrl?: string }) {
  return (
    <ConsolePage title="The console needs https" css={css}>
      <section className="form-card address-page" aria-labelledby="https-title">
        <h1 id="https-title" className="form-title">
          The console needs https
        </h1>
        <p>
          The console answers only over https, or over plain http from this machine (loopback, for
          example through an ssh tunnel). This request came over plain http from another machine.
        </p>
        {httpsUrl ? (
          <p>
            It is at <a href={httpsUrl}>{httpsUrl}</a>, on SITE_URL.
          </p>
        ) : (
          <p>Set SITE_URL to the site&apos;s https address, and open the console there.</p>
        )}
        <p>
          Came over https? Then the site did not see it: set TRUST_PROXY to the address your reverse
          proxy connects from, so that its X-Forwarded-Proto is believed. Behind{' '}
          <code>docker run -p</code> that address is Docker&apos;s gateway, not loopback.
        </p>
      </section>
    </ConsolePage>
  );
}

/**
 * A step for every console request: passes what may be answered, answers the rest. Without an
 * https SITE_URL there is nowhere to send a page, and neither when a proxy TRUST_PROXY does not
 * name already says https: sending it on would loop.
 */
export function httpsOrLoopback(
  config: Pick<Config, 'siteUrl'>,
  css: string,
  logger: Logger,
): (req: Request, res: Response) => boolean {
  const httpsSite = config.siteUrl?.startsWith('https:') ? new URL(config.siteUrl) : undefined;
  let warned = false;
  return (req, res) => {
    if (mayAnswer(req)) return true;
    if (!warned) {
      warned = true;
      logger.warn(
        { event: 'console-plain-http' },
        'A console request came over plain http from a client that is not loopback: the ' +
          'console answers it only over https. Set SITE_URL to its https address, and ' +
          'TRUST_PROXY to your reverse proxy.',
      );
    }
    const forwardedHttps = /^\s*https\s*(,|$)/i.test(String(req.headers['x-forwarded-proto']));
    const page = (target?: string) => renderPage(<PlainHttpPage css={css} httpsUrl={target} />);
    if (httpsSite && !forwardedHttps && (req.method === 'GET' || req.method === 'HEAD')) {
      const target = `${httpsSite.origin}${req.originalUrl}`;
      sendText(res, 308, CONTENT_TYPES.html, page(target), { Location: target });
    } else {
      const dashboard = httpsSite && `${httpsSite.origin}${CONSOLE_URLS.dashboard}`;
      sendText(res, 403, CONTENT_TYPES.html, page(dashboard));
    }
    return false;
  };
}
