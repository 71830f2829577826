// Four projects: server (node), client components (jsdom), the browser suite (real Chromium), and
// the few checks of how long something takes (timed), which `npm test` (scripts/test.ts) runs
// last and alone. TypeScript goes through @swc/jest. Only the projects that need the production
// build make it (test/support/build-setup.ts), and Jest runs a project's global setup only when
// the project has tests to run: `jest --selectProjects client` never builds.
//
// ORGNOTE_TEST_QUICK=1 (`npm run test:quick`) leaves out whatever needs Chromium, PostgreSQL, a
// container engine or a proxy server, and the timed project; the database fixtures then run the
// SQLite half of each contract only.

const quick = process.env.ORGNOTE_TEST_QUICK === '1';

/**
 * Files whose checks time what a server or the store does against a budget they set themselves.
 * They run after everything else, one at a time, so the crowd a file sees is its own.
 */
const TIMED = [
  // The store's time budgets and its margin for a wait on the pool (PostgreSQL).
  'test/server/store/postgres-store.test.ts',
  // A mail lease renewed every 500 ms, which a second replica must never see run out.
  'test/server/mail/slow-server.test.ts',
  // The rate limit's 500 ms budget for PostgreSQL's count, past which a replica counts alone.
  'test/server/replicas/rate-limit.test.ts',
  // A replica's wait for PostgreSQL at start-up (DATABASE_CONNECT_SECONDS) and the quick 503s.
  'test/server/replicas/outage.test.ts',
  // The exit within Docker's 10 s after SIGTERM with a request that never finishes.
  'test/server/index-deadline.test.ts',
];

/** Server-project files that start PostgreSQL, a proxy server or a copy of the tree. */
const NOT_QUICK = [
  'test/server/replicas/', // three replicas on PostgreSQL, every file
  'test/server/store/postgres-fixture.test.ts',
  'test/server/operating/upgrade.test.ts', // an old release's build, and PostgreSQL
  'test/server/store/old-build.test.ts', // an old commit's code, from the clone's history
  'test/deploy/proxies.test.ts', // nginx and Caddy
  'test/scripts/dev.test.ts', // `npm run dev` on a copy of the tree
];

const transform = {
  '^.+\\.(t|j)sx?$': [
    '@swc/jest',
    {
      jsc: {
        parser: { syntax: 'typescript', tsx: true },
        transform: { react: { runtime: 'automatic' } },
        target: 'es2022',
      },
    },
  ],
};
const needsBuild = { globalSetup: '<rootDir>/test/support/build-setup.ts' };
const common = {
  transform,
  setupFilesAfterEnv: ['<rootDir>/test/support/fail-on-console.ts'],
  moduleNameMapper: {
    '\\.css$': '<rootDir>/test/support/empty-module.ts',
    '\\?worker-url$': '<rootDir>/test/support/worker-url.ts',
  },
};
// Every password a test hashes costs argon2id's least (test/support/password-cost.ts).
const node = {
  ...common,
  testEnvironment: 'node',
  setupFiles: ['<rootDir>/test/support/password-cost.ts'],
};
const rooted = (files) => files.map((file) => `<rootDir>/${file}`);

const projects = [
  {
    ...node,
    ...needsBuild,
    displayName: 'server',
    testMatch: ['<rootDir>/test/{server,shared,scripts,deploy}/**/*.test.ts?(x)'],
    testPathIgnorePatterns: ['/node_modules/', ...rooted(TIMED), ...rooted(quick ? NOT_QUICK : [])],
  },
  {
    ...common,
    displayName: 'client',
    testEnvironment: '<rootDir>/test/support/jsdom-environment.js',
    testMatch: ['<rootDir>/test/client/**/*.test.tsx'],
    setupFilesAfterEnv: [...common.setupFilesAfterEnv, '<rootDir>/test/support/jsdom.ts'],
  },
  {
    ...node,
    // The build, and the one Chromium every file of the project connects to.
    globalSetup: '<rootDir>/test/support/e2e-setup.ts',
    globalTeardown: '<rootDir>/test/support/e2e-teardown.ts',
    displayName: 'e2e',
    testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
  },
  { ...node, ...needsBuild, displayName: 'timed', testMatch: rooted(TIMED) },
];

module.exports = {
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  // Room for a crowded machine: a test that waits for an event fails by the event's own deadline
  // (test/support/wait.ts, server-process.ts), which names it, well before this.
  testTimeout: 60_000,
  // More files than the two cores: most of a file's time is spent waiting on other processes
  // (servers, Chromium, PostgreSQL).
  maxWorkers: 3,
  projects: quick ? projects.slice(0, 2) : projects,
};
