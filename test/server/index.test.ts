// The production entry point: listening, health, graceful shutdown and bad configuration,
// exercised on the built server in a child process with real signals.
import http from 'node:http';
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { openSqliteStore } from '../../server/store';
import { closedPort, startBackend, type TestBackend } from '../support/backend';
import { tempDataDir } from '../support/config';
import { mailTo } from '../support/site';
import { startSmtpServer } from '../../scripts/lib/launch/smtp';
import { until } from '../support/wait';
import { startServerProcess, type ServerProcess } from '../support/server-process';

let backend: TestBackend;
let server: ServerProcess | undefined;

beforeAll(async () => {
  backend = await startBackend();
});
afterAll(() => backend.close());
afterEach(() => {
  if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
  server = undefined;
});

/** A promise the backend's responder keeps once the site's request has reached it. */
function backendReached() {
  let arrived!: () => void;
  const reached = new Promise<void>((resolve) => (arrived = resolve));
  return { reached, arrived };
}

/** Does the server at `url` refuse a new connection? */
function refused(url: string): Promise<boolean> {
  return get(`${url}/healthz`).then(
    () => false,
    (err: NodeJS.ErrnoException) => err.code === 'ECONNREFUSED',
  );
}

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let body = '';
        res.on('data', (c) => (body += c));
        res.on('end', () => resolve({ status: res.statusCode!, body }));
      })
      .on('error', reject);
  });
}

describe('server entry point', () => {
  it('answers /healthz with 200 {"status":"ok","outbox":0}', async () => {
    server = await startServerProcess();
    const res = await get(`${server.url}/healthz`);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ status: 'ok', outbox: 0, version: expect.any(String) });
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'on %s lets an in-flight request finish, refuses new ones and exits 0',
    async (signal) => {
      let release!: () => void;
      const released = new Promise<void>((r) => (release = r));
      const waiting = backendReached();
      backend.respondWith(async (req, res) => {
        waiting.arrived();
        await released;
        res.status(201).json({ done: true });
      });
      server = await startServerProcess({ BACKEND_URL: backend.url });
      const inFlight = get(`${server.url}/api/slow`);
      await waiting.reached;
      server.child.kill(signal);
      await until('the server refuses new connections', () => refused(server!.url));
      release();
      await expect(inFlight).resolves.toEqual({ status: 201, body: '{"done":true}' });
      await expect(server.exited).resolves.toEqual({ code: 0, signal: null });
    },
  );

  // How soon it exits (before Docker's 10 s) is test/server/index-deadline.test.ts's check.
  it('on SIGTERM cuts off a request that does not finish, and exits 0', async () => {
    const waiting = backendReached();
    backend.respondWith(() => {
      waiting.arrived();
      return new Promise(() => {});
    });
    server = await startServerProcess({ BACKEND_URL: backend.url, UPSTREAM_TIMEOUT_MS: '60000' });
    const stalled = get(`${server.url}/api/stalled`);
    stalled.catch(() => {}); // awaited below, after the exit
    await waiting.reached;
    server.child.kill('SIGTERM');
    await expect(server.exited).resolves.toEqual({ code: 0, signal: null });
    expect(server.output()).toContain('"msg":"stopped"');
    // Cut off, not answered: the connection closed under it.
    await expect(stalled).rejects.toThrow();
  });

  /** Queues one signup: the backend refuses it (5xx or down), so the visitor gets 202. */
  async function queueSignup(url: string): Promise<void> {
    const form = new FormData();
    form.append('email', 'queued@example.org');
    expect((await fetch(`${url}/api/subscriptions`, { method: 'POST', body: form })).status).toBe(
      202,
    );
  }

  /** Reads the outbox as a second process would, beside the running server. */
  async function outboxIn(dataDir: string) {
    const store = openSqliteStore({ dataDir });
    try {
      return await store.outbox.all();
    } finally {
      void store.close();
    }
  }

  it('on SIGTERM keeps what the outbox could not deliver, and exits 0', async () => {
    const dataDir = tempDataDir();
    const down = `http://127.0.0.1:${await closedPort()}`;
    server = await startServerProcess({ BACKEND_URL: down, DATA_DIR: dataDir });
    await queueSignup(server.url);
    // The first retry is due about 2 s after the signup.
    await until(
      'the outbox worker has tried once',
      async () => (await outboxIn(dataDir))[0]?.attempts >= 1,
    );
    server.child.kill('SIGTERM');
    await expect(server.exited).resolves.toEqual({ code: 0, signal: null });
    expect(server.output()).toContain('"msg":"stopped"');
    const [item, ...others] = await outboxIn(dataDir);
    expect(others).toEqual([]);
    expect(item.request.fields).toEqual([
      ['email', 'queued@example.org'],
      ['description', ''],
    ]);
    expect(item.lastError).toBeTruthy();
  });

  it('on SIGTERM finishes an outbox delivery in flight before exiting, sending it once', async () => {
    const dataDir = tempDataDir();
    let release!: () => void;
    const released = new Promise<void>((r) => (release = r));
    let calls = 0;
    backend.respondWith(async (_req, res) => {
      // The signup itself is refused; the worker's retry waits until the test lets it through.
      if (++calls === 1) return res.status(503).json({ error: 'busy' });
      await released;
      res.status(201).json({ ok: true });
    });
    const before = backend.received.length;
    server = await startServerProcess({ BACKEND_URL: backend.url, DATA_DIR: dataDir });
    await queueSignup(server.url);
    await until('the outbox worker is sending the signup', () => calls === 2);
    server.child.kill('SIGTERM');
    await until('the server is shutting down', () =>
      server!.output().includes('"msg":"shutting down"'),
    );
    await new Promise((r) => setTimeout(r, 300)); // time in which an impatient server would exit
    expect(server.child.exitCode).toBeNull();
    release();
    await expect(server.exited).resolves.toEqual({ code: 0, signal: null });
    expect(await outboxIn(dataDir)).toEqual([]);
    const sent = backend.received.slice(before).map((r) => r.fields);
    expect(sent).toEqual([
      { email: 'queued@example.org', description: '' },
      { email: 'queued@example.org', description: '' },
    ]);
  });

  it('refuses to start on a bad setting, naming it, with exit code 1', () => {
    const result = spawnSync(
      process.execPath,
      [path.resolve(__dirname, '../../dist/server/index.js')],
      {
        env: { PATH: process.env.PATH, PORT: 'eighty' },
        encoding: 'utf8',
        timeout: 45_000, // a hang guard: a crowded machine takes seconds to start Node
      },
    );
    expect(result.status).toBe(1);
    expect(result.stderr).toContain('Invalid configuration');
    expect(result.stderr).toContain('PORT');
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'after 10 000 requests and a %s, the access log has a line for each of them',
    async (signal) => {
      server = await startServerProcess();
      // The log is written asynchronously (server/logger.ts): what is still buffered when the
      // signal comes must reach the output before the process ends.
      const agent = new http.Agent({ keepAlive: true, maxSockets: 20 });
      const paths = ['/', '/privacy', '/favicon.svg', '/robots.txt', '/assets/no-such-file.js'];
      let sent = 0;
      const statuses = new Map<number, number>();
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          while (sent < 10_000) {
            const url = `${server!.url}${paths[sent++ % paths.length]}`;
            const status = await new Promise<number>((resolve, reject) =>
              http
                .get(url, { agent }, (res) =>
                  res.resume().on('end', () => resolve(res.statusCode!)),
                )
                .on('error', reject),
            );
            statuses.set(status, (statuses.get(status) ?? 0) + 1);
          }
        }),
      );
      agent.destroy();
      server.child.kill(signal);
      await expect(server.exited).resolves.toEqual({ code: 0, signal: null });
      const lines = server
        .output()
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { msg: string; res?: { status: number } });
      const logged = lines.filter((line) => line.msg === 'request completed');
      expect(logged).toHaveLength(10_000);
      expect(statuses).toEqual(
        new Map([
          [200, 8_000],
          [404, 2_000],
        ]),
      );
      expect(logged.filter((line) => line.res?.status === 404)).toHaveLength(2_000);
      expect(lines.at(-1)?.msg).toBe('stopped');
    },
  );

  it('writes structured JSON request logs without query strings', async () => {
    server = await startServerProcess();
    await get(`${server.url}/activate?email=someone%40example.org`);
    await until('the request is logged', () => server!.output().includes('"path":"/activate"'));
    const lines = server
      .output()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const entry = lines.find((l) => l.req?.path === '/activate');
    expect(entry).toMatchObject({
      level: 30,
      req: { method: 'GET', path: '/activate' },
      res: { status: 200 },
    });
    expect(server.output()).not.toContain('example.org');
  });
});

describe('mail at start-up', () => {
  const SITE_URL = 'https://orgnote.example';
  const ENTRY = path.resolve(__dirname, '../../dist/server/index.js');

  /**
   * The built server started with `env` alone, as `docker run` would, until it exits; one that
   * starts listening instead is stopped, and fails the test.
   */
  async function refusal(env: Record<string, string>) {
    const child = spawn(process.execPath, [ENTRY], {
      env: { PATH: process.env.PATH, DATA_DIR: tempDataDir(), PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const output = { stdout: '', stderr: '' };
    child.stdout.on('data', (chunk: Buffer) => (output.stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
    let exitCode: number | null | undefined;
    // 'close', not 'exit': by then the output is all read.
    child.once('close', (code) => (exitCode = code));
    try {
      await until(
        'the server exits (or listens)',
        () => exitCode !== undefined || output.stdout.includes('OrgNote site listening'),
      );
    } finally {
      if (exitCode === undefined) child.kill('SIGKILL');
    }
    return { status: exitCode, stdout: output.stdout, lines: output.stderr.split('\n') };
  }

  /** The fields of the "OrgNote site listening" line. */
  function startupLine(started: ServerProcess): Record<string, unknown> {
    const line = started
      .output()
      .split('\n')
      .find((l) => l.includes('OrgNote site listening'));
    expect(line).toBeDefined();
    return JSON.parse(line!) as Record<string, unknown>;
  }

  async function signUp(url: string, email: string): Promise<void> {
    const form = new FormData();
    form.append('email', email);
    expect((await fetch(`${url}/api/subscriptions`, { method: 'POST', body: form })).status).toBe(
      201,
    );
  }

  it.each([
    ['CONFIRM_SIGNUPS', 'confirmation mail'],
    ['WELCOME_MAIL', 'welcome mail'],
  ])(
    'refuses %s=on without SMTP_URL in one line naming the fix, with exit code 1',
    async (setting, mail) => {
      const { status, stdout, lines } = await refusal({ SITE_URL, [setting]: 'on' });
      expect(status).toBe(1);
      expect(stdout).toBe('');
      // The header every configuration error has, the one line, and nothing else (no stack).
      expect(lines).toEqual(['Invalid configuration:', expect.any(String), '']);
      expect(lines[1]).toMatch(
        new RegExp(`^  ${setting}: on needs SMTP_URL \\(or SMTP_URL_FILE\\)`),
      );
      expect(lines[1]).toContain(mail);
      expect(lines[1]).toContain('DATA_DIR/mail');
      expect(lines[1]).toContain('set MAIL_TO_FILES=on if files are meant');
    },
  );

  it('refuses MAIL_TO_FILES=on beside SMTP_URL in one line, never printing the URL', async () => {
    const smtpUrl = 'smtp://mailer:files-s3cret@127.0.0.1:2525';
    const { status, lines } = await refusal({ MAIL_TO_FILES: 'on', SMTP_URL: smtpUrl });
    expect(status).toBe(1);
    expect(lines).toEqual([
      'Invalid configuration:',
      '  MAIL_TO_FILES: on keeps mail in DATA_DIR/mail instead of sending it, but SMTP_URL is ' +
        'set: unset one',
      '',
    ]);
  });

  it('with MAIL_TO_FILES=on, starts with confirmation on, says "files" and writes .eml files', async () => {
    const dataDir = tempDataDir();
    server = await startServerProcess({
      DATA_DIR: dataDir,
      SITE_URL,
      CONFIRM_SIGNUPS: 'on',
      MAIL_TO_FILES: 'on',
    });
    expect(startupLine(server)).toMatchObject({ api: 'embedded', mail: 'files' });
    await signUp(server.url, 'files@example.org');
    await until(
      'the confirmation is written as an .eml file',
      async () => (await mailTo({ dataDir }, 'files@example.org')).length === 1,
    );
    const [confirmation] = await mailTo({ dataDir }, 'files@example.org');
    expect(confirmation.text).toContain(`${SITE_URL}/confirm?token=`);
  });

  it('with SMTP_URL, says "smtp" and sends, never printing the URL or its password', async () => {
    // Credentials as relays hand them out: a Mailgun user is an address, an Amazon SES password
    // holds '/' and '+'. The URL carries them percent-encoded, as .env.example says.
    const auth = { user: 'postmaster@mg.orgnote.example', pass: 'BNx/st4rtup+s3cret' };
    const smtp = await startSmtpServer({ auth });
    expect(smtp.url).toContain('postmaster%40mg.orgnote.example:BNx%2Fst4rtup%2Bs3cret@');
    try {
      server = await startServerProcess({ SITE_URL, CONFIRM_SIGNUPS: 'on', SMTP_URL: smtp.url });
      expect(startupLine(server)).toMatchObject({ api: 'embedded', mail: 'smtp' });
      await signUp(server.url, 'relay@example.org');
      const [confirmation] = await smtp.waitFor(1);
      expect(confirmation.envelope.to).toEqual(['relay@example.org']);
      expect(server.output()).not.toMatch(/st4rtup|postmaster/);
    } finally {
      await smtp.close();
    }
  });

  it('with BACKEND_URL, starts with confirmation on and no SMTP_URL, and says "off"', async () => {
    // The backend owns the signups: the site itself mails no confirmation, so nothing is refused.
    server = await startServerProcess({
      BACKEND_URL: backend.url,
      SITE_URL,
      CONFIRM_SIGNUPS: 'on',
    });
    expect(startupLine(server)).toMatchObject({ api: 'proxy', mail: 'off' });
  });
});
