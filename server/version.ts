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
 * The build of the checkout at `root`: the commit given (SOURCE_COMMIT: an image is built without
 * .git), else git's HEAD, else 'unknown'.
 */
export function describeBuild(root: string, sourceCommit?: string): BuildInfo {
  const manifest = fs.readFileSync(path.join(root, 'package.json'), 'utf8');
  const { version } = JSON.parse(manifest) as { version: string };
  return { version, commit: sourceCommit?.trim() || headCommit(root) || 'unknown' };
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
