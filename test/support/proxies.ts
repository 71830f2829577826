// Debian's nginx and Caddy in front of a site, each a child process run with the file from
// deploy/ that an operator would use. Only what must differ on a test machine is substituted: the
// upstream address, the ports (on loopback), the certificate (made here with openssl) and where
// the access log goes. Each substitution must find its text, so a file that drifts fails loudly.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import tls from 'node:tls';
import { releasePort, reservePort } from '../../scripts/lib/launch/ports';
import { until } from './wait';

const DEPLOY = path.resolve(__dirname, '../../deploy');

/** The proxies' own port band (see ports.ts), below the kernel's ephemeral range. */
const PORTS: [number, number] = [30_000, 32_499];

/** A port for a proxy's https, reserved before the site starts (its SITE_URL names it). */
export function reserveProxyPort(): number {
  return reservePort(...PORTS);
}

/** A self-signed certificate for `localhost` and 127.0.0.1, for the proxies to serve. */
export interface Certificate {
  certFile: string;
  keyFile: string;
  /** The certificate's PEM text: the only CA a test client trusts. */
  pem: string;
}

export function makeCertificate(dir: string): Certificate {
  const certFile = path.join(dir, 'localhost.crt');
  const keyFile = path.join(dir, 'localhost.key');
  // prettier-ignore
  execFileSync('openssl', [
    'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes',
    '-keyout', keyFile, '-out', certFile, '-days', '2', '-subj', '/CN=localhost',
    '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1',
  ], { stdio: 'ignore' });
  return { certFile, keyFile, pem: fs.readFileSync(certFile, 'utf8') };
}

export interface RunningProxy {
  name: 'nginx' | 'caddy';
  /** The https port, on 127.0.0.1. */
  port: number;
  /** The access log as written so far. */
  accessLog(): string;
  /** Everything else the proxy logged (its error log), for assertions and failure messages. */
  output(): string;
  stop(): Promise<void>;
}

interface ProxyOptions {
  /** host:port of the site (for Caddy, a name whose every address is a replica). */
  upstream: string;
  /** Caddy only: host:port of the name server its look-up of that name asks (dns.ts). */
  resolver?: string;
  certificate: Certificate;
  /** An empty folder for the proxy's configuration, logs and state. */
  dir: string;
  /** The https port, from reserveProxyPort(); released when the proxy stops. */
  port: number;
}

/** A deploy file's text with each [from, to] replaced; every `from` must occur. */
function deployFile(file: string, replacements: [from: string | RegExp, to: string][]): string {
  let text = fs.readFileSync(path.join(DEPLOY, file), 'utf8');
  for (const [from, to] of replacements) {
    const found = typeof from === 'string' ? text.includes(from) : from.test(text);
    if (!found) throw new Error(`deploy/${file} no longer contains ${String(from)}`);
    text = text.replaceAll(from, to);
  }
  return text;
}

/**
 * nginx with deploy/nginx.conf included in the http block, as Debian's /etc/nginx/nginx.conf
 * includes conf.d/*.conf. One process (no master), so it ends with the test's SIGTERM.
 */
export function startNginx(options: ProxyOptions): Promise<RunningProxy> {
  const { upstream, certificate, dir, port } = options;
  const httpPort = reserveProxyPort();
  const file = (name: string) => path.join(dir, name);
  const site = deployFile('nginx.conf', [
    ['server 127.0.0.1:3000', `server ${upstream}`],
    [/listen 443 /g, `listen 127.0.0.1:${port} `],
    [/listen \[::\]:443 /g, `listen [::1]:${port} `],
    [/listen 80;/g, `listen 127.0.0.1:${httpPort};`],
    [/listen \[::\]:80;/g, `listen [::1]:${httpPort};`],
    [/ssl_certificate \S+;/g, `ssl_certificate ${certificate.certFile};`],
    [/ssl_certificate_key \S+;/g, `ssl_certificate_key ${certificate.keyFile};`],
    ['/var/log/nginx/orgnote-site.access.log', file('access.log')],
  ]);
  fs.writeFileSync(file('orgnote-site.conf'), site);
  const temp = ['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((kind) => {
    return `${kind}_temp_path ${file(kind)};`;
  });
  const main = [
    'daemon off;',
    'master_process off;',
    `pid ${file('nginx.pid')};`,
    `error_log ${file('error.log')} warn;`,
    'events { worker_connections 256; }',
    `http { include /etc/nginx/mime.types; ${temp.join(' ')}`,
    `  include ${file('orgnote-site.conf')}; }`,
  ];
  fs.writeFileSync(file('main.conf'), `${main.join('\n')}\n`);
  const child = spawn('nginx', ['-p', dir, '-e', file('error.log'), '-c', file('main.conf')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return started(child, {
    name: 'nginx',
    port,
    ports: [port, httpPort],
    certificate,
    accessLog: () => readIfThere(file('access.log')),
    errorLog: () => readIfThere(file('error.log')),
  });
}

/**
 * Caddy with deploy/Caddyfile: SITE_DOMAIN=localhost, SITE_UPSTREAM_NAME and _PORT the site's
 * address and port, and, in its global options, what a test machine needs (its own ports, no
 * admin endpoint, no system trust store).
 */
export function startCaddy(options: ProxyOptions): Promise<RunningProxy> {
  const { upstream, resolver, certificate, dir, port } = options;
  const httpPort = reserveProxyPort();
  const ports = [`http_port ${httpPort}`, `https_port ${port}`];
  const globals = ['admin off', ...ports, 'skip_install_trust'];
  const site = deployFile('Caddyfile', [
    ['{$SITE_DOMAIN} {', `{$SITE_DOMAIN} {\n\ttls ${certificate.certFile} ${certificate.keyFile}`],
    [/^\{\n/gm, `{\n${globals.map((option) => `\t${option}\n`).join('')}`],
    ...resolvers(resolver),
  ]);
  const config = path.join(dir, 'Caddyfile');
  fs.writeFileSync(config, site);
  const child = spawn('caddy', ['run', '--config', config, '--adapter', 'caddyfile'], {
    env: {
      PATH: process.env.PATH,
      HOME: dir,
      XDG_DATA_HOME: dir,
      XDG_CONFIG_HOME: dir,
      SITE_DOMAIN: 'localhost',
      // An address is a name Caddy's look-up answers with itself.
      SITE_UPSTREAM_NAME: upstream.slice(0, upstream.lastIndexOf(':')),
      SITE_UPSTREAM_PORT: upstream.slice(upstream.lastIndexOf(':') + 1),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The access log is Caddy's stdout (`output stdout`, as `docker compose logs caddy` shows it).
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
  return started(child, {
    name: 'caddy',
    port,
    ports: [port, httpPort],
    certificate,
    accessLog: () => stdout,
    errorLog: () => '',
  });
}

/** The Caddyfile's look-up of its upstreams, sent to `resolver` when there is one. */
function resolvers(resolver: string | undefined): [RegExp, string][] {
  return resolver ? [[/^\t\tdynamic a .*\{$/gm, `$&\n\t\t\tresolvers ${resolver}`]] : [];
}

interface Starting {
  name: RunningProxy['name'];
  port: number;
  /** Released when the proxy stops. */
  ports: number[];
  certificate: Certificate;
  accessLog: () => string;
  /** The error log when it is a file; stderr is added to it. */
  errorLog: () => string;
}

/** Waits until the proxy completes a TLS handshake (the site behind it may not be up yet). */
async function started(child: ChildProcess, starting: Starting): Promise<RunningProxy> {
  const { name, port, ports, certificate, accessLog, errorLog } = starting;
  let printed = '';
  child.stderr!.on('data', (chunk: Buffer) => void (printed += chunk.toString()));
  let ended = false;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  void exited.then(() => (ended = true));
  const output = () => `${printed}${errorLog()}`;
  const stop = async () => {
    if (!ended) child.kill('SIGTERM');
    await exited;
    for (const reserved of ports) releasePort(reserved);
  };
  const answers = async () => {
    if (ended) throw new Error(`${name} exited:\n${output()}`);
    return handshakes(port, certificate);
  };
  try {
    await until(`${name} answers on port ${port}`, answers);
  } catch (err) {
    await stop();
    throw err;
  }
  return { name, port, accessLog, output, stop };
}

function readIfThere(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

function handshakes(port: number, certificate: Certificate): Promise<boolean> {
  return new Promise((resolve) => {
    const options = { host: '127.0.0.1', port, servername: 'localhost', ca: certificate.pem };
    const socket = tls.connect(options, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export interface ProxiedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export interface ProxiedRequest {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  /** The client's own address (a loopback one: 127.0.0.2, 127.0.0.3…). */
  from?: string;
}

/** One https request to a proxy on 127.0.0.1 for https://localhost:<port>, from `from`. */
export function httpsRequest(port: number, ca: Certificate, url: string, request?: ProxiedRequest) {
  const { method = 'GET', headers = {}, body, from } = request ?? {};
  const length = body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) };
  return new Promise<ProxiedResponse>((resolve, reject) => {
    const options = {
      host: '127.0.0.1',
      port,
      path: url,
      method,
      servername: 'localhost',
      ca: ca.pem,
      localAddress: from,
      agent: false,
      timeout: 10_000,
      headers: { host: `localhost:${port}`, ...headers, ...length },
    };
    const req = https.request(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        resolve({ status: res.statusCode!, headers: res.headers, body: text });
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer from port ${port} within 10 s`)));
    req.on('error', reject);
    req.end(body);
  });
}
