// A production build of an earlier commit beside the current one, so a benchmark compares both on
// the same machine in the same run rather than against a figure from another day. The commit's
// files come from git (git archive), its dependencies are this checkout's node_modules (a link),
// and it is built with its own scripts/build.ts into its own dist/.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../../lib/root';

/**
 * The last commit before the store's rules were written once. BENCH_BASELINE names
 * another commit or tag.
 */
export const DEFAULT_BASELINE = '9a6e012';

export interface BaselineBuild {
  ref: string;
  /** The folder to run `dist/server/index.js` from. */
  root: string;
  remove(): void;
}

export function buildBaseline(ref = process.env.BENCH_BASELINE || DEFAULT_BASELINE): BaselineBuild {
  const commit = execFileSync('git', ['rev-parse', '--short', `${ref}^{commit}`], {
    cwd: ROOT,
    encoding: 'utf8',
  }).trim();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), `orgnote-baseline-${commit}-`));
  const remove = () => fs.rmSync(root, { recursive: true, force: true });
  try {
    execFileSync(
      'sh',
      ['-c', `git -C "${ROOT}" archive --format=tar ${commit} | tar -x -C "${root}"`],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'), 'dir');
    execFileSync(
      process.execPath,
      [path.join(ROOT, 'node_modules/tsx/dist/cli.mjs'), 'scripts/build.ts'],
      {
        cwd: root,
        stdio: ['ignore', 'ignore', 'inherit'],
      },
    );
  } catch (err) {
    remove();
    throw err;
  }
  return { ref: commit, root, remove };
}
