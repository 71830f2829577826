// nginx serving what the site serves, for the first-visit case of npm run bench: Debian's nginx
// (nginx-light), one worker, the build's files with their .gz beside them (gzip_static), the
// project's public/ for the rest, and `/` the page the site gave, recorded (its bytes and their
// gzip). It logs each request to a file, as the site does. Everything it writes is in `dir`.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CLIENT_BUILD_DIR, PUBLIC_DIR } from '../../../server/paths';
import { freePort } from '../../lib/launch/ports';

export const NGINX = process.env.NGINX_PATH ?? '/usr/sbin/nginx';

export interface Nginx {
  url: string;
  /** The master process (the one worker is its child). */
  child: ChildProcess;
  stop(): Promise<void>;
}

const START_DEADLINE_MS = 10_000;

/** Starts nginx in `dir`; `page` and `pageGzip` are what it answers for `/`. */
export async function startNginx(dir: string, page: Buffer, pageGzip: Buffer): Promise<Nginx> {
  fs.mkdirSync(path.join(dir, 'page'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'page/index.html'), page);
  fs.writeFileSync(path.join(dir, 'page/index.html.gz'), pageGzip);
  const port = await freePort();
  fs.writeFileSync(path.join(dir, 'nginx.conf'), config(dir, port));
  // -e: its messages before it has read the config go to our folder too, not /var/log/nginx.
  const args = ['-p', dir, '-c', 'nginx.conf', '-e', 'error.log', '-g', 'daemon off;'];
  const child = spawn(NGINX, args, { stdio: ['ignore', 'ignore', 'inherit'] });
  // SIGTERM, not SIGKILL, should the bench end before stop(): the master then ends its worker.
  const endWithUs = () => child.kill('SIGTERM');
  process.once('exit', endWithUs);
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const deadline = Date.now() + START_DEADLINE_MS;
  while ((await statusOf(`http://127.0.0.1:${port}/`)) === undefined) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGTERM');
      const log = path.join(dir, 'error.log');
      const said = fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '';
      throw new Error(`nginx did not start on port ${port}; its error log:\n${said}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    url: `http://127.0.0.1:${port}`,
    child,
    async stop() {
      process.off('exit', endWithUs);
      if (child.exitCode === null) child.kill('SIGQUIT'); // graceful: the worker finishes, exits
      await exited;
    },
  };
}

/** The status `url` answers, or undefined while nothing answers. */
function statusOf(url: string): Promise<number | undefined> {
  return fetch(url, { signal: AbortSignal.timeout(1_000) }).then(
    (res) => res.status,
    () => undefined,
  );
}

function config(dir: string, port: number): string {
  return `${process.getuid?.() === 0 ? 'user root;\n' : ''}worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 1024; }
http {
  include /etc/nginx/mime.types;
  default_type application/octet-stream;
  access_log ${dir}/access.log;
${tempPaths(dir)}
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000;
  gzip_static on;
  server {
    listen 127.0.0.1:${port};
    location = / {
      root ${dir}/page;
      try_files /index.html =404;
    }
    location / {
      root ${CLIENT_BUILD_DIR};
      try_files $uri @public;
    }
    location @public {
      root ${PUBLIC_DIR};
    }
  }
}
`;
}

/**
 * Each temporary folder this nginx was built with (client bodies, proxy, FastCGI…) moved into
 * `dir`: the built-in ones are under /var/lib/nginx, which only root may write.
 */
function tempPaths(dir: string): string {
  const built = spawnSync(NGINX, ['-V'], { encoding: 'utf8' }).stderr; // -V writes to stderr
  return [...built.matchAll(/--http-([a-z-]+)-temp-path=/g)]
    .map(([, name]) => name.replace('-', '_'))
    .filter((name) => name === 'client_body' || !built.includes(`--without-http_${name}_module`))
    .map((name) => `  ${name}_temp_path ${dir}/${name};`)
    .join('\n');
}
