// How Debian's Chromium is started here, for the browser tests and Lighthouse alike: no sandbox (we
// run as root), no GPU, and nothing that reaches out to the network, which this machine refuses.
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
];
