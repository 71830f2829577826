// Starts the private engine, makes the base images offline (scripts/docker/base-images.sh) and
// builds the image from the Dockerfile as an operator does (classic builder, the registry
// reached through the host's network). Whatever fails here stops the engine again.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { BUILT_REVISION, ENGINE_ENV, IMAGE, ROOT, VERSION, removeAll, sh } from './docker';

export const ENGINE = path.join(ROOT, 'scripts/docker/engine.sh');
export const STARTED_ENGINE = 'ORGNOTE_IMAGE_TEST_STARTED_ENGINE';
/** The Dockerfile's dependency stages, kept from one run to the next. */
const STAGE = `${IMAGE}-stage`;

function step(what: string, command: string): void {
  const started = Date.now();
  const result = spawnSync('bash', ['-c', command], {
    cwd: ROOT,
    env: { ...process.env, ...ENGINE_ENV },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (result.status !== 0) throw new Error(`image test setup: ${what} failed (${command})`);
  console.log(`image test setup: ${what} took ${Math.round((Date.now() - started) / 1000)} s`);
}

export default function globalSetup(): void {
  const wasRunning = sh(`${ENGINE} status`).status === 0;
  step('the engine', `${ENGINE} start`);
  if (!wasRunning) process.env[STARTED_ENGINE] = '1';
  try {
    // What a run killed half-way left behind.
    removeAll('orgnote-ci-');
    step('the base images', 'scripts/docker/base-images.sh all');
    // The release script, as a release is built: labelled, tagged IMAGE:<version>, and IMAGE.
    // The commit it builds goes to the tests, which may run after another commit was made.
    process.env[BUILT_REVISION] = sh('git rev-parse HEAD').stdout.trim();
    const release = `ORGNOTE_IMAGE=${IMAGE} scripts/release.sh -- --quiet --network host`;
    step('the image', `${release} --tag ${IMAGE}`);
    // The same arguments, so that the stages below come from the cache.
    const commit = process.env[BUILT_REVISION].slice(0, 7);
    const build =
      `docker build --quiet --network host --build-arg SOURCE_COMMIT=${commit} ` +
      `--build-arg ORGNOTE_VERSION=${VERSION}`;
    // Except the layers under these tags: the next run's build reinstalls no dependency unless
    // the lockfile changed. A new run's tags leave the last run's stages to the prune.
    for (const stage of ['build', 'prod-deps']) {
      step(`the ${stage} stage tag`, `${build} --target ${stage} --tag ${STAGE}:${stage} .`);
    }
  } catch (err) {
    if (!wasRunning) sh(`${ENGINE} stop`);
    throw err;
  }
}
