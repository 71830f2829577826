// Commands against the image test's private Docker engine (scripts/docker/engine.sh), run as an
// operator types them: a shell command string, DOCKER_HOST set, and the few names a test must
// change (a port, an image tag) substituted. A README or runbook test can reuse `sh` as it is.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const ROOT = path.resolve(__dirname, '../..');
export const DOCKER_HOST = 'unix:///run/orgnote-ci-docker.sock';
/** What the global setup builds from the Dockerfile; the README's own name is orgnote-site. */
export const IMAGE = 'orgnote-ci-site';
/** The environment variable of the commit the global setup built IMAGE from. */
export const BUILT_REVISION = 'ORGNOTE_IMAGE_TEST_REVISION';
/** package.json's version: the global setup's image is IMAGE:VERSION too, as a release is. */
export const VERSION = (
  JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
    version: string;
  }
).version;
/** The classic builder: BuildKit is a separate component the Debian engine may lack. */
export const ENGINE_ENV = { DOCKER_HOST, DOCKER_BUILDKIT: '0' };

export interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

export interface ShellOptions {
  cwd?: string;
  input?: string;
  env?: Record<string, string>;
  /** Each key found in the command is replaced by its value (e.g. `orgnote-site` -> a test tag). */
  substitutions?: Record<string, string>;
  timeoutMs?: number;
}

/** Runs `command` with bash; never throws: the caller checks what it must. */
export function sh(command: string, options: ShellOptions = {}): Run {
  let line = command;
  for (const [from, to] of Object.entries(options.substitutions ?? {})) {
    line = line.split(from).join(to);
  }
  const result = spawnSync('bash', ['-c', line], {
    cwd: options.cwd ?? ROOT,
    input: options.input,
    env: { ...process.env, ...ENGINE_ENV, ...options.env },
    encoding: 'utf8',
    timeout: options.timeoutMs ?? 120_000,
    maxBuffer: 64 * 1024 * 1024,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Runs `docker <args>` and returns its output; throws with Docker's message when it fails. */
export function docker(args: string[], options: ShellOptions = {}): string {
  const quoted = args.map((arg) => `'${arg.replace(/'/g, `'\\''`)}'`).join(' ');
  const result = sh(`docker ${quoted}`, options);
  if (result.status !== 0) {
    throw new Error(`docker ${args.join(' ')} exited ${result.status}: ${result.stderr.trim()}`);
  }
  return result.stdout.trim();
}

/** Removes the containers, volumes and networks whose names start with `prefix`. */
export function removeAll(prefix: string): void {
  sh(`docker ps -aq --filter name=^${prefix} | xargs -r docker rm -f`);
  sh(`docker volume ls -q --filter name=^${prefix} | xargs -r docker volume rm -f`);
  sh(`docker network ls -q --filter name=^${prefix} | xargs -r docker network rm`);
}

/** A build on a cold cache: npm ci twice, and the build. */
export const BUILD_TIMEOUT_MS = 10 * 60_000;

/**
 * The image an earlier commit's own checkout builds (`git archive` of it, its own Dockerfile),
 * kept under a tag naming the commit: later runs reuse it, as they reuse the base images.
 */
export function imageOfCommit(commit: string): string {
  const image = `orgnote-ci-site:${commit.slice(0, 12)}`;
  if (sh(`docker image inspect ${image}`).status === 0) return image;
  const context = fs.mkdtempSync(path.join(os.tmpdir(), 'orgnote-ci-commit-'));
  try {
    const archive = sh(`git archive ${commit} | tar -x -C ${context}`);
    if (archive.status !== 0) {
      throw new Error(`git archive ${commit} (a shallow clone lacks it): ${archive.stderr}`);
    }
    const source = `SOURCE_COMMIT=${commit.slice(0, 7)}`;
    const build = ['build', '--quiet', '--network', 'host', '--build-arg', source];
    docker([...build, '--tag', image, context], { timeoutMs: BUILD_TIMEOUT_MS });
    return image;
  } finally {
    fs.rmSync(context, { recursive: true, force: true });
  }
}
