// What sticks out of the window, named, so a failed overflow check says what to fix rather than
// by how many pixels the page got wider.
import type { Page } from 'playwright-core';
import { VIEWPORTS } from './browser';

/**
 * The elements whose right edge passes the window's, innermost first (one whose children stay
 * inside), as 'tag.class "text"' with how far each sticks out; [] when the page fits.
 */
export function overflowingElements(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const sticksOut = (element: Element) => element.getBoundingClientRect().right > width + 0.5;
    // Clipped by an ancestor that scrolls or hides its overflow: the page does not get wider.
    const clipped = (element: Element) => {
      for (let up = element.parentElement; up && up !== document.body; up = up.parentElement) {
        const { overflowX } = getComputedStyle(up);
        if (overflowX !== 'visible') return true;
      }
      return false;
    };
    return [...document.body.querySelectorAll('*')]
      .filter((element) => sticksOut(element) && !clipped(element))
      .filter((element) => ![...element.children].some(sticksOut))
      .map((element) => {
        const name = `${element.tagName.toLowerCase()}${[...element.classList].map((c) => `.${c}`).join('')}`;
        const text = (element.textContent ?? '').trim().slice(0, 40);
        const by = Math.round(element.getBoundingClientRect().right - width);
        return `${name} "${text}" by ${by} px`;
      });
  });
}

/** The overflowing elements at each width in turn (the window set to it, then back). */
export async function overflowAtBothWidths(page: Page): Promise<string[]> {
  const opened = page.viewportSize();
  const found: string[] = [];
  for (const { width, height } of VIEWPORTS) {
    await page.setViewportSize({ width, height });
    found.push(...(await overflowingElements(page)).map((element) => `${width} px: ${element}`));
  }
  if (opened) await page.setViewportSize(opened);
  return found;
}
