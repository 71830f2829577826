// What the chaos run stands on: a throwaway PostgreSQL server (scripts/lib/launch/postgres.ts),
// its schema and one console account made with the built CLI as an operator would, the mail
// listeners, and the three replicas' settings. Ports come from the scripts' band (SCRIPT_PORTS).
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { releasePort, reservePort, SCRIPT_PORTS } from '../lib/launch/ports';
import { startPostgres, type PostgresServer } from '../lib/launch/postgres';
import { ROOT } from '../lib/root';
import { startMailSink, type MailSink } from './mail-sink';
import { replica, type Replica } from './replicas';

export const REPLICAS = 3;

export const OPERATOR = { email: 'ops@example.org', password: 'correct horse battery staple' };
/**
 * A mail claim is held 3 × this + 5 s (20 s): short enough that a claim a kill left behind runs
 * out, and its mail goes out again, within the run.
 */
export const SMTP_TIMEOUT_MS = 5_000;

export interface Setup {
  folder: string;
  postgres: PostgresServer;
  databaseUrl: string;
  sink: MailSink;
  replicas: Replica[];
  /** Reserved for the run (the mail listeners', then the replicas'), released at its end. */
  ports: number[];
}

/**
 * Builds everything; `started` is told of each part as it comes up, so Ctrl-C during set-up still
 * stops what exists.
 */
export async function setUp(started: (part: Partial<Setup>) => void): Promise<Setup> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'orgnote-chaos-'));
  started({ folder });
  const postgres = await startPostgres();
  started({ postgres });
  const databaseUrl = await postgres.createDatabase();
  const cliData = path.join(folder, 'cli');
  fs.mkdirSync(cliData, { mode: 0o700 });
  const env = { DATABASE_URL: databaseUrl, DATA_DIR: cliData };
  await cli(env, ['migrate']);
  await cli(env, ['admin', 'add', OPERATOR.email], OPERATOR.password);

  const smtpPorts = Array.from({ length: REPLICAS }, () => reservePort(...SCRIPT_PORTS));
  const sitePorts = Array.from({ length: REPLICAS }, () => reservePort(...SCRIPT_PORTS));
  started({ ports: [...smtpPorts, ...sitePorts] });
  const sink = await startMailSink(smtpPorts);
  started({ sink });
  const replicas = smtpPorts.map((smtpPort, i) =>
    replica(i, sitePorts[i], folder, {
      DATABASE_URL: databaseUrl,
      // Where the mails' links point; every replica has the same (a load balancer's address).
      SITE_URL: `http://127.0.0.1:${sitePorts[0]}`,
      CONFIRM_SIGNUPS: 'on',
      SMTP_URL: `smtp://127.0.0.1:${smtpPort}`,
      SMTP_TIMEOUT_MS: String(SMTP_TIMEOUT_MS),
      MAIL_FROM: 'OrgNote <no-reply@orgnote.example>',
      // The load comes from one address; the limit is not what this run is about.
      SIGNUP_RATE_LIMIT: '0',
      LOG_LEVEL: 'warn',
    }),
  );
  started({ replicas });
  await Promise.all(replicas.map((r) => r.start()));
  return { folder, postgres, databaseUrl, sink, replicas, ports: [...smtpPorts, ...sitePorts] };
}

/** Stops whatever of the set-up exists; the folder (logs) is kept when `keep` is set. */
export async function tearDown(parts: Partial<Setup>, keep: boolean): Promise<void> {
  await Promise.allSettled((parts.replicas ?? []).map((r) => r.stop()));
  await parts.sink?.close();
  await parts.postgres?.close();
  for (const port of parts.ports ?? []) releasePort(port);
  if (parts.folder && !keep) fs.rmSync(parts.folder, { recursive: true, force: true });
}

/** The built CLI (`waitlist …`) on the run's database; rejects with its output on failure. */
function cli(env: Record<string, string>, args: string[], input?: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [path.join(ROOT, 'dist/server/waitlist.js'), ...args],
      { env: { PATH: process.env.PATH, ...env } },
      (err, stdout, stderr) =>
        err ? reject(new Error(`waitlist ${args.join(' ')}: ${stdout}${stderr}`)) : resolve(),
    );
    child.stdin?.end(input ?? '');
  });
}
