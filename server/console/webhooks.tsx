// /admin/webhooks: each endpoint as `waitlist webhooks list` shows it (its name, the scheme and
// host of its URL, enabled, failing since …, disabled and why), its last deliveries, and the CLI's
// `replay` and `test` as buttons (the same operations, waitlist/webhooks.ts). Nothing of a URL's
// path or query is on the page, where receivers keep their token, and no secret ever is.
import type { Store } from '../store';
import type { WebhookDelivery, WebhookEndpoint } from '../store/webhook-types';
import { UNNAMED_RECIPIENT } from '../webhooks/recipients';
import { endpointOrigin } from '../webhooks/shown';
import { Hidden, PostForm } from './layout';
import { ConsoleTable, When, Word } from './table';

/** The deliveries shown per endpoint, newest first. */
export const RECENT_DELIVERIES = 20;

/** What a button did, told by the page it redirects to (its query: kind, endpoint, count). */
export type WebhookNotice =
  | { kind: 'replayed'; endpoint: string; queued: number; reenabled: boolean }
  | { kind: 'tested'; endpoint: string }
  | { kind: 'unknown'; endpoint: string };

/** The redirect's query for a notice; `webhookNotice` reads it back. */
export function noticeQuery(notice: WebhookNotice): string {
  const fields: Record<string, string> = { done: notice.kind, endpoint: notice.endpoint };
  if (notice.kind === 'replayed') {
    fields.queued = String(notice.queued);
    fields.reenabled = notice.reenabled ? '1' : '0';
  }
  return new URLSearchParams(fields).toString();
}

/** The notice a redirect's query names; anything else, none. */
export function webhookNotice(query: Record<string, unknown>): WebhookNotice | undefined {
  const endpoint = typeof query.endpoint === 'string' ? query.endpoint : '';
  if (query.done === 'tested') return { kind: 'tested', endpoint };
  if (query.done !== 'replayed') return undefined;
  const queued = Number(query.queued);
  if (!Number.isSafeInteger(queued) || queued < 0) return undefined;
  return { kind: 'replayed', endpoint, queued, reenabled: query.reenabled === '1' };
}

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
        <strong>Disabled</strong> since <When iso={endpoint.disabledAt} />:{' '}
        {endpoint.disabledReason ?? 'no reason recorded'}. Replay to enable it again once the
        receiver is fixed.
      </p>
    );
  if (endpoint.failingSince)
    return (
      <p className="console-state console-state-failing">
        <strong>Failing</strong> since <When iso={endpoint.failingSince} />: no delivery has
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
      <Word>{delivery.type}</Word>,
      delivery.id,
      <When iso={delivery.createdAt} />,
      <Word>{delivery.state === 'failed' ? 'given up' : delivery.state}</Word>,
      delivery.attempts,
      delivery.lastStatus ?? '',
      delivery.lastDurationMs === null ? '' : `${delivery.lastDurationMs} ms`,
      delivery.lastError ?? '',
      delivery.state === 'pending' ? (
        <When iso={new Date(delivery.nextAttemptAt).toISOString()} />
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
        added <When iso={endpoint.createdAt} />
      </p>
      <p>
        <PostForm action="/admin/webhooks/replay" csrf={csrf} className="console-action">
          <Hidden name="id" value={endpoint.id} />
          <button type="submit" className="button button-secondary">
            Replay
          </button>
        </PostForm>
        <PostForm action="/admin/webhooks/test" csrf={csrf} className="console-action">
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

export async function webhooksPage(
  store: Pick<Store, 'webhooks'>,
  csrf: string,
  notice?: WebhookNotice,
) {
  const endpoints = await store.webhooks.list();
  const deliveries = await Promise.all(
    endpoints.map((endpoint) => store.webhooks.deliveries(endpoint.id, RECENT_DELIVERIES)),
  );
  const known = endpoints.some((endpoint) => endpoint.id === notice?.endpoint);
  return (
    <>
      <h1>Webhooks</h1>
      <p>
        <a href="/admin">Dashboard</a>
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
      {endpoints.map((endpoint, i) => (
        <Endpoint key={endpoint.id} endpoint={endpoint} deliveries={deliveries[i]} csrf={csrf} />
      ))}
    </>
  );
}
