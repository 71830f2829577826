// The metric names an alert or a dashboard reads, and the ones a site exports, so a test can say
// which of the first the second lacks. PromQL is read as far as names go: strings, label
// matchers, ranges, offsets and label lists are dropped, and what is left that is not a function
// call or a keyword is a metric name.

const OPERATORS = ['and', 'or', 'unless', 'bool', 'offset', 'atan2', 'inf', 'nan'];
const GROUPING = ['by', 'without', 'on', 'ignoring', 'group_left', 'group_right'];
const KEYWORDS = new Set([...OPERATORS, ...GROUPING]);

/** Every metric name in one PromQL expression (Grafana's $variables allowed). */
export function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\boffset\s+-?[\w$]+/g, ' ');
  const names = new Set<string>();
  for (const [, name] of bare.matchAll(/(?<![\w:$.])([a-zA-Z_:][\w:]*)(?![\w:])(?!\s*\()/g)) {
    if (!KEYWORDS.has(name.toLowerCase())) names.add(name);
  }
  return [...names];
}

/** The `expr` of each rule in a Prometheus rules file, whether on one line or a block. */
export function ruleExpressions(rulesYaml: string): string[] {
  const lines = rulesYaml.split('\n');
  const exprs: string[] = [];
  lines.forEach((line, at) => {
    const match = /^(\s*)expr:\s*(.*)$/.exec(line);
    if (!match) return;
    const [, indent, rest] = match;
    if (!/^[|>][-+]?$/.test(rest.trim())) return void exprs.push(rest.trim());
    const block: string[] = [];
    for (const next of lines.slice(at + 1)) {
      if (next.trim() !== '' && next.search(/\S/) <= indent.length) break;
      block.push(next.trim());
    }
    exprs.push(block.join(' ').trim());
  });
  return exprs;
}

interface DashboardPanel {
  targets?: { expr?: string }[];
  panels?: DashboardPanel[];
}

/** Every target expression of a Grafana dashboard's panels, rows' panels included. */
export function dashboardExpressions(parent: { panels?: DashboardPanel[] }): string[] {
  const own = (panel: DashboardPanel) => (panel.targets ?? []).flatMap(({ expr }) => expr ?? []);
  return (parent.panels ?? []).flatMap((child) => [...own(child), ...dashboardExpressions(child)]);
}

/** The series a histogram's or a summary's family gives beside its own name. */
const SERIES_SUFFIXES: Record<string, string[]> = {
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['_sum', '_count'],
};

/** The sample names a Prometheus text exposition can hold, from its `# TYPE` lines. */
export function exportedNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const [, name, type] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name);
    for (const suffix of SERIES_SUFFIXES[type] ?? []) names.add(name + suffix);
  }
  return names;
}

/** What Prometheus itself makes for every target: not the site's to export. */
const PROMETHEUS_OWN = new Set(['up']);

/** The names read that are neither exported nor Prometheus' own, sorted. */
export function notExported(read: string[], exported: Set<string>): string[] {
  const missing = (name: string) => !exported.has(name) && !PROMETHEUS_OWN.has(name);
  return [...new Set(read)].filter(missing).sort();
}
