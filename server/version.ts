// Which release this process runs: the version of package.json and the commit it was built from,
// for build_info, /healthz and `waitlist --version`. scripts/build.ts embeds both in the bundle
// (SITE_BUILD, an esbuild define), so the image needs neither git nor package.json to know them;
// a tsx run (development, tests) reads them from the checkout instead.
import { execFileSync, type ExecFileSyncOptionsWithStringEncoding } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

export interface BuildInfo {
  version: string;
  /** A short commit hash, or 'unknown' when the build could not tell. */
  commit: string;
}

declare const SITE_BUILD: BuildInfo | undefined;

/** The checkout: the nearest folder with a package.json above this file (server/, dist/server/). */
function checkoutRoot(): string {
  let dir = path.dirname(__dirname);
  const isRoot = (folder: string) => fs.existsSync(path.join(folder, 'package.json'));
  while (!isRoot(dir) && path.dirname(dir) !== dir) dir = path.dirname(dir);
  return dir;
}

/**
 * The build of the checkout at `root`: the commit given (SOURCE_COMMIT), else git's HEAD, else
 * HEAD read from `.git`'s files (an image build has them, .dockerignore, but no git), else
 * 'unknown'.
 */
export function describeBuild(root: string, sourceCommit?: string): BuildInfo {
  const manifest = fs.readFileSync(path.join(root, 'package.json'), 'utf8');
  const { version } = JSON.parse(manifest) as { version: string };
  const commit = sourceCommit?.trim() || headCommit(root) || headFromFiles(root) || 'unknown';
  return { version, commit };
}

const SHORT = 7;
const HASH = /^[0-9a-f]{40}$/;

/**
 * HEAD as git stores it: a hash (detached, a release tag checked out), or `ref: refs/heads/x`,
 * whose hash is in its own file or in packed-refs. Anything else is no answer.
 */
export function headFromFiles(root: string): string | undefined {
  const git = path.join(root, '.git');
  const read = (file: string) => {
    try {
      return fs.readFileSync(path.join(git, file), 'utf8');
    } catch {
      return undefined;
    }
  };
  const head = read('HEAD')?.trim();
  if (!head) return undefined;
  if (HASH.test(head)) return head.slice(0, SHORT);
  const ref = /^ref: (refs\/[\w./-]+)$/.exec(head)?.[1];
  if (!ref || ref.includes('..')) return undefined;
  const loose = read(ref)?.trim();
  if (loose && HASH.test(loose)) return loose.slice(0, SHORT);
  const packed = read('packed-refs')
    ?.split('\n')
    .map((line) => line.split(' '))
    .find(([hash, name]) => name === ref && HASH.test(hash));
  return packed?.[0].slice(0, SHORT);
}

function headCommit(root: string): string | undefined {
  if (!fs.existsSync(path.join(root, '.git'))) return undefined;
  try {
    const options: ExecFileSyncOptionsWithStringEncoding = {
      cwd: root,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    };
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], options).trim() || undefined;
  } catch {
    // No git on PATH, or a checkout git cannot read: the build is still a build.
    return undefined;
  }
}

let fromCheckout: BuildInfo | undefined;

/** This process's build: embedded at build time, or read once from the checkout. */
export function currentBuild(): BuildInfo {
  if (typeof SITE_BUILD !== 'undefined') return SITE_BUILD;
  fromCheckout ??= describeBuild(checkoutRoot());
  return fromCheckout;
}
