// Builds the client and server bundles once for the whole run: the server tests read the real
// manifest and assets, the shutdown and browser tests start the real production server.
import { stop } from 'esbuild';
import { build } from '../../scripts/build';

export default async function globalSetup(): Promise<void> {
  const log = console.log;
  console.log = () => {};
  try {
    await build();
  } finally {
    console.log = log;
    // esbuild keeps a service process alive; stop it so Jest can exit on its own.
    await stop();
  }
}
