// The bench's load generator, always in a process of its own: run in the bench's own process, its
// ceiling (Node's, for making requests) would be measured rather than the site's. wrk (Debian's,
// apt-get install wrk) when there is one: one thread, and a Lua script whose done() prints one
// JSON line of figures. Without wrk, autocannon in a child process (load-autocannon.ts), which
// prints the same line.
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../../lib/root';

export interface LoadOptions {
  /** What every request asks for, or with `paths`, the origin they are asked of. */
  url: string;
  /** Paths asked in rotation, each once per turn (a first visit's files). */
  paths?: string[];
  method?: 'GET' | 'POST';
  body?: Buffer;
  headers?: Record<string, string>;
  connections?: number;
  seconds: number;
  threads?: number;
  /** wrk where there is one, else autocannon; a test asks for each. */
  generator?: Generator;
}

export type Generator = 'wrk' | 'autocannon';

export interface LoadResult {
  rps: number;
  /** Latency percentiles, ms. */
  p50: number;
  p99: number;
  /** Connect, read and write errors and timeouts. */
  errors: number;
  /** Answers of status 400 and above (wrk counts no others). */
  non2xx: number;
  requests: number;
}

/** The line both generators print: wrk's own units (µs) and its error counts. */
export interface LoadLine {
  requests: number;
  durationUs: number;
  p50Us: number;
  p99Us: number;
  errors: { connect: number; read: number; write: number; timeout: number; status: number };
}

/** What the generator process reads from options.json in its folder. */
export interface LoadFile extends Omit<LoadOptions, 'body'> {
  bodyFile?: string;
}

const WRK = whichWrk();

/** The generator load() runs unless told otherwise. */
export const GENERATOR: Generator = WRK ? 'wrk' : 'autocannon';

export async function load(options: LoadOptions): Promise<LoadResult> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'orgnote-bench-load-'));
  try {
    const { body, ...rest } = options;
    const file: LoadFile = {
      connections: 50,
      threads: 1,
      ...rest,
      method: options.method ?? 'GET',
      headers: {
        ...(options.method === 'POST' ? {} : { 'Accept-Encoding': 'gzip' }),
        ...options.headers,
      },
    };
    if (body) fs.writeFileSync((file.bodyFile = path.join(dir, 'body')), body);
    const generator = options.generator ?? GENERATOR;
    if (generator === 'wrk' && !WRK) throw new Error('no wrk here (apt-get install wrk)');
    const line =
      generator === 'wrk' ? await runWrk(WRK!, dir, file) : await runAutocannon(dir, file);
    const seconds = line.durationUs / 1e6;
    const { connect, read, write, timeout, status } = line.errors;
    return {
      rps: Math.round(line.requests / seconds),
      p50: toHundredths(line.p50Us / 1000),
      p99: toHundredths(line.p99Us / 1000),
      errors: connect + read + write + timeout,
      non2xx: status,
      requests: line.requests,
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Milliseconds as the bench shows them: µs are more than a loaded machine can tell apart. */
export const toHundredths = (ms: number) => Math.round(ms * 100) / 100;

function whichWrk(): string | undefined {
  try {
    return execFileSync('sh', ['-c', 'command -v wrk'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

function runWrk(wrk: string, dir: string, file: LoadFile): Promise<LoadLine> {
  const script = path.join(dir, 'load.lua');
  fs.writeFileSync(script, wrkScript(file));
  const args = [`-t${file.threads}`, `-c${file.connections}`, `-d${file.seconds}s`, '--latency'];
  // An answer is a timeout (an error) after 10 s, as with autocannon, not wrk's 2 s: a slow
  // answer shows in the p99, and an error should mean a request that failed.
  args.push('--timeout', '10s');
  return runForLine(wrk, [...args, '-s', script, file.url], file.seconds);
}

function runAutocannon(dir: string, file: LoadFile): Promise<LoadLine> {
  const options = path.join(dir, 'options.json');
  fs.writeFileSync(options, JSON.stringify(file));
  const script = path.join(__dirname, 'load-autocannon.ts');
  return runForLine(process.execPath, ['--import', 'tsx', script, options], file.seconds);
}

/**
 * Runs the generator and parses the JSON line it ends with. One still running well after its
 * `seconds` is stuck: it is killed, and the run fails.
 */
function runForLine(command: string, args: string[], seconds: number): Promise<LoadLine> {
  const child = spawn(command, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const stuck = setTimeout(() => child.kill('SIGKILL'), (seconds + 60) * 1000);
  let out = '';
  child.stdout.on('data', (chunk: Buffer) => void (out += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => void (out += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(stuck);
      const line = out.split('\n').findLast((l) => l.startsWith('{"requests"'));
      if (code === 0 && line) resolve(JSON.parse(line) as LoadLine);
      else reject(new Error(`${path.basename(command)} exited with ${code}:\n${out}`));
    });
  });
}

/**
 * The Lua script of one wrk run. Non-2xx answers come from wrk's own count of statuses above 399:
 * a response() function to count them would slow every request down.
 */
function wrkScript({ method, bodyFile, headers = {}, paths }: LoadFile): string {
  const lines = [`wrk.method = ${lua(method!)}`];
  for (const [name, value] of Object.entries(headers))
    lines.push(`wrk.headers[${lua(name)}] = ${lua(value)}`);
  if (bodyFile)
    lines.push(
      `local file = assert(io.open(${lua(bodyFile)}, "rb"))`,
      'wrk.body = file:read("*a")',
      'file:close()',
    );
  if (paths) {
    // Formatted once in init (wrk has set the Host header by then), then handed out in turn.
    lines.push(
      `local paths = { ${paths.map(lua).join(', ')} }`,
      'local formatted, turn = {}, 0',
      'function init(args)',
      '  for i, p in ipairs(paths) do formatted[i] = wrk.format(nil, p) end',
      'end',
      'function request()',
      '  turn = turn % #formatted + 1',
      '  return formatted[turn]',
      'end',
    );
  }
  lines.push(
    'function done(summary, latency, requests)',
    '  local e = summary.errors',
    '  io.write(string.format(',
    `    '{"requests":%d,"durationUs":%d,"p50Us":%d,"p99Us":%d,' ..`,
    `    '"errors":{"connect":%d,"read":%d,"write":%d,"timeout":%d,"status":%d}}\\n',`,
    '    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),',
    '    e.connect, e.read, e.write, e.timeout, e.status))',
    'end',
  );
  return `${lines.join('\n')}\n`;
}

/** A Lua string literal; these are paths and file names, so printable ASCII is all we need. */
function lua(text: string): string {
  if (!/^[\x20-\x7e]*$/.test(text)) throw new Error(`not printable ASCII: ${text}`);
  return `"${text.replace(/[\\"]/g, '\\$&')}"`;
}
