// The image test (npm run test:image): a private Docker engine, the offline base images, the
// image built from the Dockerfile, and the containers an operator would run from it. Apart from
// `npm test`: it needs root (dockerd, debootstrap), and its first run makes the base images.
const transform = {
  '^.+\\.(t|j)sx?$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } }],
};

module.exports = {
  displayName: 'image',
  testEnvironment: 'node',
  transform,
  testMatch: ['<rootDir>/test/image/**/*.test.ts'],
  setupFilesAfterEnv: ['<rootDir>/test/support/fail-on-console.ts'],
  globalSetup: '<rootDir>/test/image/global-setup.ts',
  globalTeardown: '<rootDir>/test/image/global-teardown.ts',
  // One engine, two cores shared with the rest of CI: one file at a time.
  maxWorkers: 1,
  testTimeout: 120_000,
};
