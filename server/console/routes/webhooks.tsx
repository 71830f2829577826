// The webhooks: each endpoint as `waitlist webhooks list` shows it (its name, the scheme and
// host of its URL, enabled, failing since …, disabled and why), its last deliveries, and the CLI's
// `replay` and `test` as buttons (the same operations, waitlist/webhooks.ts). Nothing of a URL's
// path or query is on the page, where receivers keep their token, and no secret ever is. Each
// button answers with a redirect to the page, which tells what was done.
import type { Response } from 'express';
import { fieldsOf } from '../../http/body';
import type { Store } from '../../store';
import type { WebhookDelivery, WebhookEndpoint } from '../../store/webhooks';
import { replayWebhook, testWebhook } from '../../waitlist/webhooks';
import { UNNAMED_RECIPIENT } from '../../webhooks/recipients';
import { endpointOrigin } from '../../webhooks/shown';
import { Hidden, PostForm } from '../layout';
import { CONSOLE_URLS } from '../paths';
import { actor, text } from '../request';
import type { Page, RouteModule } from '../route';
import { ConsoleTable, StateLabel, Timestamp } from '../table';

/** The deliveries shown per endpoint, newest first. */
export const RECENT_DELIVERIES = 20;

/** What a button did, told by the page it redirects to (its query: kind, endpoint, count). */
export type WebhookNotice =
  | { kind: 'replayed'; endpoint: string; queued: number; reenabled: boolean }
  | { kind: 'tested'; endpoint: string }
  | { kind: 'unknown'; endpoint: string };

/** The redirect's query for a notice; `webhookNotice` reads it back. */
function noticeQuery(notice: WebhookNotice): string {
  const fields: Record<string, string> = { done: notice.kind, endpoint: notice.endpoint };
  if (notice.kind === 'replayed') {
    fields.queued = String(notice.queued);
    fields.reenabled = notice.reenabled ? '1' : '0';
  }
  return new URLSearchParams(fields).toString();
}

/** The notice a redirect's query names; anything else, none. */
function webhookNotice(query: Record<string, unknown>): WebhookNotice | undefined {
  const endpoint = typeof query.endpoint === 'string' ? query.endpoint : '';
  if (query.done === 'tested') return { kind: 'tested', endpoint };
  if (query.done !== 'replayed') return undefined;
  const queued = Number(query.queued);
  if (!Number.isSafeInteger(queued) || queued < 0) return undefined;
  return { kind: 'replayed', endpoint, queued, reenabled: query.reenabled === '1' };
}

// Loader

interface EndpointData {
  endpoint: WebhookEndpoint;
  /** Its last deliveries, newest first. */
  deliveries: WebhookDelivery[];
}

export async function loadWebhooks(store: Pick<Store, 'webhooks'>): Promise<EndpointData[]> {
  const endpoints = await store.webhooks.list();
  const deliveries = await Promise.all(
    endpoints.map((endpoint) => store.webhooks.deliveries(endpoint.id, RECENT_DELIVERIES)),
  );
  return endpoints.map((endpoint, i) => ({ endpoint, deliveries: deliveries[i] }));
}

// View

function noticeText(notice: WebhookNotice, known: boolean): string {
  if (notice.kind === 'unknown' || !known) return 'There is no such webhook endpoint.';
  if (notice.kind === 'tested')
    return `A webhook.test event is queued for ${notice.endpoint}; the running site sends it.`;
  const deliveries = notice.queued === 1 ? '1 delivery' : `${notice.queued} deliveries`;
  const enabled = notice.reenabled ? ' The endpoint is enabled again.' : '';
  return `${deliveries} of ${notice.endpoint} queued again.${enabled}`;
}

function EndpointState({ endpoint }: { endpoint: WebhookEndpoint }) {
  if (endpoint.disabledAt)
    return (
      <p className="console-state console-state-off">
        <strong>Disabled</strong> since <Timestamp iso={endpoint.disabledAt} />:{' '}
        {endpoint.disabledReason ?? 'no reason recorded'}. Replay to enable it again once the
        receiver is fixed.
      </p>
    );
  if (endpoint.failingSince)
    return (
      <p className="console-state console-state-failing">
        <strong>Failing</strong> since <Timestamp iso={endpoint.failingSince} />: no delivery has
        succeeded since. After 5 days of this it is disabled.
      </p>
    );
  return (
    <p className="console-state console-state-on">
      <strong>Enabled</strong>
    </p>
  );
}

function deliveryRow(delivery: WebhookDelivery) {
  return {
    key: delivery.id,
    cells: [
      <StateLabel>{delivery.type}</StateLabel>,
      delivery.id,
      <Timestamp iso={delivery.createdAt} />,
      <StateLabel>{delivery.state === 'failed' ? 'given up' : delivery.state}</StateLabel>,
      delivery.attempts,
      delivery.lastStatus ?? '',
      delivery.lastDurationMs === null ? '' : `${delivery.lastDurationMs} ms`,
      delivery.lastError ?? '',
      delivery.state === 'pending' ? (
        <Timestamp iso={new Date(delivery.nextAttemptAt).toISOString()} />
      ) : (
        ''
      ),
    ],
  };
}

interface EndpointProps {
  endpoint: WebhookEndpoint;
  deliveries: WebhookDelivery[];
  csrf: string;
}

function Endpoint({ endpoint, deliveries, csrf }: EndpointProps) {
  const events = endpoint.events.length === 0 ? 'all events' : endpoint.events.join(', ');
  return (
    <section className="console-endpoint" aria-labelledby={`endpoint-${endpoint.id}`}>
      <h2 id={`endpoint-${endpoint.id}`}>{endpoint.name ?? 'Unnamed endpoint'}</h2>
      <p className="console-url">{endpointOrigin(endpoint.url)}</p>
      {endpoint.name === null && (
        <p>
          Name it with <code>waitlist webhooks rename {endpoint.id} --name …</code>
          {endpoint.withAddress && `: until then /privacy calls it “${UNNAMED_RECIPIENT}”`}.
        </p>
      )}
      <EndpointState endpoint={endpoint} />
      <p>
        {endpoint.id} · {events} · {endpoint.withAddress ? 'receives addresses' : 'no addresses'} ·
        added <Timestamp iso={endpoint.createdAt} />
      </p>
      <p>
        <PostForm action={CONSOLE_URLS.webhookReplay} csrf={csrf} className="console-action">
          <Hidden name="id" value={endpoint.id} />
          <button type="submit" className="button button-secondary">
            Replay
          </button>
        </PostForm>
        <PostForm action={CONSOLE_URLS.webhookTest} csrf={csrf} className="console-action">
          <Hidden name="id" value={endpoint.id} />
          <button type="submit" className="button button-secondary">
            Send test
          </button>
        </PostForm>
      </p>
      <ConsoleTable
        caption={`Its last ${RECENT_DELIVERIES} deliveries, newest first`}
        columns={[
          'Event',
          'Webhook id',
          'Created',
          'State',
          'Attempts',
          'Last status',
          'Duration',
          'Last error',
          'Next attempt',
        ]}
        rows={deliveries.map(deliveryRow)}
        empty="Nothing sent yet."
      />
    </section>
  );
}

interface WebhooksViewProps {
  endpoints: EndpointData[];
  csrf: string;
  notice?: WebhookNotice;
}

export function WebhooksView({ endpoints, csrf, notice }: WebhooksViewProps) {
  const known = endpoints.some(({ endpoint }) => endpoint.id === notice?.endpoint);
  return (
    <>
      <h1>Webhooks</h1>
      <p>
        <a href={CONSOLE_URLS.dashboard}>Dashboard</a>
      </p>
      {notice && <p role="status">{noticeText(notice, known)}</p>}
      <p>
        Replay sends an endpoint&apos;s given-up deliveries again, with their webhook-id, and
        enables it again. Add, rename, remove and rotate with <code>waitlist webhooks</code>;
        deliveries are kept for 30 days.
      </p>
      {endpoints.length === 0 && (
        <p>
          No endpoint yet: <code>waitlist webhooks add https://… --name …</code> adds one.
        </p>
      )}
      {endpoints.map(({ endpoint, deliveries }) => (
        <Endpoint key={endpoint.id} endpoint={endpoint} deliveries={deliveries} csrf={csrf} />
      ))}
    </>
  );
}

// Routes: the page, and the CLI's `webhooks replay <id>` (without --since) and
// `webhooks test <id>`.

/** What a button did, as a redirect to the page that tells it. */
const done = (res: Response, notice: WebhookNotice) =>
  res.redirect(303, `${CONSOLE_URLS.webhooks}?${noticeQuery(notice)}`);

export const webhookRoutes: RouteModule = ({ store }) => {
  const page = async (csrf: string, notice?: WebhookNotice, status = 200): Promise<Page> => ({
    title: 'Webhooks',
    view: <WebhooksView endpoints={await loadWebhooks(store)} csrf={csrf} notice={notice} />,
    status,
  });
  /** The page again, saying there is no such endpoint (404). */
  const unknown = (csrf: string, endpoint: string) =>
    page(csrf, { kind: 'unknown', endpoint }, 404);
  return [
    {
      method: 'get',
      name: 'webhooks',
      handle: (req, res) => page(res.locals.consoleSession.csrf, webhookNotice(req.query)),
    },
    {
      method: 'post',
      name: 'webhookReplay',
      handle: async (req, res) => {
        const endpoint = text(fieldsOf(req).id);
        const replayed = await replayWebhook({ store }, actor(res), endpoint);
        if (!replayed) return unknown(res.locals.consoleSession.csrf, endpoint);
        done(res, { kind: 'replayed', endpoint, ...replayed });
      },
    },
    {
      method: 'post',
      name: 'webhookTest',
      handle: async (req, res) => {
        const endpoint = text(fieldsOf(req).id);
        if ((await testWebhook({ store }, actor(res), endpoint)) === undefined)
          return unknown(res.locals.consoleSession.csrf, endpoint);
        done(res, { kind: 'tested', endpoint });
      },
    },
  ];
};
