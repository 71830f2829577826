// docs/architecture.md is the map a newcomer reads first, so it must stay true as files move: every
// path it names exists, and every folder of server/ is named in it. A path is a backticked name
// with a folder or a file extension; one that does not start at the top is looked for under the
// folder its list item is about (the item's first named path), then that folder's parents, so
// "`server/http/`: … `body.ts`" names server/http/body.ts. Links (decisions/…) are checked too.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const DOC = 'docs/architecture.md';
const text = fs.readFileSync(path.join(ROOT, DOC), 'utf8');

/** A token that names a file or a folder, rather than a function, a setting or a URL path. */
const PATH_LIKE = /^[A-Za-z0-9_][\w.-]*(\/[\w.-]+)*\/?$/;
const EXTENSION = /\.(ts|tsx|mts|cjs|js|json|md|yml|yaml|sh|conf|css|svg|webp)$/;

function isPath(token: string): boolean {
  return PATH_LIKE.test(token) && (token.endsWith('/') || EXTENSION.test(token));
}

/** Every file and folder of the tree below `dir`, relative to ROOT, without node_modules. */
function walk(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(dir, entry.name);
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) return [];
    return entry.isDirectory() ? [`${relative}/`, ...walk(relative)] : [relative];
  });
}

/** The list items of the doc, each with what it names: a list item runs to the next one. */
function items(): { where: string; tokens: string[] }[] {
  const blocks = text.split(/\n(?=- |#)/);
  return blocks.map((block) => ({
    where: block.split('\n')[0].slice(0, 60),
    tokens: [...block.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]).filter(isPath),
  }));
}

/**
 * Where a named path is in the tree: itself if it starts at the top, else under the item's folder
 * or one of that folder's parents (`waitlist/signup.ts` in the item about server/api/).
 */
function resolve(token: string, folder: string | undefined, tree: string[]): string | undefined {
  if (tree.includes(token)) return token;
  for (let dir = folder; dir; dir = parentOf(dir)) {
    const under = dir;
    const found = tree.find((p) => p.startsWith(under) && p.endsWith(`/${token}`));
    if (found) return found;
  }
  return undefined;
}

function parentOf(folder: string): string | undefined {
  const parent = path.posix.dirname(folder.replace(/\/$/, ''));
  return parent === '.' ? undefined : `${parent}/`;
}

/** The folder a list item is about: its first named path that exists, or that file's folder. */
function folderOf(tokens: string[], tree: string[]): string | undefined {
  const first = tokens.find((t) => tree.includes(t));
  if (!first) return undefined;
  return first.endsWith('/') ? first : parentOf(first);
}

describe(DOC, () => {
  const tree = ['server', 'client', 'shared', 'scripts', 'test', 'deploy', 'docs', 'public']
    .flatMap((top) => [`${top}/`, ...walk(top)])
    .concat(fs.readdirSync(ROOT).filter((name) => fs.statSync(path.join(ROOT, name)).isFile()));

  const named = items().flatMap(({ where, tokens }) => {
    const folder = folderOf(tokens, tree);
    return tokens.map((token) => ({ where, token, found: resolve(token, folder, tree) }));
  });

  it('names only paths that exist', () => {
    expect(named.length).toBeGreaterThan(50);
    const missing = named.filter((n) => !n.found).map((n) => `${n.token} (in "${n.where}")`);
    expect(missing).toEqual([]);
  });

  it('names every folder of server/', () => {
    const found = new Set(named.map((n) => n.found));
    const folders = tree.filter((p) => /^server\/.+\/$/.test(p));
    expect(folders.length).toBeGreaterThan(10);
    expect(folders.filter((folder) => !found.has(folder))).toEqual([]);
  });

  it('links only to files that exist', () => {
    const links = [...text.matchAll(/\]\(([^)#\s]+)(#[^)]*)?\)/g)].map((m) => m[1]);
    const local = links.filter((link) => !/^[a-z]+:/.test(link));
    expect(local.length).toBeGreaterThan(5);
    const broken = local.filter((link) => !fs.existsSync(path.join(ROOT, 'docs', link)));
    expect(broken).toEqual([]);
  });
});
