// The monitoring kit of deploy/: the alert rules and the scrape configuration as Debian's promtool
// checks and unit-tests them, and the one promise no syntax check keeps: every metric an alert or
// the dashboard reads is one the site really exports, read from the built server's /metrics.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDataDir } from '../support/config';
import { serverWithMetrics } from '../support/server-process';
import * as names from '../support/metric-names';

const ROOT = path.resolve(__dirname, '../..');
const PROMETHEUS = path.join(ROOT, 'deploy/prometheus');
const ALERTS = fs.readFileSync(path.join(PROMETHEUS, 'alerts.yml'), 'utf8');
const ALERT_TESTS = fs.readFileSync(path.join(PROMETHEUS, 'alerts.test.yml'), 'utf8');
const DASHBOARD_FILE = path.join(ROOT, 'deploy/grafana/dashboard.json');
const DASHBOARD = JSON.parse(fs.readFileSync(DASHBOARD_FILE, 'utf8'));

/** The alerts the kit ships, one per failure an operator must hear of. */
const ALERT_NAMES = [
  'OrgNoteSiteDown',
  'OrgNoteSiteMissing',
  'OrgNoteSiteNotReady',
  'OrgNoteSiteErrors',
  'OrgNoteOutboxGrowing',
  'OrgNoteOutboxDead',
  'OrgNoteMailDead',
  'OrgNoteMailFailing',
  'OrgNoteConfirmationsNotDraining',
  'OrgNoteLoginsThrottled',
  'OrgNoteWebhookEndpointDisabled',
  'OrgNoteBackupStale',
  'OrgNoteBouncesHigh',
  'OrgNoteComplaintReceived',
];

/** promtool run from the repository's root, as the files' own comments say to run it. */
function promtool(...args: string[]) {
  const run = spawnSync('promtool', args, { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  return { code: run.status, output: `${run.stdout}${run.stderr}` };
}

/** Each alert's own lines of alerts.yml, by name. */
function alertBlocks(): Map<string, string> {
  const blocks = ALERTS.split(/^\s*- alert: /m).slice(1);
  return new Map(blocks.map((block) => [block.split('\n')[0].trim(), block]));
}

describe('deploy/prometheus with promtool', () => {
  it('alerts.yml passes promtool check rules, with every alert asked for', () => {
    const { code, output } = promtool('check', 'rules', 'deploy/prometheus/alerts.yml');
    expect(code).toBe(0);
    expect(output).toContain(`SUCCESS: ${ALERT_NAMES.length} rules found`);
    expect([...alertBlocks().keys()].sort()).toEqual([...ALERT_NAMES].sort());
  });

  it('gives each alert a severity, a for, a summary and a runbook line', () => {
    const parts = {
      for: /^\s+for: \d+[smh]$/m,
      severity: /^\s+severity: (critical|warning)$/m,
      summary: /^\s+summary: \S/m,
      runbook: /^\s+runbook: >-\n\s+\S[\s\S]*docs\/operating\.md#[a-z0-9-]+/m,
    };
    for (const [name, block] of alertBlocks()) {
      const missing = Object.entries(parts).filter(([, part]) => !part.test(block));
      expect({ name, missing: missing.map(([part]) => part) }).toEqual({ name, missing: [] });
    }
  });

  it('aggregates the queue gauges with max: every replica counts the one shared database', () => {
    const queueGauges =
      /\b(outbox|mail)_(pending|dead)\b|\bconfirmations_owed\b|\bwebhook_endpoints_disabled\b/;
    for (const expr of names.ruleExpressions(ALERTS).filter((e) => queueGauges.test(e))) {
      expect(expr).not.toMatch(/\bsum\b/);
      expect(expr).toMatch(/\bmax\(/);
    }
  });

  it('alerts.test.yml passes promtool test rules, with a firing and a quiet case each', () => {
    const { code, output } = promtool('test', 'rules', 'deploy/prometheus/alerts.test.yml');
    expect([code, output]).toEqual([0, expect.stringContaining('SUCCESS')]);
    for (const name of ALERT_NAMES) {
      const cases = ALERT_TESTS.split(`alertname: ${name}\n`).slice(1);
      const fires = cases.some((c) => /^\s+exp_alerts:\n\s+- exp_labels:/.test(c));
      const quiet = cases.some((c) => /^\s+exp_alerts: \[\]/.test(c));
      expect({ name, fires, quiet }).toEqual({ name, fires: true, quiet: true });
    }
  });

  it('scrape.yml passes promtool check config, and loads the alerts beside it', () => {
    const { code, output } = promtool('check', 'config', 'deploy/prometheus/scrape.yml');
    expect(code).toBe(0);
    expect(output).toContain('SUCCESS: 1 rule files found');
    expect(output).toContain(`SUCCESS: ${ALERT_NAMES.length} rules found`);
  });

  it('fails promtool when a rule breaks (the checks are not vacuous)', () => {
    const broken = path.join(tempDataDir(), 'alerts.yml');
    const unbalanced = ALERTS.replace('expr: max(outbox_dead) > 0', 'expr: max(outbox_dead > 0');
    expect(unbalanced).not.toBe(ALERTS);
    fs.writeFileSync(broken, unbalanced);
    expect(promtool('check', 'rules', broken).code).not.toBe(0);
  });
});

describe('deploy/grafana/dashboard.json', () => {
  it('is a current dashboard that asks for its Prometheus data source', () => {
    expect(DASHBOARD.schemaVersion).toBeGreaterThanOrEqual(36);
    const variables: { name: string; type: string; query: unknown }[] = DASHBOARD.templating.list;
    const source = { name: 'datasource', type: 'datasource', query: 'prometheus' };
    expect(variables).toContainEqual(expect.objectContaining(source));
    const all: { type: string; datasource?: { uid: string } }[] = DASHBOARD.panels;
    const panels = all.filter((panel) => panel.type !== 'row');
    expect(panels.length).toBeGreaterThanOrEqual(10);
    const chosen = { type: 'prometheus', uid: '${datasource}' };
    for (const panel of panels) expect(panel.datasource).toEqual(chosen);
  });

  it('shows the figures the alerts watch', () => {
    const read = new Set(names.dashboardExpressions(DASHBOARD).flatMap(names.metricNames));
    for (const name of [
      'http_requests_total',
      'signups_total',
      'outbox_pending',
      'mail_pending',
      'outbox_dead',
      'mail_dead',
      'store_ready',
      'confirmations_owed',
      'console_logins_throttled_total',
      'build_info',
      'process_resident_memory_bytes',
      'process_cpu_seconds_total',
    ]) {
      expect([name, read.has(name)]).toEqual([name, true]);
    }
  });
});

describe('the metric names the kit reads', () => {
  const promql = [
    {
      expr: 'sum by (kind) (rate(http_requests_total{job=~"$job",status="500"}[$__rate_interval]))',
      read: ['http_requests_total'],
    },
    {
      expr: 'histogram_quantile(0.95, sum by (le) (rate(latency_seconds_bucket[5m])))',
      read: ['latency_seconds_bucket'],
    },
    {
      expr: 'max(outbox_pending) > 0 and max(outbox_pending) > max(outbox_pending offset 10m)',
      read: ['outbox_pending'],
    },
    {
      expr: 'rate(a_total[5m]) / ignoring (x) group_left sum(b_total) unless on(y) c == bool 1e3',
      read: ['a_total', 'b_total', 'c'],
    },
    { expr: 'up{job=~"orgnote-site.*"} == 0', read: ['up'] },
  ];

  it.each(promql)('are read from PromQL, keywords and labels aside: $expr', ({ expr, read }) => {
    expect(names.metricNames(expr)).toEqual(read);
  });

  it('are read from every rule of a rules file, one line or a block', () => {
    expect(names.ruleExpressions(ALERTS)).toHaveLength(ALERT_NAMES.length);
    const rules = `rules:
  - alert: A
    expr: |
      one_total
        / two
    for: 1m
  - alert: B
    expr: three > 0
`;
    const read = names.ruleExpressions(rules).flatMap(names.metricNames);
    expect(read).toEqual(['one_total', 'two', 'three']);
  });

  it('are matched with the families a site exports, a histogram giving its series', () => {
    const exposition = `# TYPE up_seconds gauge
up_seconds 1
# TYPE lat histogram
lat_bucket{le="1"} 0
# TYPE c_total counter
`;
    const exported = names.exportedNames(exposition);
    const read = ['lat_bucket', 'lat_count', 'c_total', 'up', 'up_seconds'];
    expect(names.notExported(read, exported)).toEqual([]);
    // A name made up, or misspelt, is reported: this is how the test below fails.
    const wrong = ['made_up_total', 'lat_bucket', 'c_totl'];
    expect(names.notExported(wrong, exported)).toEqual(['c_totl', 'made_up_total']);
  });

  describe('against the built site', () => {
    const site = serverWithMetrics();

    it('are all exported by the site, from alerts.yml and dashboard.json alike', async () => {
      await site.start();
      const scrape = await fetch(`http://127.0.0.1:${site.metricsPort}/metrics`);
      expect(scrape.status).toBe(200);
      const exported = names.exportedNames(await scrape.text());

      const fromAlerts = names.ruleExpressions(ALERTS).flatMap(names.metricNames);
      const fromDashboard = names.dashboardExpressions(DASHBOARD).flatMap(names.metricNames);
      expect(fromAlerts.length).toBeGreaterThanOrEqual(ALERT_NAMES.length);
      expect(fromDashboard.length).toBeGreaterThanOrEqual(15);
      const missing = {
        alerts: names.notExported(fromAlerts, exported),
        dashboard: names.notExported(fromDashboard, exported),
      };
      expect(missing).toEqual({ alerts: [], dashboard: [] });
    });
  });
});
