// Valid HTML: the Nu Html Checker (vnu) finds no error in the documents the production server
// sends: the three pages, the 404 page, the no-JavaScript form's error page, and the address pages
// in each of their states. One checker run for all, since each start of its JVM costs
// seconds.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from '../../scripts/lib/launch/ports';
import { tempDataDir } from '../support/config';
import { rawRequest } from '../support/http';
import { startServerProcess, type ServerProcess } from '../support/server-process';
import { mailedTo } from '../support/site';

// The package's main export is the path of the jar (vnu-jar is CommonJS).
// eslint-disable-next-line @typescript-eslint/no-require-imports -- CommonJS, see above
const VNU_JAR = String(require('vnu-jar'));

interface VnuMessage {
  type: string;
  url?: string;
  lastLine?: number;
  firstColumn?: number;
  message: string;
  extract?: string;
}

/** The links mailed to the address that joins in beforeAll. */
const links = { confirm: '', leave: '' };
const tokenOf = (link: string) => new URL(link, 'http://site.test').searchParams.get('token')!;

// Fetched in this order: a link is looked at before its button uses it.
const documents: {
  name: string;
  path: string | (() => string);
  status: number;
  body?: string | (() => string);
}[] = [
  { name: '/', path: '/', status: 200 },
  { name: '/activate', path: '/activate', status: 200 },
  { name: '/privacy', path: '/privacy', status: 200 },
  { name: 'the 404 page', path: '/no-such-page', status: 404 },
  // What a browser without JavaScript gets back for an invalid email (no Origin, like a native
  // form).
  {
    name: "the no-JavaScript form's error page",
    path: '/?index',
    status: 400,
    body: 'email=not-an-email&description=',
  },
  { name: 'a confirmation link', path: () => links.confirm, status: 200 },
  {
    name: 'the confirmed page',
    path: '/confirm',
    status: 200,
    body: () => `token=${tokenOf(links.confirm)}`,
  },
  { name: 'a refused link', path: '/confirm?token=bad', status: 400 },
  { name: 'a leave link', path: () => links.leave, status: 200 },
  {
    name: 'the page after leaving',
    path: () => links.leave,
    status: 200,
    body: () => `token=${tokenOf(links.leave)}&List-Unsubscribe=One-Click`,
  },
  { name: '/leave', path: '/leave', status: 200 },
  { name: "/leave's answer", path: '/leave', status: 200, body: 'email=nobody%40example.org' },
  {
    name: "/leave with the field's error",
    path: '/leave',
    status: 400,
    body: 'email=zoe%40example',
  },
  {
    name: "/privacy's data request answered",
    path: '/privacy',
    status: 200,
    body: 'email=nobody%40example.org',
  },
  {
    name: "/privacy's data request with the field's error",
    path: '/privacy',
    status: 400,
    body: 'email=zoe%40example',
  },
  { name: 'the data link page', path: '/privacy/data', status: 200 },
  { name: 'a refused data link', path: '/privacy/data', status: 400, body: 'token=bad' },
];

let server: ServerProcess;
const statuses = new Map<string, number>();
const errors = new Map<string, string[]>();

/**
 * Runs vnu over the files; it exits non-zero when it finds errors, so its JSON report is what
 * counts.
 */
function vnu(files: string[]): Promise<VnuMessage[]> {
  return new Promise((resolve, reject) => {
    execFile(
      'java',
      // One short run: the client compiler only and one GC thread take under half the CPU of the
      // JVM's defaults (1.8 s against 4.5 s here). Its code needs a deeper stack than the
      // default for the checker's schema (512k at least).
      ['-Xss4m', '-XX:TieredStopAtLevel=1', '-XX:+UseSerialGC', '-jar', VNU_JAR].concat([
        '--format',
        'json',
        '--errors-only',
        ...files,
      ]),
      { maxBuffer: 16 * 1024 * 1024 },
      (error, _stdout, stderr) => {
        try {
          resolve((JSON.parse(stderr) as { messages: VnuMessage[] }).messages);
        } catch {
          reject(error ?? new Error(`vnu printed no JSON report:\n${stderr}`));
        }
      },
    );
  });
}

const form = { accept: 'text/html', 'content-type': 'application/x-www-form-urlencoded' };

beforeAll(async () => {
  // A site that stores and confirms signups itself, so the address pages' links come from its mail.
  const port = await freePort();
  const dataDir = tempDataDir();
  server = await startServerProcess({
    LOG_LEVEL: 'warn',
    PORT: String(port),
    SITE_URL: `http://127.0.0.1:${port}`,
    CONFIRM_SIGNUPS: 'on',
    MAIL_TO_FILES: 'on',
    DATA_DIR: dataDir,
  });
  await rawRequest(port, '/?index', form, 'POST', 'email=vnu%40example.org&description=me');
  const mail = await mailedTo({ dataDir }, 'vnu@example.org');
  // Requested through the port, so by their path and query.
  const local = (link: string) => new URL(link).pathname + new URL(link).search;
  Object.assign(links, { confirm: local(mail.confirmLink!), leave: local(mail.leaveLink!) });

  const dir = tempDataDir();
  const files: string[] = [];
  for (const [i, doc] of documents.entries()) {
    const at = typeof doc.path === 'function' ? doc.path() : doc.path;
    const body = typeof doc.body === 'function' ? doc.body() : doc.body;
    const res = await rawRequest(
      server.port,
      at,
      body === undefined ? { accept: 'text/html' } : form,
      body === undefined ? 'GET' : 'POST',
      body,
    );
    statuses.set(doc.name, res.status);
    const file = path.join(dir, `document-${i}.html`);
    fs.writeFileSync(file, res.body);
    files.push(file);
  }
  const messages = await vnu(files);
  documents.forEach((doc, i) => {
    const mine = messages.filter((m) => m.url && path.basename(m.url) === path.basename(files[i]));
    errors.set(
      doc.name,
      // Errors, and a file it could not check at all (a non-document-error).
      mine
        .filter((m) => m.type !== 'info')
        .map(
          (m) =>
            `${m.type} at ${m.lastLine}:${m.firstColumn}: ${m.message} in ${JSON.stringify(m.extract)}`,
        ),
    );
  });
  // A message tied to no file (the checker itself failing) must not pass as "no errors".
  const unplaced = messages.filter(
    (m) => !files.some((f) => m.url && path.basename(m.url) === path.basename(f)),
  );
  expect(unplaced).toEqual([]);
  // A hang guard over a built server's start, its mail, and a Java checker's start-up and run, each
  // awaited as it ends: on a loaded machine these together pass Jest's 60 s.
}, 180_000);

afterAll(async () => {
  server?.child.kill('SIGTERM');
  await server?.exited;
});

describe('the Nu Html Checker', () => {
  it.each(documents)('reports no error on $name', ({ name, status }) => {
    expect(statuses.get(name)).toBe(status);
    expect(errors.get(name)).toEqual([]);
  });
});
