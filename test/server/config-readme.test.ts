// README's "Configuration" table and docs/configuration.md are what an operator reads; the
// declarations in server/config/settings.ts are what the server does. This keeps them naming the
// same settings with the same defaults, the README short, and the links between the docs working.
import fs from 'node:fs';
import path from 'node:path';
import { fileVariable, loadConfig, SETTINGS } from '../../server/config';

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const README = read('README.md');
const CONFIGURATION = read('docs/configuration.md');

/** Variable → default cell, from the rows of the table under "## Configuration". */
function readmeDefaults(): Record<string, string> {
  const section = README.split(/^## /m).find((part) => part.startsWith('Configuration\n'));
  if (!section) throw new Error('README.md has no "## Configuration" section');
  const defaults: Record<string, string> = {};
  for (const [, name, cell] of section.matchAll(/^\| `([A-Z0-9_]+)` \| ([^|]*) \|/gm)) {
    // A value is the cell's first code span; otherwise the cell says 'unset' or 'empty'.
    defaults[name] = /^`([^`]*)`/.exec(cell.trim())?.[1] ?? cell.trim().split(/\s/)[0];
  }
  return defaults;
}

/** What README should show as the default of each declared setting. */
function declaredDefaults(): Record<string, string> {
  const defaults: Record<string, string> = {};
  for (const declared of Object.values(SETTINGS) as {
    env: string;
    default?: string;
    derivedDefault?: string;
    secret?: boolean;
  }[]) {
    defaults[declared.env] =
      declared.derivedDefault ??
      (declared.default === undefined
        ? 'unset'
        : declared.default === ''
          ? 'empty'
          : declared.default);
    // A secret's file form is a row of its own.
    if (declared.secret) defaults[fileVariable(declared)] = 'unset';
  }
  return defaults;
}

describe("README's settings table", () => {
  it('lists every declared setting and no other', () => {
    expect(Object.keys(readmeDefaults()).sort()).toEqual(Object.keys(declaredDefaults()).sort());
  });

  it('gives each setting the default the server uses', () => {
    expect(readmeDefaults()).toEqual(declaredDefaults());
  });

  it('documents each setting in one line, and each declared default is valid', () => {
    for (const declared of Object.values(SETTINGS)) expect(declared.doc).toMatch(/^[^\n]+$/);
    expect(() => loadConfig({})).not.toThrow();
  });
});

/** Variable → default, from the `- **`NAME`** (default …):` items of docs/configuration.md. */
function detailedDefaults(): Record<string, string> {
  const defaults: Record<string, string> = {};
  const item = /^- \*\*`([A-Z0-9_]+)`\*\* \(default ([\s\S]*?)\):/gm;
  for (const [, name, cell] of CONFIGURATION.matchAll(item)) {
    defaults[name] = /^`([^`]*)`/.exec(cell)?.[1] ?? cell.split(/\s/)[0];
  }
  return defaults;
}

describe('docs/configuration.md', () => {
  it('details every declared setting, with the default the server uses', () => {
    expect(detailedDefaults()).toEqual(declaredDefaults());
  });
});

/** The sentences of a table cell: its code spans left out, each ending in `.`, `!` or `?`. */
function sentences(cell: string): number {
  const prose = cell.replace(/`[^`]*`/g, 'code').trim();
  return prose.split(/[.!?](?:\s|$)/).filter((part) => part.trim() !== '').length;
}

describe('README.md', () => {
  it('is at most 250 lines', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(250);
  });

  it('keeps every table cell to two sentences at most', () => {
    const rows = README.split('\n').filter((line) => line.startsWith('| '));
    const cellsOf = (row: string) => row.replace(/^\| | \|$/g, '').split(' | ');
    const cells = rows.flatMap(cellsOf);
    expect(cells.length).toBeGreaterThan(3 * Object.keys(SETTINGS).length);
    expect(cells.filter((cell) => sentences(cell) > 2)).toEqual([]);
  });
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function anchor(heading: string): string {
  const plain = heading.replace(/[`*]/g, '').toLowerCase();
  return plain.replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-');
}

/** The Markdown files an operator or a newcomer reads: README.md and everything under docs/. */
function markdownFiles(): string[] {
  const docs = fs.readdirSync(path.join(ROOT, 'docs'), { recursive: true, encoding: 'utf8' });
  const inDocs = docs.filter((file) => file.endsWith('.md')).map((file) => `docs/${file}`);
  return ['README.md', ...inDocs];
}

/** Each relative link of `file` that leads nowhere: a missing file or a missing heading. */
function brokenLinks(file: string): string[] {
  const prose = read(file)
    .replace(/^```[\s\S]*?^```$/gm, '')
    .replace(/`[^`\n]*`/g, '');
  const broken: string[] = [];
  for (const [, target] of prose.matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/.test(target)) continue;
    const [where, hash] = target.split('#');
    const linked = where === '' ? file : path.join(path.dirname(file), where);
    const exists = fs.existsSync(path.join(ROOT, linked));
    if (!exists) broken.push(`${file}: ${target}`);
    if (!exists || hash === undefined) continue;
    const headings = [...read(linked).matchAll(/^#+ (.+)$/gm)].map((found) => anchor(found[1]));
    if (!headings.includes(hash)) broken.push(`${file}: ${target}`);
  }
  return broken;
}

describe('links between the docs', () => {
  it('lead to a file that exists, and to a heading it has', () => {
    const files = markdownFiles();
    expect(files).toEqual(expect.arrayContaining(['docs/operating.md', 'docs/configuration.md']));
    expect(files.flatMap(brokenLinks)).toEqual([]);
  });
});
