// jsdom with Node's fetch family (jest-fixed-jsdom) plus setImmediate, so a real multer backend
// can run inside the same test as the components that call it.
const FixedJSDOMEnvironment = require('jest-fixed-jsdom');

class SiteJSDOMEnvironment extends FixedJSDOMEnvironment {
  constructor(...args) {
    super(...args);
    this.global.setImmediate = setImmediate;
    this.global.clearImmediate = clearImmediate;
  }
}

module.exports = SiteJSDOMEnvironment;
