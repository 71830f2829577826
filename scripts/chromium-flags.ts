// How Debian's Chromium is started here, for the browser tests and Lighthouse alike: no sandbox (we
// run as root), no GPU, and nothing that reaches out to the network, which this machine refuses.
/** Debian's Chromium (apt-get install -y chromium), or CHROMIUM_PATH. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

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
