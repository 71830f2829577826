// An upgrade from an earlier release's image, as docs/operating.md's Upgrade section does it with
// the same volume: the volume that image made (its /data 0755, as its Dockerfile made /data) keeps
// its signups with today's image, which starts, writes, and takes group and others off /data.
// The earlier image is built as its own checkout would build it (`git archive` of its commit) and
// kept under a tag naming the commit: later runs reuse it, as they reuse the base images.
import { releasePort, reservePort } from '../../scripts/lib/launch/ports';
import { until } from '../support/wait';
import { BUILD_TIMEOUT_MS, IMAGE, docker, imageOfCommit, removeAll } from './docker';
import { answers, signUp, type Target } from './visitor';

/** The last commit whose image made /data 0755. */
const EARLIER = '13170964709504617d6ec6c6d998967e9d876a93';

/** Its image, once the setup has built it (or found it built). */
let EARLIER_IMAGE: string;

const NAME = 'orgnote-ci-upgrade';
const VOLUME = `${NAME}-data`;
const NETWORK = `${NAME}-net`;
const port = reservePort(30000, 32000);
const site: Target = { base: `http://127.0.0.1:${port}` };

/** The Docker section's container of `image`, on the volume, once it is ready. */
async function runSite(image: string): Promise<void> {
  const run = ['run', '--detach', '--name', NAME, '--read-only', '--tmpfs', '/tmp'];
  const published = ['-p', `127.0.0.1:${port}:3000`, '--network', NETWORK];
  docker([...run, '-v', `${VOLUME}:/data`, ...published, image]);
  await until(`${image} answers /readyz`, () => answers(site, '/readyz'), 60_000);
}

const dataFolder = () => docker(['exec', NAME, 'stat', '-c', '%a %U', '/data']);

beforeAll(() => {
  removeAll(NAME);
  EARLIER_IMAGE = imageOfCommit(EARLIER);
  docker(['network', 'create', NETWORK]);
}, BUILD_TIMEOUT_MS);

afterAll(() => {
  removeAll(NAME);
  releasePort(port);
});

it('keeps the signups of the earlier image volume, writes, and makes /data 0700', async () => {
  await runSite(EARLIER_IMAGE);
  await signUp(site, 'before-upgrade@example.org');
  // The case at hand: the earlier image gave its new volume a /data that anyone may list.
  expect(dataFolder()).toBe('755 node');
  docker(['stop', NAME]);
  docker(['rm', NAME]);

  await runSite(IMAGE);
  expect(dataFolder()).toBe('700 node');
  expect(docker(['exec', NAME, 'waitlist', 'list'])).toContain('before-upgrade@example.org');
  await signUp(site, 'after-upgrade@example.org');
  expect(docker(['exec', NAME, 'waitlist', 'count'])).toBe('2');
});
