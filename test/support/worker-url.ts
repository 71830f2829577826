// What a `?worker-url` import is under Jest: a URL, as scripts/build.ts makes one for the browser.
// No test starts the worker itself (jsdom has no Worker); the browser tests load the built one.
export default '/assets/solver.worker.js';
