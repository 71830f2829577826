// Valid HTML: the Nu Html Checker (vnu) finds no error in the documents the production server
// sends: the three pages, the 404 page and the no-JavaScript form's error page. One checker run
// for all five, since each start of its JVM costs seconds.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { tempDataDir } from '../support/config';
import { rawRequest } from '../support/http';
import { startServerProcess, type ServerProcess } from '../support/server-process';

// The package's main export is the path of the jar.
// eslint-disable-next-line @typescript-eslint/no-require-imports -- vnu-jar is CommonJS whose export is the jar's path
const VNU_JAR = String(require('vnu-jar'));

interface VnuMessage {
  type: string;
  url?: string;
  lastLine?: number;
  firstColumn?: number;
  message: string;
  extract?: string;
}

const documents = [
  { name: '/', path: '/', status: 200 },
  { name: '/activate', path: '/activate', status: 200 },
  { name: '/privacy', path: '/privacy', status: 200 },
  { name: 'the 404 page', path: '/no-such-page', status: 404 },
  // What a browser without JavaScript gets back for an invalid email (no Origin, like a native form).
  { name: "the no-JavaScript form's error page", path: '/?index', status: 400, body: 'email=not-an-email&description=' },
];

let server: ServerProcess;
const statuses = new Map<string, number>();
const errors = new Map<string, string[]>();

/** Runs vnu over the files; it exits non-zero when it finds errors, so its JSON report is what counts. */
function vnu(files: string[]): Promise<VnuMessage[]> {
  return new Promise((resolve, reject) => {
    execFile('java', ['-jar', VNU_JAR, '--format', 'json', '--errors-only', ...files], { maxBuffer: 16 * 1024 * 1024 }, (error, _stdout, stderr) => {
      try {
        resolve((JSON.parse(stderr) as { messages: VnuMessage[] }).messages);
      } catch {
        reject(error ?? new Error(`vnu printed no JSON report:\n${stderr}`));
      }
    });
  });
}

beforeAll(async () => {
  server = await startServerProcess({ LOG_LEVEL: 'warn' });
  const dir = tempDataDir();
  const files = await Promise.all(
    documents.map(async (doc, i) => {
      const headers: Record<string, string> = { accept: 'text/html' };
      if (doc.body) headers['content-type'] = 'application/x-www-form-urlencoded';
      const res = await rawRequest(server.port, doc.path, headers, doc.body ? 'POST' : 'GET', doc.body);
      statuses.set(doc.name, res.status);
      const file = path.join(dir, `document-${i}.html`);
      fs.writeFileSync(file, res.body);
      return file;
    }),
  );
  const messages = await vnu(files);
  documents.forEach((doc, i) => {
    const mine = messages.filter((m) => m.url && path.basename(m.url) === path.basename(files[i]));
    errors.set(
      doc.name,
      // Errors, and a file it could not check at all (a non-document-error).
      mine.filter((m) => m.type !== 'info').map((m) => `${m.type} at ${m.lastLine}:${m.firstColumn}: ${m.message} in ${JSON.stringify(m.extract)}`),
    );
  });
  // A message tied to no file (the checker itself failing) must not pass as "no errors".
  const unplaced = messages.filter((m) => !files.some((f) => m.url && path.basename(m.url) === path.basename(f)));
  expect(unplaced).toEqual([]);
}, 20_000);

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
