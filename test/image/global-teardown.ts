// Stops the engine the setup started; one that was already running (a developer's) is left.
import { ENGINE, STARTED_ENGINE } from './global-setup';
import { removeAll, sh } from './docker';

export default function globalTeardown(): void {
  removeAll('orgnote-ci-');
  // The build stages the setup kept for the run's other builds (but those it tagged).
  sh('docker image prune --force');
  if (process.env[STARTED_ENGINE]) sh(`${ENGINE} stop`);
}
