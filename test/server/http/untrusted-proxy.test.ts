// A reverse proxy that TRUST_PROXY does not trust makes every visitor share its address (one
// signup limit, one login throttle for all). The operator learns it: the first request that brings
// X-Forwarded-For from such a peer logs one warning naming TRUST_PROXY and the peer, and a counter
// counts every such request.
import request from 'supertest';
import { createApp } from '../../../server/app';
import { createMetrics } from '../../../server/metrics';
import { openSqliteStore, type Store } from '../../../server/store';
import { capturingLogger, testConfig } from '../../support/config';

const opened: Store[] = [];

afterEach(() => {
  for (const store of opened.splice(0)) void store.close();
});

interface LogLine {
  level: number;
  msg: string;
  peer?: string;
}

/** The site with TRUST_PROXY as given, its log lines, and its metrics. */
function site(trustProxy: string) {
  const config = testConfig({ TRUST_PROXY: trustProxy });
  const store = openSqliteStore(config);
  opened.push(store);
  const { logger, lines } = capturingLogger();
  const metrics = createMetrics({ pending: { outbox: () => 0, mail: () => 0 } });
  const app = createApp(config, { store, logger, metrics });
  const warnings = () => {
    const logged = lines.map((line) => JSON.parse(line) as LogLine);
    return logged.filter((line) => line.msg.includes('TRUST_PROXY'));
  };
  const counted = async () => {
    const text = await metrics.text();
    return Number(/^untrusted_proxy_requests_total (\d+)$/m.exec(text)?.[1]);
  };
  return { app, warnings, counted };
}

describe('X-Forwarded-For from a peer TRUST_PROXY does not trust', () => {
  it('logs one warning naming TRUST_PROXY and the peer, and counts each request', async () => {
    // The old compose example's value: the proxy's real address (here loopback) is not in it.
    const { app, warnings, counted } = site('10.0.0.0/8');
    for (const forwarded of ['203.0.113.9', '198.51.100.4', '203.0.113.9, 10.1.2.3']) {
      const answer = await request(app).get('/healthz').set('X-Forwarded-For', forwarded);
      expect(answer.status).toBe(200);
    }
    await request(app).get('/healthz');

    const logged = warnings();
    expect(logged).toHaveLength(1);
    expect(logged[0].level).toBe(40);
    expect(logged[0].peer).toMatch(/^(::ffff:)?127\.0\.0\.1$/);
    expect(logged[0].msg).toContain(`X-Forwarded-For from ${logged[0].peer} is ignored`);
    // The peer's address, never what the client claims.
    expect(JSON.stringify(logged)).not.toMatch(/203\.0\.113\.9|198\.51\.100\.4/);
    // Three requests carried the header; the fourth did not.
    expect(await counted()).toBe(3);
  });

  it('says nothing when the proxy is trusted', async () => {
    const { app, warnings, counted } = site('loopback');
    await request(app).get('/healthz').set('X-Forwarded-For', '203.0.113.9');
    expect(warnings()).toEqual([]);
    expect(await counted()).toBe(0);
  });
});
