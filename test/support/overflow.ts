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
    const describe = (element: Element, by: number) => {
      const name = `${element.tagName.toLowerCase()}${[...element.classList].map((c) => `.${c}`).join('')}`;
      const text = (element.textContent ?? '').trim().slice(0, 40);
      return `${name} "${text}" by ${Math.round(by)} px`;
    };
    const boxes = [...document.body.querySelectorAll('*')]
      .filter((element) => sticksOut(element) && !clipped(element))
      .filter((element) => ![...element.children].some(sticksOut))
      .map((element) => describe(element, element.getBoundingClientRect().right - width));
    if (boxes.length > 0) return boxes;
    // Text wider than its box (one long word) sticks out while every box fits: the element whose
    // own text does so is named.
    const pageWidth = document.documentElement.scrollWidth;
    if (pageWidth <= width) return [];
    const texts = [...document.body.querySelectorAll('*')]
      .filter((element) => element.scrollWidth > element.clientWidth + 0.5 && !clipped(element))
      .filter((element) => ![...element.children].some((child) => child.scrollWidth > width))
      .map((element) => describe(element, element.scrollWidth - element.clientWidth));
    return texts.length > 0 ? texts : [`the page, ${pageWidth - width} px wider than the window`];
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
