// Three projects: server (node), client components (jsdom) and the browser suite (real Chromium).
// TypeScript goes through @swc/jest. Only the projects that need the production build make it
// (test/support/build-setup.ts), so `jest --selectProjects client` never builds.
const { CAPACITY } = require('./test/support/machine-slots');
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
// Node's environment, waiting for a free core when other runs share the machine (machine-slots.js).
const slottedNode = '<rootDir>/test/support/node-environment.js';
const needsBuild = { globalSetup: '<rootDir>/test/support/build-setup.ts' };
const common = {
  transform,
  setupFilesAfterEnv: ['<rootDir>/test/support/fail-on-console.ts'],
  moduleNameMapper: {
    '\\.css$': '<rootDir>/test/support/empty-module.ts',
    '\\?worker-url$': '<rootDir>/test/support/worker-url.ts',
  },
};

module.exports = {
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testTimeout: 20000,
  // Most test time is spent waiting on other processes (servers, Chromium, PostgreSQL): as many
  // workers as the machine takes files at once (two per core), which machine-slots.js meters.
  maxWorkers: CAPACITY,
  projects: [
    {
      ...common,
      ...needsBuild,
      displayName: 'server',
      testEnvironment: slottedNode,
      testMatch: ['<rootDir>/test/{server,shared,scripts,deploy}/**/*.test.ts?(x)'],
    },
    {
      ...common,
      displayName: 'client',
      testEnvironment: '<rootDir>/test/support/jsdom-environment.js',
      testMatch: ['<rootDir>/test/client/**/*.test.tsx'],
      setupFilesAfterEnv: [...common.setupFilesAfterEnv, '<rootDir>/test/support/jsdom.ts'],
    },
    {
      ...common,
      // The build, and the one Chromium every file of the project connects to.
      globalSetup: '<rootDir>/test/support/e2e-setup.ts',
      globalTeardown: '<rootDir>/test/support/e2e-teardown.ts',
      displayName: 'e2e',
      testEnvironment: slottedNode,
      testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
    },
  ],
};
