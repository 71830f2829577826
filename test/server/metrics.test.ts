// Metrics (server/metrics.ts, server/metrics-server.ts) as an operator's Prometheus sees them:
// scraped over real HTTP from the second listener, the text parsed line by line. Counts, the
// latency histogram, series at 0 before the first event, queue depths asked at scrape time (a
// failing count does not fail the scrape), process metrics, and labels that only ever take the
// fixed values, whatever a caller passes.
import {
  createMetrics,
  ATTEMPT_QUEUES,
  DELIVERY_RESULTS,
  NO_METRICS,
  SIGNUP_OUTCOMES,
  type Metrics,
  type PendingCounts,
} from '../../server/metrics';
import { startMetricsServer, type MetricsServer } from '../../server/metrics-server';
import { capturingLogger } from '../support/config';
import { rawRequest } from '../support/http';

interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** Prometheus text format 0.0.4, as far as these metrics use it: `name{a="b",…} value`. */
function parse(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!match) throw new Error(`not a sample line: ${line}`);
      const labels = Object.fromEntries(
        [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
      );
      return { name: match[1], labels, value: Number(match[3]) };
    });
}

/** The one sample with exactly these labels (undefined when there is none). */
function valueOf(
  samples: Sample[],
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  const wanted = JSON.stringify(Object.entries(labels).sort());
  return samples.find(
    (s) => s.name === name && JSON.stringify(Object.entries(s.labels).sort()) === wanted,
  )?.value;
}

const counts = (outbox: number, mail: number): PendingCounts => ({
  outbox: async () => outbox,
  mail: () => mail,
});

const started: MetricsServer[] = [];

afterEach(async () => {
  await Promise.all(started.splice(0).map((server) => server.close()));
});

async function listener(metrics: Metrics, logger = capturingLogger().logger) {
  const server = await startMetricsServer({ port: 0, host: '127.0.0.1', metrics, logger });
  started.push(server);
  return server;
}

/** GET /metrics over HTTP, parsed. */
async function scrape(metrics: Metrics): Promise<Sample[]> {
  const { port } = await listener(metrics);
  const res = await rawRequest(port, '/metrics');
  expect(res.status).toBe(200);
  return parse(res.body.toString('utf8'));
}

describe('the listener', () => {
  it('answers GET /metrics with Prometheus text that no cache keeps', async () => {
    const metrics = createMetrics({ pending: counts(0, 0) });
    const { port } = await listener(metrics);
    const res = await rawRequest(port, '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body.toString('utf8')).toContain('# TYPE http_requests_total counter');
  });

  it('answers 404 for any other path and 405 for any other method', async () => {
    const { port } = await listener(createMetrics({ pending: counts(0, 0) }));
    for (const path of ['/', '/metrics/', '/healthz', '/api/subscriptions']) {
      expect((await rawRequest(port, path)).status).toBe(404);
    }
    const post = await rawRequest(port, '/metrics', {}, 'POST', 'x');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    expect((await rawRequest(port, '/metrics', {}, 'DELETE')).status).toBe(405);
    expect((await rawRequest(port, '/metrics', {}, 'HEAD')).status).toBe(200);
  });

  it('listens on the host it is given, says so in the log, and closes', async () => {
    const { logger, lines } = capturingLogger();
    const server = await startMetricsServer({
      port: 0,
      host: '127.0.0.1',
      metrics: NO_METRICS,
      logger,
    });
    expect(server.server.address()).toMatchObject({ address: '127.0.0.1', port: server.port });
    expect(lines.map((line) => JSON.parse(line))).toContainEqual(
      expect.objectContaining({ msg: 'metrics listening', host: '127.0.0.1', port: server.port }),
    );
    await server.close();
    expect(server.server.listening).toBe(false);
  });

  it('refuses to start on a port already taken', async () => {
    const first = await listener(NO_METRICS);
    await expect(
      startMetricsServer({
        port: first.port,
        host: '127.0.0.1',
        metrics: NO_METRICS,
        logger: capturingLogger().logger,
      }),
    ).rejects.toMatchObject({
      code: 'EADDRINUSE',
    });
  });
});

describe('what is counted', () => {
  it('counts requests and times them by route kind and status', async () => {
    const metrics = createMetrics({ pending: counts(0, 0) });
    metrics.request('api', 201, 0.004);
    metrics.request('api', 201, 0.02);
    metrics.request('page', 200, 0.0005);
    metrics.request('app', 404, 3);
    const samples = await scrape(metrics);
    expect(valueOf(samples, 'http_requests_total', { kind: 'api', status: '201' })).toBe(2);
    expect(valueOf(samples, 'http_requests_total', { kind: 'page', status: '200' })).toBe(1);
    expect(valueOf(samples, 'http_requests_total', { kind: 'app', status: '404' })).toBe(1);
    expect(
      valueOf(samples, 'http_request_duration_seconds_count', { kind: 'api', status: '201' }),
    ).toBe(2);
    expect(
      valueOf(samples, 'http_request_duration_seconds_sum', { kind: 'api', status: '201' }),
    ).toBeCloseTo(0.024);
    // Buckets run from 1 ms to 5 s.
    expect(
      valueOf(samples, 'http_request_duration_seconds_bucket', {
        kind: 'page',
        status: '200',
        le: '0.001',
      }),
    ).toBe(1);
    expect(
      valueOf(samples, 'http_request_duration_seconds_bucket', {
        kind: 'api',
        status: '201',
        le: '0.005',
      }),
    ).toBe(1);
    expect(
      valueOf(samples, 'http_request_duration_seconds_bucket', {
        kind: 'app',
        status: '404',
        le: '2.5',
      }),
    ).toBe(0);
    expect(
      valueOf(samples, 'http_request_duration_seconds_bucket', {
        kind: 'app',
        status: '404',
        le: '5',
      }),
    ).toBe(1);
  });

  it('counts signups by outcome and delivery attempts by queue and result', async () => {
    const metrics = createMetrics({ pending: counts(0, 0) });
    metrics.signup('stored');
    metrics.signup('stored');
    metrics.signup('honeypot');
    metrics.delivery('outbox', 'retry');
    metrics.delivery('outbox', 'delivered');
    metrics.delivery('mail', 'failed');
    const samples = await scrape(metrics);
    expect(valueOf(samples, 'signups_total', { outcome: 'stored' })).toBe(2);
    expect(valueOf(samples, 'signups_total', { outcome: 'honeypot' })).toBe(1);
    expect(valueOf(samples, 'signups_total', { outcome: 'duplicate' })).toBe(0);
    expect(valueOf(samples, 'delivery_attempts_total', { queue: 'outbox', result: 'retry' })).toBe(
      1,
    );
    expect(
      valueOf(samples, 'delivery_attempts_total', { queue: 'outbox', result: 'delivered' }),
    ).toBe(1);
    expect(valueOf(samples, 'delivery_attempts_total', { queue: 'mail', result: 'failed' })).toBe(
      1,
    );
    expect(
      valueOf(samples, 'delivery_attempts_total', { queue: 'mail', result: 'delivered' }),
    ).toBe(0);
  });

  it('shows every signup outcome and every delivery result at 0 before the first event', async () => {
    const samples = await scrape(createMetrics({ pending: counts(0, 0) }));
    for (const outcome of SIGNUP_OUTCOMES)
      expect(valueOf(samples, 'signups_total', { outcome })).toBe(0);
    for (const queue of ATTEMPT_QUEUES) {
      for (const result of DELIVERY_RESULTS)
        expect(valueOf(samples, 'delivery_attempts_total', { queue, result })).toBe(0);
    }
    expect(
      samples
        .filter((s) => s.name === 'signups_total')
        .map((s) => s.labels.outcome)
        .sort(),
    ).toEqual(['duplicate', 'honeypot', 'queued', 'refused', 'stored']);
  });

  it('includes the process metrics', async () => {
    const samples = await scrape(createMetrics({ pending: counts(0, 0) }));
    for (const name of [
      'process_cpu_user_seconds_total',
      'process_resident_memory_bytes',
      'nodejs_heap_size_used_bytes',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(valueOf(samples, name)).toEqual(expect.any(Number));
    }
  });

  it('keeps apps in one process apart (a registry each)', async () => {
    const one = createMetrics({ pending: counts(1, 0) });
    const two = createMetrics({ pending: counts(2, 0) });
    one.signup('queued');
    expect(valueOf(await scrape(one), 'signups_total', { outcome: 'queued' })).toBe(1);
    const other = await scrape(two);
    expect(valueOf(other, 'signups_total', { outcome: 'queued' })).toBe(0);
    expect(valueOf(other, 'outbox_pending')).toBe(2);
  });
});

describe('the pending gauges', () => {
  it('ask the callbacks on every scrape', async () => {
    let outbox = 3;
    const metrics = createMetrics({ pending: { outbox: async () => outbox, mail: async () => 7 } });
    const { port } = await listener(metrics);
    const read = async () => parse((await rawRequest(port, '/metrics')).body.toString('utf8'));
    let samples = await read();
    expect(valueOf(samples, 'outbox_pending')).toBe(3);
    expect(valueOf(samples, 'mail_pending')).toBe(7);
    outbox = 0;
    samples = await read();
    expect(valueOf(samples, 'outbox_pending')).toBe(0);
  });

  it('read NaN when a count fails or hangs, while the scrape still succeeds and the log keeps no detail', async () => {
    const { logger, lines } = capturingLogger();
    const metrics = createMetrics({
      pending: {
        outbox: () => Promise.reject(new Error('connect to postgres://site:s3cret@db failed')),
        mail: () => new Promise<number>(() => {}),
      },
      logger,
      pendingTimeoutMs: 50,
    });
    metrics.signup('queued');
    const samples = await scrape(metrics);
    expect(valueOf(samples, 'outbox_pending')).toBeNaN();
    expect(valueOf(samples, 'mail_pending')).toBeNaN();
    expect(valueOf(samples, 'signups_total', { outcome: 'queued' })).toBe(1);
    expect(valueOf(samples, 'process_cpu_user_seconds_total')).toEqual(expect.any(Number));
    const warnings = lines
      .map((line) => JSON.parse(line))
      .filter((line) => line.msg === 'could not count pending items for metrics');
    expect(warnings).toEqual([
      expect.objectContaining({ gauge: 'outbox_pending', error: 'Error' }),
      expect.objectContaining({ gauge: 'mail_pending', error: 'PendingTimeoutError' }),
    ]);
    expect(lines.join('')).not.toContain('s3cret');
    expect(lines.join('')).not.toContain('postgres');
  });

  it('read NaN for a count that throws or is no count', async () => {
    const metrics = createMetrics({
      pending: {
        outbox: () => {
          throw new Error('database closed');
        },
        mail: async () => -1,
      },
    });
    const samples = await scrape(metrics);
    expect(valueOf(samples, 'outbox_pending')).toBeNaN();
    expect(valueOf(samples, 'mail_pending')).toBeNaN();
  });
});

describe('labels', () => {
  it('take only the fixed values: anything else is refused by the compiler and not recorded', async () => {
    const metrics = createMetrics({ pending: counts(0, 0) });
    // @ts-expect-error: a path is no route kind
    metrics.request('/activate?email=zoe%40example.org', 200, 0.01);
    metrics.request('api', 42, 0.01);
    metrics.request('api', 200.5, 0.01);
    // @ts-expect-error: an address is no outcome
    metrics.signup('zoe@example.org');
    // @ts-expect-error: a key is no queue
    metrics.delivery('KEY-1234-ABCD', 'failed');
    // @ts-expect-error: a token is no result
    metrics.delivery('mail', 'Bearer s3cret-token');
    const text = await metrics.text();
    expect(text).not.toMatch(/zoe|example|KEY-1234|s3cret|activate/);

    const allowed: Record<string, Set<string>> = {
      kind: new Set(['api', 'page', 'app']),
      outcome: new Set(SIGNUP_OUTCOMES),
      queue: new Set(ATTEMPT_QUEUES),
      result: new Set(DELIVERY_RESULTS),
    };
    const ours = parse(text).filter((s) =>
      /^(http_|signups_|delivery_|outbox_|mail_)/.test(s.name),
    );
    for (const { labels } of ours) {
      for (const [name, value] of Object.entries(labels)) {
        if (name === 'status') expect(value).toMatch(/^[1-5]\d\d$/);
        else if (name === 'le') expect(Number(value)).not.toBeNaN();
        else expect(allowed[name]?.has(value)).toBe(true);
      }
    }
    expect(ours.some((s) => s.name === 'http_requests_total')).toBe(false);
  });

  it('count a request whose clock stepped back, without timing it', async () => {
    const metrics = createMetrics({ pending: counts(0, 0) });
    metrics.request('app', 200, -0.5);
    const samples = parse(await metrics.text());
    expect(valueOf(samples, 'http_requests_total', { kind: 'app', status: '200' })).toBe(1);
    expect(
      valueOf(samples, 'http_request_duration_seconds_count', { kind: 'app', status: '200' }),
    ).toBeUndefined();
  });
});

describe('NO_METRICS (METRICS_PORT unset)', () => {
  it('takes the same calls and records nothing', async () => {
    NO_METRICS.request('api', 201, 0.01);
    NO_METRICS.signup('stored');
    NO_METRICS.delivery('outbox', 'delivered');
    expect(await NO_METRICS.text()).toBe('');
    expect(NO_METRICS.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
  });
});
