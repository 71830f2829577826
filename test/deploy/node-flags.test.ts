// The site runs with the same Node options wherever it is started: the image, `npm start`, and the
// launcher the tests and benchmarks use (which measure what operators run).
import fs from 'node:fs';
import path from 'node:path';
import { SITE_NODE_FLAGS } from '../../scripts/lib/launch/server';

const ROOT = path.resolve(__dirname, '../..');

/** Node's options before the entry point in a command line that starts the built site. */
function flagsBefore(command: string[]): string[] {
  const node = command.lastIndexOf('node', command.indexOf('dist/server/index.js'));
  return command.slice(node + 1, command.indexOf('dist/server/index.js'));
}

describe('Node options of the site', () => {
  it('are the same in the image, in npm start and in the launcher', () => {
    const dockerfile = fs.readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
    const cmd = JSON.parse(/^CMD (\[.*\])$/m.exec(dockerfile)![1]) as string[];
    const start = (
      JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
        scripts: Record<string, string>;
      }
    ).scripts.start.split(/\s+/);
    expect(flagsBefore(cmd)).toEqual(SITE_NODE_FLAGS);
    expect(flagsBefore(start)).toEqual(SITE_NODE_FLAGS);
  });
});
