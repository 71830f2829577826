// README's "Configuration" table is what an operator reads; the declarations in server/config.ts
// are what the server does. This keeps the two naming the same settings with the same defaults.
import fs from 'node:fs';
import path from 'node:path';
import { fileVariable, loadConfig, SETTINGS } from '../../server/config';

const README = fs.readFileSync(path.resolve(__dirname, '../../README.md'), 'utf8');

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
  for (const declared of Object.values(SETTINGS) as { env: string; default?: string; derivedDefault?: string; secret?: boolean }[]) {
    defaults[declared.env] = declared.derivedDefault ?? (declared.default === undefined ? 'unset' : declared.default === '' ? 'empty' : declared.default);
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
