// Production build: the client bundle (content-hashed JS + CSS, a manifest, precompressed copies)
// and the server bundle that `node dist/server/index.js` runs.
//   tsx scripts/build.ts             build
//   tsx scripts/build.ts --if-stale  build only when dist is missing or older than its sources
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import * as swc from '@swc/core';
import * as esbuild from 'esbuild';
import type { AssetManifest, PageScripts } from '../shared/manifest';
import { DEFAULT_LANGUAGE, LANGUAGES, type Language } from '../shared/i18n/languages';
import { describeBuild } from '../server/version';

const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
export const CLIENT_DIR = path.join(DIST, 'client');
const ASSETS_DIR = path.join(CLIENT_DIR, 'assets');
/** Written after a production build; its absence makes the build stale. */
export const STAMP = path.join(DIST, '.build-stamp');
const CLIENT_ENTRY = 'client/entry.tsx';
/**
 * Dedicated workers, by name: entries of the same build, so they are content-hashed, minified,
 * precompressed and cached immutably like every other script. Each imports nothing, so its file
 * is a plain classic script (`new Worker(url)`), listed in the manifest under its name.
 */
export const WORKER_ENTRIES: Record<string, string> = {
  'motion-check': 'client/workers/motion-check.ts',
};
const SOURCES = [
  'client',
  'server',
  'shared',
  'scripts/build.ts',
  'package-lock.json',
  'tsconfig.json',
];

const gzip = promisify(zlib.gzip);
const brotli = promisify(zlib.brotliCompress);

function newestMtime(entry: string): number {
  const stat = fs.statSync(entry, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(
    stat.mtimeMs,
    ...fs.readdirSync(entry).map((name) => newestMtime(path.join(entry, name))),
  );
}

export function isBuildStale(): boolean {
  const stamp = fs.statSync(STAMP, { throwIfNoEntry: false });
  if (!stamp) return true;
  return SOURCES.some((source) => newestMtime(path.join(ROOT, source)) > stamp.mtimeMs);
}

/**
 * A file of React Router's production build, which its package does not export
 * (clientBuildOptions).
 */
const REACT_ROUTER_PRODUCTION = (file: string) =>
  path.join(ROOT, 'node_modules/react-router/dist/production', file);

/** Where the string, template or character literal starting at `i` ends (the index after it). */
function afterLiteral(source: string, i: number): number {
  const quote = source[i];
  for (let at = i + 1; at < source.length; at++) {
    if (source[at] === '\\') at++;
    else if (source[at] === quote) return at + 1;
    else if (quote === '`' && source.startsWith('${', at)) at = afterExpression(source, at + 2);
  }
  throw new Error('unterminated literal');
}

/**
 * Where the expression starting at `i` ends: at the first ',' or closing bracket outside brackets
 * and literals (the '}' closing a template's `${` included, which it returns the index of).
 */
function afterExpression(source: string, i: number): number {
  let depth = 0;
  for (let at = i; at < source.length; at++) {
    const char = source[at];
    if (char === '"' || char === "'" || char === '`') at = afterLiteral(source, at) - 1;
    else if ('([{'.includes(char)) depth++;
    else if (')]}'.includes(char)) {
      if (depth === 0) return at;
      depth--;
    } else if (char === ',' && depth === 0) return at;
  }
  throw new Error('unterminated expression');
}

/**
 * React Router's `invariant(condition, message)` calls without their message, as React's own
 * production build has its errors' messages replaced by numbers: the message is developer advice
 * (a route id collision, a missing router), the thrown error stays.
 */
function withoutInvariantMessages(source: string): string {
  let out = '';
  let from = 0;
  for (const call of source.matchAll(/(?<!function )\binvariant2?\(/g)) {
    const condition = call.index + call[0].length;
    if (condition < from) continue;
    const comma = afterExpression(source, condition);
    if (source[comma] !== ',') continue;
    const literal = comma + 1 + /^\s*/.exec(source.slice(comma + 1))![0].length;
    if (!`"'\``.includes(source[literal])) continue;
    const end = afterLiteral(source, literal);
    const close = end + /^\s*,?\s*/.exec(source.slice(end))![0].length;
    if (source[close] !== ')') continue;
    out += source.slice(from, comma);
    from = close;
  }
  return out + source.slice(from);
}

/**
 * React Router's production build as React's own is: without what only a developer reads.
 * - It names its contexts and components for React DevTools in top-level statements
 *   (`Form.displayName = "Form"`), which no minifier may drop, and with them it keeps components
 *   this site never renders (Form, ScrollRestoration, HistoryRouter): 121 B gzip of first-load JS.
 *   DevTools then shows React Router's components by their function names.
 * - Its `warning(condition, message)` writes advice to the console (a route without an element, a
 *   navigation outside the router); empty, its calls and their messages go with it, as React's
 *   production build has none: 0.9 kB gzip.
 * - Its invariants throw as before, without their messages (withoutInvariantMessages).
 */
const withoutDisplayNames: esbuild.Plugin = {
  name: 'react-router-production',
  setup(build) {
    build.onLoad({ filter: /[\\/]react-router[\\/]dist[\\/]production[\\/].*\.mjs$/ }, (args) => ({
      contents: withoutInvariantMessages(
        fs
          .readFileSync(args.path, 'utf8')
          .replace(/^[\w$]+\.displayName = "[^"\n]*";$/gm, '')
          .replace(/^function (warning|warningOnce)\(([^)]*)\) \{$/gm, 'function $1($2) {return;'),
      ).replace(/^( *)throw new Error\(message\);$/gm, '$1throw new Error("Invariant failed");'),
      loader: 'js',
    }));
  },
};

const BROWSERS = ['chrome100', 'firefox100', 'safari15'];

/**
 * `import url from './x.worker.ts?worker-url'`: the worker bundled on its own (a classic script,
 * which every target browser can start), written beside the other assets under a content hash,
 * and the import gives its URL relative to the importing chunk.
 */
const workerUrls = (dev: boolean): esbuild.Plugin => ({
  name: 'worker-url',
  setup(build) {
    build.onResolve({ filter: /\?worker-url$/ }, (args) => ({
      path: path.join(args.resolveDir, args.path.replace(/\.ts\?worker-url$/, '.js')),
      namespace: 'worker-url',
    }));
    build.onLoad({ filter: /.*/, namespace: 'worker-url' }, async (args) => {
      const worker = await esbuild.build({
        entryPoints: [args.path.replace(/\.js$/, '.ts')],
        bundle: true,
        format: 'iife',
        target: BROWSERS,
        minify: !dev,
        legalComments: 'none',
        write: false,
      });
      return { contents: worker.outputFiles[0].contents, loader: 'file' };
    });
  },
});

/**
 * The browser bundle of one language's pages; `dev` keeps it readable (React's development build,
 * source maps, no minifying). Each language is a build of its own, with the condition that makes
 * '#messages/…' its messages (package.json "imports"): a page carries its own language's messages
 * only, every lazy page's part inside its chunk. Chunks the languages have in common (React's JSX
 * runtime) come out the same and under the same name, being named by their content. The English
 * build writes the stylesheet and the workers, which are the same for every language.
 */
export function clientBuildOptions(
  dev = false,
  language: Language = DEFAULT_LANGUAGE,
): esbuild.BuildOptions & { metafile: true } {
  const withShared = language === DEFAULT_LANGUAGE;
  return {
    absWorkingDir: ROOT,
    entryPoints: { [`entry-${language}`]: CLIENT_ENTRY, ...(withShared ? WORKER_ENTRIES : {}) },
    outdir: ASSETS_DIR,
    entryNames: '[name]-[hash]',
    chunkNames: 'chunk-[hash]',
    assetNames: '[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: BROWSERS,
    conditions: [language],
    jsx: 'automatic',
    // Russian as it is, not as \uXXXX escapes: each Cyrillic letter 2 bytes instead of 6.
    charset: 'utf8',
    minify: !dev,
    // Message keys end in '_' (shared/messages/types.ts): shortened like variables, so a message
    // costs its text and little more.
    ...(dev ? {} : { mangleProps: /_$/ }),
    sourcemap: dev,
    legalComments: 'none',
    define: { 'process.env.NODE_ENV': dev ? '"development"' : '"production"' },
    // React Router 7's package exports only its development build (warnings, invariant messages);
    // the production one sits beside it.
    alias: dev
      ? {}
      : {
          'react-router/dom': REACT_ROUTER_PRODUCTION('dom-export.mjs'),
          'react-router': REACT_ROUTER_PRODUCTION('index.mjs'),
        },
    ...(withShared ? {} : { loader: { '.css': 'empty' } }),
    plugins: dev ? [workerUrls(dev)] : [withoutDisplayNames, workerUrls(dev)],
    metafile: true,
    logLevel: 'warning',
  };
}

/** Writes the manifest the server links pages to; returns it with the files esbuild wrote. */
export function writeManifest(metafiles: esbuild.Metafile[]): {
  manifest: AssetManifest;
  files: string[];
} {
  const url = (file: string) =>
    `/${path.relative(CLIENT_DIR, path.join(ROOT, file)).split(path.sep).join('/')}`;
  const outputs = metafiles.flatMap((metafile) => Object.entries(metafile.outputs));
  const entryOf = (language: Language) =>
    outputs.find(
      ([file, out]) =>
        out.entryPoint === CLIENT_ENTRY && path.basename(file).startsWith(`entry-${language}-`),
    )!;
  const scriptsOf = (language: Language): PageScripts => {
    const [file, entry] = entryOf(language);
    return {
      scripts: [url(file)],
      preloads: entry.imports
        .filter((i) => i.kind === 'import-statement' && !i.external)
        .map((i) => url(i.path)),
    };
  };
  const [, english] = entryOf(DEFAULT_LANGUAGE);
  const manifest: AssetManifest = {
    ...scriptsOf(DEFAULT_LANGUAGE),
    styles: english.cssBundle ? [url(english.cssBundle)] : [],
    languages: Object.fromEntries(
      LANGUAGES.map((language) => [language, scriptsOf(language)]),
    ) as AssetManifest['languages'],
    workers: Object.fromEntries(
      Object.entries(WORKER_ENTRIES).map(([name, source]) => {
        const [file, worker] = outputs.find(([, out]) => out.entryPoint === source)!;
        if (worker.imports.length > 0) throw new Error(`${source} must import nothing`);
        return [name, url(file)];
      }),
    ),
  };
  fs.writeFileSync(
    path.join(CLIENT_DIR, 'manifest.json'),
    `${JSON.stringify(manifest, null, 2)}\n`,
  );
  const files = [...new Set(outputs.map(([file]) => path.join(ROOT, file)))];
  return { manifest, files };
}

async function buildClient(): Promise<AssetManifest> {
  fs.rmSync(CLIENT_DIR, { recursive: true, force: true });
  const results = await Promise.all(
    LANGUAGES.map((language) => esbuild.build(clientBuildOptions(false, language))),
  );
  const { manifest, files } = writeManifest(results.map((result) => result.metafile));
  await Promise.all(files.filter((file) => file.endsWith('.js')).map(minifyFurther));
  for (const script of manifest.scripts) compileAllOnLoad(path.join(CLIENT_DIR, script));
  await precompress(files);
  return manifest;
}

/**
 * V8's explicit compile hint (Chromium 136 and later; a comment elsewhere): every function of the
 * entry is compiled while the file streams in, off the main thread, instead of on its first call.
 * The entry calls almost all of its code while hydrating. React DOM's wrapper spent 36–48 ms of its
 * 100–150 ms step compiling on the main thread under 4× CPU slowdown; with the hint that part is
 * gone. Measured with Playwright attached; without a DevTools script agent in the page
 * (bench:mainthread since) the whole step takes about 15 ms.
 */
function compileAllOnLoad(file: string): void {
  fs.writeFileSync(file, `//# allFunctionsCalledOnLoad\n${fs.readFileSync(file, 'utf8')}`);
}

/**
 * A second minification pass with swc, which packs React and the router about 3 % tighter than
 * esbuild (gzip), the margin that keeps first-load JS inside its budget. The file keeps esbuild's
 * content hash: swc's output is a pure function of esbuild's, so the name still changes exactly
 * when the content does.
 */
async function minifyFurther(file: string): Promise<void> {
  const result = await swc.minify(fs.readFileSync(file, 'utf8'), {
    compress: { passes: 3, pure_getters: true, toplevel: true, ecma: 2022 },
    mangle: { toplevel: true },
    module: true,
    ecma: 2020,
  });
  fs.writeFileSync(file, result.code);
}

/** Writes .br and .gz beside each text asset, so they are compressed once, at their best level. */
async function precompress(files: string[]): Promise<void> {
  await Promise.all(
    files
      .filter((file) => /\.(js|css|svg|json)$/.test(file))
      .map(async (file) => {
        const data = fs.readFileSync(file);
        const [gz, br] = await Promise.all([
          gzip(data, { level: 9 }),
          brotli(data, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } }),
        ]);
        fs.writeFileSync(`${file}.gz`, gz);
        fs.writeFileSync(`${file}.br`, br);
      }),
  );
}

/** The server and the CLI, for `node dist/server/index.js` and `node dist/server/waitlist.js`. */
export const SERVER_BUILD_OPTIONS: esbuild.BuildOptions = {
  absWorkingDir: ROOT,
  entryPoints: { index: 'server/index.ts', waitlist: 'server/cli/waitlist.ts' },
  outdir: path.join(DIST, 'server'),
  bundle: true,
  platform: 'node',
  target: 'node24',
  format: 'cjs',
  jsx: 'automatic',
  packages: 'external',
  loader: { '.css': 'empty' },
  // The server renders the pages but never starts their workers: a worker's URL is empty there,
  // and so is import.meta, which only the browser's lazy chunk that starts one reads.
  plugins: [
    {
      name: 'no-workers',
      setup(build) {
        build.onResolve({ filter: /\?worker-url$/ }, (args) => ({
          path: args.path,
          namespace: 'no-workers',
        }));
        build.onLoad({ filter: /.*/, namespace: 'no-workers' }, () => ({
          contents: "export default ''",
          loader: 'js',
        }));
      },
    },
  ],
  logOverride: { 'empty-import-meta': 'silent' },
  sourcemap: true,
  logLevel: 'warning',
};

async function buildServer(): Promise<void> {
  // The release, embedded (server/version.ts): the image has no .git, so its build passes the
  // commit in SOURCE_COMMIT.
  const release = describeBuild(ROOT, process.env.SOURCE_COMMIT);
  await esbuild.build({ ...SERVER_BUILD_OPTIONS, define: { SITE_BUILD: JSON.stringify(release) } });
}

export async function build(): Promise<AssetManifest> {
  const started = Date.now();
  const [manifest] = await Promise.all([buildClient(), buildServer()]);
  fs.writeFileSync(STAMP, new Date().toISOString());
  console.log(`build: done in ${Date.now() - started} ms`);
  return manifest;
}

if (require.main === module) {
  const ifStale = process.argv.includes('--if-stale');
  if (ifStale && !isBuildStale()) {
    console.log('build: up to date');
  } else {
    build().catch((err) => {
      console.error(err);
      process.exit(1);
    });
  }
}
