// Where things are on disk. The server runs from TypeScript sources (tests, tsx) and from the
// esbuild bundle in dist/server (npm start, Docker); both find the project root by walking up
// to package.json, so the same paths work in either.
import fs from 'node:fs';
import path from 'node:path';

function findProjectRoot(start: string): string {
  let dir = start;
  while (!fs.existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) return process.cwd();
    dir = parent;
  }
  return dir;
}

const PROJECT_ROOT = findProjectRoot(__dirname);
export const PUBLIC_DIR = path.join(PROJECT_ROOT, 'public');
export const CLIENT_BUILD_DIR = path.join(PROJECT_ROOT, 'dist', 'client');
export const ASSETS_DIR = path.join(CLIENT_BUILD_DIR, 'assets');
export const MANIFEST_PATH = path.join(CLIENT_BUILD_DIR, 'manifest.json');
/** URL prefix of the content-hashed build output. */
export const ASSETS_URL_PREFIX = '/assets';
