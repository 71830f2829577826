// `npm run dev`: builds the client and the server the way scripts/build.ts does (the client
// readable, with source maps), rebuilds either on change, and restarts the server after each
// rebuild with `node --enable-source-maps`, so stack traces name the TypeScript lines. The server
// reads the client's manifest once at start, hence a restart for client changes too.
// Settings come from the environment as usual (PORT=3100 npm run dev). Ctrl-C stops everything.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as esbuild from 'esbuild';
import {
  CLIENT_DIR,
  SERVER_BUILD_OPTIONS,
  STAMP,
  clientBuildOptions,
  writeManifest,
} from './build';
import { LANGUAGES, type Language } from '../shared/i18n/languages';

const ROOT = path.resolve(__dirname, '..');
const SERVER_ENTRY = path.join(ROOT, 'dist/server/index.js');
/** Changes to shared/ rebuild both bundles: one restart for the pair, not two. */
const SETTLE_MS = 150;
/** The server drains requests for up to 10 s on SIGTERM; in development nobody waits that long. */
const STOP_GRACE_MS = 3_000;

let server: ChildProcess | undefined;
let stopping = false;
let restartTimer: NodeJS.Timeout | undefined;
let restarting = Promise.resolve();
const BUNDLES = [...LANGUAGES.map((language) => `client-${language}`), 'server'];
const built = new Set<string>();
const failed = new Set<string>();

const log = (message: string) => console.log(`dev: ${message}`);

function stopServer(): Promise<void> {
  const child = server;
  server = undefined;
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const kill = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
    child.once('exit', () => {
      clearTimeout(kill);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

function startServer(): void {
  const child = spawn(process.execPath, ['--enable-source-maps', SERVER_ENTRY], {
    cwd: ROOT,
    stdio: 'inherit',
  });
  child.once('exit', (code, signal) => {
    // Ctrl-C reaches the server too, and may do so before it reaches us: look a moment later.
    setTimeout(() => {
      if (server === child && !stopping)
        log(`server exited (${signal ?? `code ${code}`}); waiting for a change`);
    }, 100);
  });
  server = child;
  log(`server started (pid ${child.pid})`);
}

/**
 * Called after every build; restarts once both bundles exist, have settled and built without
 * errors.
 */
function scheduleRestart(): void {
  clearTimeout(restartTimer);
  restartTimer = setTimeout(() => {
    if (stopping || failed.size > 0 || built.size < BUNDLES.length) return;
    restarting = restarting.then(async () => {
      await stopServer();
      if (!stopping) startServer();
    });
  }, SETTLE_MS);
}

/** Reports each build of one bundle, and lets `afterBuild` finish it (the client's manifest). */
function watchPlugin(
  name: string,
  afterBuild: (result: esbuild.BuildResult) => void = () => {},
): esbuild.Plugin {
  return {
    name: `dev-${name}`,
    setup(build) {
      let started = 0;
      build.onStart(() => {
        started = Date.now();
      });
      build.onEnd((result) => {
        if (result.errors.length > 0) {
          failed.add(name);
          log(
            `${name} build failed (${result.errors.length} errors); the server keeps running the last good build`,
          );
          return;
        }
        failed.delete(name);
        built.add(name);
        afterBuild(result);
        log(`${name} built in ${Date.now() - started} ms`);
        scheduleRestart();
      });
    },
  };
}

/** Each language's last client build (scripts/build.ts builds one a language). */
const clientBuilds = new Map<Language, esbuild.Metafile>();

/**
 * Keeps only what the last client builds wrote, so dist/client does not grow with every change;
 * the manifest once every language has built.
 */
function writeClientOutput(language: Language, result: esbuild.BuildResult): void {
  if (!result.metafile) return;
  clientBuilds.set(language, result.metafile);
  if (clientBuilds.size < LANGUAGES.length) return;
  const { files } = writeManifest([...clientBuilds.values()]);
  const current = new Set(files);
  const assets = path.join(CLIENT_DIR, 'assets');
  for (const name of fs.readdirSync(assets)) {
    const file = path.join(assets, name);
    if (!current.has(file)) fs.rmSync(file, { force: true });
  }
}

async function main(): Promise<void> {
  // A development build in dist/ must never pass for a production one (npm start, the tests).
  fs.rmSync(STAMP, { force: true });
  fs.rmSync(CLIENT_DIR, { recursive: true, force: true });
  // The builds' own plugins (the workers' URLs) stay; the watch plugin comes after them.
  const contexts = await Promise.all([
    ...LANGUAGES.map((language) => {
      const client = clientBuildOptions(true, language);
      return esbuild.context({
        ...client,
        plugins: [
          ...(client.plugins ?? []),
          watchPlugin(`client-${language}`, (result) => writeClientOutput(language, result)),
        ],
      });
    }),
    esbuild.context({
      ...SERVER_BUILD_OPTIONS,
      plugins: [...(SERVER_BUILD_OPTIONS.plugins ?? []), watchPlugin('server')],
    }),
  ]);
  log('building client and server, again on every change (Ctrl-C to stop)');
  await Promise.all(contexts.map((context) => context.watch()));

  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log(`${signal}: stopping`);
    clearTimeout(restartTimer);
    await Promise.all(contexts.map((context) => context.dispose()));
    await restarting;
    await stopServer();
    process.exit(0);
  };
  process.on('SIGINT', (signal) => void stop(signal));
  process.on('SIGTERM', (signal) => void stop(signal));
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
