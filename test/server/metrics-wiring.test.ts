// The metrics as the production server serves them: a second listener on METRICS_PORT counts the
// requests and signups the public port answered, and the public port never serves /metrics.
import { freePort } from '../../scripts/lib/launch/ports';
import { startServerProcess, type ServerProcess } from '../support/server-process';

let server: ServerProcess | undefined;
afterEach(async () => {
  server?.child.kill('SIGKILL');
  await server?.exited;
  server = undefined;
});

const sample = (text: string, name: string) =>
  Number(
    text
      .split('\n')
      .find((line) => line.startsWith(name))
      ?.split(' ')
      .at(-1),
  );

it('counts what the public port answered, labelled by kind, status and outcome only', async () => {
  const metricsPort = await freePort();
  server = await startServerProcess({ METRICS_PORT: String(metricsPort), LOG_LEVEL: 'warn' });
  const post = (email: string) =>
    fetch(`${server!.url}/api/subscriptions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email }),
    });
  expect((await post('metrics@example.org')).status).toBe(201);
  expect((await post('METRICS@example.org')).status).toBe(201);
  expect((await post('not an address')).status).toBe(400);
  expect((await fetch(`${server.url}/`)).status).toBe(200);

  expect((await fetch(`${server.url}/metrics`)).status).toBe(404);
  const scrape = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
  expect(scrape.status).toBe(200);
  const text = await scrape.text();
  expect(sample(text, 'signups_total{outcome="stored"}')).toBe(1);
  expect(sample(text, 'signups_total{outcome="duplicate"}')).toBe(1);
  expect(sample(text, 'signups_total{outcome="refused"}')).toBe(1);
  expect(sample(text, 'http_requests_total{kind="api",status="201"}')).toBe(2);
  expect(sample(text, 'http_requests_total{kind="page",status="200"}')).toBeGreaterThanOrEqual(1);
  expect(sample(text, 'outbox_pending')).toBe(0);
  expect(sample(text, 'mail_pending')).toBe(0);
  expect(text).toContain('process_cpu_user_seconds_total');
  expect(text).not.toMatch(/example\.org|not an address/i);
});
