// The production build, for the projects that need it (jest.config.js): the server tests read the
// real manifest and assets, and the entry-point and browser tests start the real production
// server. Made when missing or older than its sources, so the second project reuses the first's.
import { stop } from 'esbuild';
import { build, isBuildStale } from '../../scripts/build';

export default async function buildSetup(): Promise<void> {
  if (!isBuildStale()) return;
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
