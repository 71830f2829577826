// `npm run dev` as a new user runs it on a fresh clone: it builds the client and the server (with
// the workers' URLs as the production build resolves them), serves the site, and after an edit to
// a page rebuilds both and serves the new text. It runs in a copy of the tree, since it clears
// dist/ and leaves a development build there.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { freePort } from '../../scripts/lib/launch/ports';
import { tempDataDir } from '../support/config';
import { rawRequest } from '../support/http';
import { until } from '../support/wait';

const ROOT = path.resolve(__dirname, '../..');
const TREE = ['client', 'server', 'shared', 'scripts', 'public', 'package.json', 'tsconfig.json'];
// The page's words live in its catalog part (shared/messages/en/privacy.ts), in its lazy chunk.
const PAGE = 'shared/messages/en/privacy.ts';

let dev: ChildProcess | undefined;
let exited: Promise<unknown> | undefined;
afterEach(async () => {
  dev?.kill('SIGTERM');
  await exited;
});

/** The sources and settings of the checkout, with its node_modules, in a folder of its own. */
function copyOfTree(): string {
  const copy = tempDataDir();
  for (const entry of TREE)
    fs.cpSync(path.join(ROOT, entry), path.join(copy, entry), { recursive: true });
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'));
  return copy;
}

async function get(port: number, target: string): Promise<{ status: number; body: string }> {
  try {
    const res = await rawRequest(port, target);
    return { status: res.status, body: res.body.toString('utf8') };
  } catch {
    return { status: 0, body: '' };
  }
}

it('serves a fresh tree, and serves a page edited while it runs from both new bundles', async () => {
  const copy = copyOfTree();
  const port = await freePort();
  let output = '';
  dev = spawn(
    process.execPath,
    [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'scripts/dev.ts'],
    {
      cwd: copy,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: path.join(copy, 'data'),
        LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  dev.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  dev.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  exited = new Promise((resolve) => dev!.once('exit', resolve));
  const running = () => {
    if (dev!.exitCode !== null) throw new Error(`npm run dev exited:\n${output}`);
    return true;
  };

  let page = await get(port, '/privacy');
  await until(
    'the dev server serves /privacy',
    async () => running() && (page = await get(port, '/privacy')).status === 200,
    60_000,
  );
  expect(page.body).toContain('<h1 id="privacy-title">Privacy</h1>');
  expect(output).not.toMatch(/error/i);

  const source = path.join(copy, PAGE);
  const edited = fs
    .readFileSync(source, 'utf8')
    .replace("heading_: 'Privacy',", "heading_: 'Privacy, edited',");
  expect(edited).toContain('Privacy, edited');
  fs.writeFileSync(source, edited);
  await until(
    'the server renders the edited page',
    async () => running() && (page = await get(port, '/privacy')).body.includes('Privacy, edited'),
    60_000,
  );
  // The client's scripts (the page's, and the chunks they import) carry the new text too, so
  // hydration matches.
  const pending = [...page.body.matchAll(/\/assets\/([\w.-]+\.js)/g)].map((m) => m[1]);
  const seen = new Set<string>();
  let inClient = false;
  while (pending.length > 0 && !inClient) {
    const name = pending.pop()!;
    if (seen.has(name)) continue;
    seen.add(name);
    const script = await get(port, `/assets/${name}`);
    inClient = script.body.includes('Privacy, edited');
    pending.push(...[...script.body.matchAll(/\b((?:chunk|entry)-\w+\.js)/g)].map((m) => m[1]));
  }
  expect(inClient).toBe(true);
}, 150_000);
