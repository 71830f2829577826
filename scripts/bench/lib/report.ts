// Where each part of the bench leaves its figures for CI and for comparison between runs.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT } from '../../lib/root';

/** Writes `report` as test-artifacts/<name>.json, pretty-printed. */
export function writeReport(name: string, report: unknown): void {
  fs.mkdirSync(path.join(ROOT, 'test-artifacts'), { recursive: true });
  fs.writeFileSync(
    path.join(ROOT, `test-artifacts/${name}.json`),
    `${JSON.stringify(report, null, 2)}\n`,
  );
}
