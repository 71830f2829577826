// Jest's node environment, run only once this machine has room for the file (machine-slots.js).
const { TestEnvironment } = require('jest-environment-node');
const { acquireSlot } = require('./machine-slots');

class SlottedNodeEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    // `@jest-environment-options {"timed": true}` in a file's docblock (machine-slots.js).
    this.timed = config.projectConfig.testEnvironmentOptions?.timed === true;
  }

  async setup() {
    this.releaseSlot = await acquireSlot({ timed: this.timed });
    try {
      await super.setup();
    } catch (err) {
      // Jest tears down no environment that failed to set up.
      this.releaseSlot();
      throw err;
    }
  }

  async teardown() {
    try {
      await super.teardown();
    } finally {
      this.releaseSlot?.();
    }
  }
}

module.exports = SlottedNodeEnvironment;
