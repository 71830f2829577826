// What npm run bench measures, started: the built site (its access log to a file, signups proxied
// to the multer backend, collecting on SIGUSR2), the multer backend, and the site's references:
// a bare node:http server replaying the site's answers, and nginx serving the files a first visit
// fetches. Everything they write is under one folder of the caller's.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadPageAssets } from '../../../server/pages/static-files';
import { startBuiltServer, type BuiltServer } from '../../lib/launch/server';
import { ROOT } from '../../lib/root';
import { firstVisitPaths } from './first-visit';
import { GC_ON_SIGNAL } from './memory';
import { startNginx, type Nginx } from './nginx';
import { getAnswer, headerOf, recordAnswers } from './record';

/** A helper script's server. */
export interface Helper {
  url: string;
  pid: number;
}

export interface Servers {
  site: BuiltServer;
  /** Where the site's output goes. */
  siteLog: string;
  backend: Helper;
  reference: Helper;
  nginx: Nginx;
  /** The entry script's path, /assets/entry-HASH.js. */
  entry: string;
  /** The paths a cold first visit to / fetched from the site. */
  visit: string[];
  stop(): Promise<void>;
}

export async function startServers(dir: string): Promise<Servers> {
  const stops: (() => unknown)[] = [];
  // Last started, first stopped; each once, however often stop() is called.
  const stop = async () => {
    while (stops.length) await stops.pop()!();
  };
  try {
    const backend = await startHelper(['scripts/bench/lib/backend.ts'], stops);
    const siteData = path.join(dir, 'site');
    fs.mkdirSync(siteData);
    const site = await startBuiltServer({
      env: {
        BACKEND_URL: backend.url,
        DATA_DIR: siteData, // ours, so that all the bench writes is in `dir`
        SIGNUP_RATE_LIMIT: '0', // the benchmark is one client sending thousands of signups
      },
      logFile: 'site.log',
      nodeArgs: GC_ON_SIGNAL,
    });
    track(stops, site.child, site.stop);

    const entry = loadPageAssets().scripts[0];
    const answers = path.join(dir, 'answers.json');
    const recorded = await recordAnswers(site.url, ['/', entry, '/healthz'], answers);
    const reference = await startHelper(['scripts/bench/lib/reference.ts', answers], stops);

    const visit = await firstVisitPaths(site.url);
    // nginx answers / with the page's bytes as the site sent them, plain and gzipped.
    const page = await getAnswer(`${site.url}/`);
    if (headerOf(recorded['/'], 'content-encoding') !== 'gzip')
      throw new Error('the site did not gzip / for Accept-Encoding: gzip');
    const nginx = await startNginx(path.join(dir, 'nginx'), page.body, recorded['/'].body);
    stops.push(nginx.stop);

    const siteLog = path.join(siteData, 'site.log');
    return { site, siteLog, backend, reference, nginx, entry, visit, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Adds `stop` to `stops`; should this process end before it runs, `child` is killed. */
function track(stops: (() => unknown)[], child: ChildProcess, stop: () => unknown): void {
  const kill = () => child.kill('SIGKILL');
  process.once('exit', kill);
  stops.push(() => {
    process.off('exit', kill);
    return stop();
  });
}

/** Starts a helper script and resolves with the address it reports ("listening PORT"). */
function startHelper(args: string[], stops: (() => unknown)[]): Promise<Helper> {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  track(stops, child, () => child.kill('SIGTERM'));
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      const match = chunk.toString().match(/listening (\d+)/);
      if (match) resolve({ url: `http://127.0.0.1:${match[1]}`, pid: child.pid! });
    });
    child.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
  });
}
