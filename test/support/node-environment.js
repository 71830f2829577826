// Jest's node environment, run only once this machine has a core for the file (machine-slots.js).
const { TestEnvironment } = require('jest-environment-node');
const { acquireSlot } = require('./machine-slots');

class SlottedNodeEnvironment extends TestEnvironment {
  async setup() {
    this.releaseSlot = await acquireSlot();
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
