// What the Russian pages are checked against: the catalogs (a Russian text is found by the English
// one the spec gives, so no test spells Russian itself), and the names that stay in Latin letters
// on a Russian page. Anything else Latin a reader sees there is English left behind.
import type { Page } from 'playwright-core';
import { CATALOGS } from '../../shared/messages';

/**
 * What a Russian page may show in Latin letters, each a whole phrase matched case-sensitively:
 * names of products, services and licences (no translator writes them in Cyrillic), the BETA tag
 * of the logo, and the header's link to English, named in English so its readers recognise it.
 * E-mail addresses, URLs and domain names are left out of the check by pattern (LATIN_ADDRESSES).
 * The org-mode sample on the landing page is code (a <pre><code> of org syntax: :PROPERTIES:,
 * #+TITLE, TODO and a JavaScript block read the same in any language), so it is not checked; its
 * region's name (aria-label) is.
 */
export const NAMES = [
  'OrgNote',
  'org-mode',
  // Written with a non-breaking hyphen where a line must not break it (the landing's heading).
  'org\u2011mode',
  'GitHub',
  'Patreon',
  'Emacs',
  'Zettelkasten',
  'Google Play',
  'Twitter',
  'BETA',
  'GNU GPL',
  'JavaScript',
  // Acronyms Russian writes as they are ('API в разработке', 'UTM-метки').
  'API',
  'UTM',
  'English',
] as const;

/** Addresses a reader copies rather than reads: e-mail addresses, URLs, bare domain names. */
const LATIN_ADDRESSES = [
  /[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g,
  /\bhttps?:\/\/\S+/g,
  /\b(?:[a-z0-9-]+\.)+[a-z]{2,}(?:\/\S*)?/g,
];

/** A word of two Latin letters or more: English, once names and addresses are taken out. */
const LATIN_WORD = /[A-Za-z]{2,}/;

/**
 * Every piece of text a visitor of the page sees or hears, as [where, text]: the title, each line
 * of the rendered text (the menu's dropdown included, as a tap shows it), and the placeholder,
 * aria-label, title and alt of each element that is rendered. The org-mode sample is code
 * (NAMES) and left out, and so is what aria-hidden keeps from assistive technology where nobody
 * sees it either.
 */
async function visibleTexts(page: Page): Promise<[string, string][]> {
  return page.evaluate(() => {
    const texts: [string, string][] = [['<title>', document.title]];
    // Sections below the fold skip rendering until scrolled to (content-visibility: auto), and
    // innerText leaves skipped text out: render them all, as scrolling down would.
    for (const element of document.querySelectorAll<HTMLElement>('body *'))
      if (getComputedStyle(element).contentVisibility === 'auto')
        element.style.contentVisibility = 'visible';
    // Inside the sample: its own name (the <pre>'s aria-label) is prose, and checked.
    const isCode = (element: Element) => element.parentElement?.closest('pre, code') != null;
    const rendered = (element: Element) =>
      element.getClientRects().length > 0 || element.closest('[popover]') !== null;
    // Hidden from people and from assistive technology alike (the form's honeypot): never read.
    const unseen = (element: Element) => {
      const box = element.getBoundingClientRect();
      return box.right <= 0 || box.bottom <= 0 || box.width * box.height <= 1;
    };
    for (const element of document.querySelectorAll('[aria-hidden="true"]'))
      if (unseen(element)) element.setAttribute('data-unseen', '');
    // innerText of a clone without code: what the page shows, laid out in lines.
    const body = document.body.cloneNode(true) as HTMLElement;
    for (const code of body.querySelectorAll('pre, code, [data-unseen]')) code.remove();
    const container = document.createElement('div');
    container.style.cssText = 'position:absolute;left:-99999px;top:0;width:375px';
    container.append(body);
    document.documentElement.append(container);
    // A closed popover's items are hidden in the clone too: show them, as a tap on Menu does.
    for (const popover of body.querySelectorAll<HTMLElement>('[popover]'))
      popover.removeAttribute('popover');
    for (const line of body.innerText.split('\n')) texts.push(['text', line]);
    container.remove();
    for (const element of document.querySelectorAll(
      '[placeholder], [aria-label], [title], [alt]',
    )) {
      if (isCode(element) || !rendered(element) || element.closest('[data-unseen]')) continue;
      for (const attribute of ['placeholder', 'aria-label', 'title', 'alt']) {
        const value = element.getAttribute(attribute);
        if (value) texts.push([`${element.tagName.toLowerCase()}[${attribute}]`, value]);
      }
    }
    return texts;
  });
}

/**
 * The English a visitor sees on the page: each text, as `where: text`, that still has a Latin
 * word once the names and addresses are taken out of it. An empty list on a Russian page.
 */
export async function visibleEnglish(page: Page): Promise<string[]> {
  const names = [...NAMES].sort((a, b) => b.length - a.length);
  const found = new Set<string>();
  for (const [where, text] of await visibleTexts(page)) {
    let rest = text;
    for (const pattern of LATIN_ADDRESSES) rest = rest.replace(pattern, ' ');
    for (const name of names) rest = rest.split(name).join(' ');
    if (LATIN_WORD.test(rest)) found.add(`${where}: ${text.trim()}`);
  }
  return [...found];
}

type Tree = string | ((...args: never[]) => unknown) | { [key: string]: Tree } | Tree[];

/** Where `english` is in a catalog tree, as its keys from the root; undefined if nowhere. */
function keysOf(tree: Tree, english: string): string[] | undefined {
  if (tree === english) return [];
  if (typeof tree !== 'object' || tree === null) return undefined;
  for (const [key, value] of Object.entries(tree)) {
    const below = keysOf(value, english);
    if (below) return [key, ...below];
  }
  return undefined;
}

/**
 * The Russian catalog's text for a message the English catalog holds as `english` (the spec's
 * words, exact). A message not in the catalog yet fails the test naming it: its page still shows
 * it in English.
 */
export function ru(english: string): string {
  const keys = keysOf(CATALOGS.en as unknown as Tree, english);
  if (!keys)
    throw new Error(`"${english}" is not in shared/messages/en yet, so it has no Russian text`);
  let value = CATALOGS.ru as unknown as Tree;
  for (const key of keys) value = (value as Record<string, Tree>)[key];
  if (typeof value !== 'string')
    throw new Error(`shared/messages/ru has no text at ${keys.join('.')} for "${english}"`);
  return value;
}
