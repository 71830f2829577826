// axe-core in a Chromium page of the e2e tests: the violations it finds, one line each (rule,
// impact, the nodes), so a test asserts an empty list and a failure names what to fix.
import fs from 'node:fs';
import type { Page } from 'playwright-core';
import { VIEWPORTS } from './browser';

const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface Violation {
  id: string;
  impact: string;
  nodes: { target: string[] }[];
}

/** Runs axe on the page as it stands (injected by Playwright, so the page's CSP stays). */
export async function axeViolations(page: Page): Promise<string[]> {
  // Once a document: a page laid out again at another width keeps the axe it has.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(() =>
    (
      window as unknown as {
        axe: { run: (ctx: Document, opts: object) => Promise<{ violations: Violation[] }> };
      }
    ).axe
      .run(document, { resultTypes: ['violations'] })
      .then((r) =>
        r.violations.map((v) => ({
          id: v.id,
          impact: v.impact,
          nodes: v.nodes.map((n) => ({ target: n.target })),
        })),
      ),
  )) as Violation[];
  return violations.map(
    (v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`,
  );
}

/**
 * axe's violations with the page laid out at each width in turn (the window set to it, then back;
 * CSS decides the layout here), each line starting with the width it was found at.
 */
export async function axeViolationsAtBothWidths(page: Page): Promise<string[]> {
  const opened = page.viewportSize();
  const found: string[] = [];
  for (const { width, height } of VIEWPORTS) {
    await page.setViewportSize({ width, height });
    found.push(...(await axeViolations(page)).map((violation) => `${width} px: ${violation}`));
  }
  if (opened) await page.setViewportSize(opened);
  return found;
}
