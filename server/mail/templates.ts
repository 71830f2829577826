// Mail an operator may word their own way: the files of MAIL_TEMPLATES_DIR, each one text with
// placeholders written {{name}}, filled in when a mail is written. In an HTML part every value is
// HTML-escaped, so an address or a link can never end an attribute or open a tag. The files are
// read and checked once at start-up (config/parsers.ts): a missing file, an unknown placeholder or
// a subject over one line stops the start with the file's name, never a silent fallback.
//
// The folder holds either the files themselves, read as English, or one folder a language (en/,
// ru/) holding the same files. A language with no folder of its own gets the default wording of
// that language (welcome.ts), never another language's.
import fs from 'node:fs';
import path from 'node:path';
import { isLanguage, LANGUAGES, type Language } from '../../shared/i18n/languages';
import { escapeMarkup } from '../../shared/markup';

/** What a welcome template may name (docs/operating.md, "Welcome mail"). */
export const WELCOME_PLACEHOLDERS = ['siteUrl', 'leaveUrl', 'patreonUrl', 'email'] as const;

export type WelcomeValues = Record<(typeof WELCOME_PLACEHOLDERS)[number], string>;

/** The files of the welcome mail in MAIL_TEMPLATES_DIR, by the part each one holds. */
export const WELCOME_FILES = {
  subject: 'welcome.subject',
  text: 'welcome.txt',
  html: 'welcome.html',
} as const;

/** A template as parsed: text, and the names of the placeholders between it. */
export type Template = readonly (string | { name: string })[];

export type WelcomeTemplates = Record<keyof typeof WELCOME_FILES, Template>;

const PLACEHOLDER = /\{\{\s*([A-Za-z]+)\s*\}\}/g;

/** A template that cannot be used; `message` says why, without quoting the file beyond a name. */
export class TemplateError extends Error {}

export function parseTemplate(source: string, known: readonly string[]): Template {
  const parts: (string | { name: string })[] = [];
  let from = 0;
  for (const match of source.matchAll(PLACEHOLDER)) {
    if (!known.includes(match[1]))
      throw new TemplateError(`unknown placeholder {{${match[1]}}} (known: ${known.join(', ')})`);
    parts.push(source.slice(from, match.index), { name: match[1] });
    from = match.index + match[0].length;
  }
  parts.push(source.slice(from));
  if (parts.some((part) => typeof part === 'string' && part.includes('{{')))
    throw new TemplateError('a "{{" that opens no placeholder ({{name}}, letters only)');
  return parts.filter((part) => part !== '');
}

/** The template with its placeholders filled in; `escape` applied to each value (HTML parts). */
export function fillTemplate(
  template: Template,
  values: Record<string, string>,
  escape: (value: string) => string = (value) => value,
): string {
  return template
    .map((part) => (typeof part === 'string' ? part : escape(values[part.name])))
    .join('');
}

/** The HTML part's filling: each value escaped. */
export const fillHtml = (template: Template, values: Record<string, string>) =>
  fillTemplate(template, values, escapeMarkup);

/** The three parts of a welcome mail from their sources; a subject is one line. */
export function parseWelcomeTemplates(
  sources: Record<keyof typeof WELCOME_FILES, string>,
): WelcomeTemplates {
  const parse = (part: keyof typeof WELCOME_FILES, source: string): Template => {
    try {
      if (source.trim() === '') throw new TemplateError('is empty');
      if (part === 'subject' && /[\r\n]/.test(source.trim()))
        throw new TemplateError('must be one line');
      return parseTemplate(part === 'subject' ? source.trim() : source, WELCOME_PLACEHOLDERS);
    } catch (err) {
      if (err instanceof TemplateError)
        throw new TemplateError(`${WELCOME_FILES[part]}: ${err.message}`);
      throw err;
    }
  };
  return {
    subject: parse('subject', sources.subject),
    text: parse('text', sources.text),
    html: parse('html', sources.html),
  };
}

/** The welcome templates of an operator's folder; TemplateError names the file at fault. */
export function loadWelcomeTemplates(dir: string): WelcomeTemplates {
  const read = (part: keyof typeof WELCOME_FILES): string => {
    const file = path.join(dir, WELCOME_FILES[part]);
    let bytes: Buffer;
    try {
      bytes = fs.readFileSync(file);
    } catch (err) {
      throw new TemplateError(
        `cannot read ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
      );
    }
    try {
      return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    } catch {
      throw new TemplateError(`${file} is not UTF-8 text`);
    }
  };
  const sources = { subject: read('subject'), text: read('text'), html: read('html') };
  try {
    return parseWelcomeTemplates(sources);
  } catch (err) {
    if (err instanceof TemplateError) throw new TemplateError(`${dir}/${err.message}`);
    throw err;
  }
}

/** MAIL_TEMPLATES_DIR as read: the operator's wording of each language that has one. */
export interface MailTemplates {
  dir: string;
  welcome: Partial<Record<Language, WelcomeTemplates>>;
}

/**
 * The templates of MAIL_TEMPLATES_DIR in either layout: the welcome files at its top (English), or
 * a folder a language. Both at once, a folder that names no language of the site beside language
 * folders, or a language folder short of a file is refused: each is a mistake that would otherwise
 * mail the default wording.
 */
export function loadMailTemplates(dir: string): MailTemplates {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (err) {
    throw new TemplateError(
      `cannot read the folder ${dir} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
    );
  }
  const layout = `one folder a language (${LANGUAGES.map((language) => `${language}/`).join(', ')})`;
  const welcomeFiles: string[] = Object.values(WELCOME_FILES);
  const flat = entries.find((entry) => welcomeFiles.includes(entry.name));
  const languages = entries.map((entry) => entry.name).filter(isLanguage);
  // A dotted name (.git) is the tools' business; another folder beside flat files, as before.
  const others = entries.filter(
    (entry) => entry.isDirectory() && !entry.name.startsWith('.') && !isLanguage(entry.name),
  );
  if (flat && languages.length > 0)
    throw new TemplateError(
      `${dir} holds both ${flat.name} and the folder ${languages[0]}/: put the files in ` +
        `${layout}, or all at the top for English alone`,
    );
  if (languages.length === 0 && (flat || others.length === 0))
    return { dir, welcome: { en: loadWelcomeTemplates(dir) } };
  if (others.length > 0)
    throw new TemplateError(`${dir}/${others[0].name} is no language of the site: use ${layout}`);
  const welcome: MailTemplates['welcome'] = {};
  for (const language of languages)
    welcome[language] = loadWelcomeTemplates(path.join(dir, language));
  return { dir, welcome };
}
