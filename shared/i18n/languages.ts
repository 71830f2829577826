// The site's two languages and where each lives: English at the root (/, /activate, …), Russian
// under /ru/ (/ru/, /ru/activate, …). Nothing is chosen by Accept-Language: an address names its
// language, for search engines and shared links alike (docs/decisions/0033).

export const LANGUAGES = ['en', 'ru'] as const;
export type Language = (typeof LANGUAGES)[number];

/** English is always served; the others can be turned off (LANGUAGES). */
export const DEFAULT_LANGUAGE: Language = 'en';

export function isLanguage(value: unknown): value is Language {
  return (LANGUAGES as readonly unknown[]).includes(value);
}

/** Each language's path prefix, the router's basename: '' for English, '/ru' for Russian. */
export function languageBase(language: Language): string {
  return language === DEFAULT_LANGUAGE ? '' : `/${language}`;
}

/** The language an address is in, by its first segment: /ru and /ru/… are Russian. */
export function languageOfPath(path: string): Language {
  for (const language of LANGUAGES) {
    const base = languageBase(language);
    if (base && (path === base || path.startsWith(`${base}/`) || path.startsWith(`${base}?`)))
      return language;
  }
  return DEFAULT_LANGUAGE;
}

/** The same page in another language: '/ru/privacy' → '/privacy', '/' → '/ru/'. */
export function pathIn(language: Language, path: string): string {
  const base = languageBase(languageOfPath(path));
  const own = path.slice(base.length) || '/';
  return `${languageBase(language)}${own.startsWith('/') ? own : `/${own}`}`;
}

/** The tags documents, headers and link previews use, by language. */
export const LOCALES: Record<Language, { tag: string; og: string; name: string }> = {
  en: { tag: 'en', og: 'en_US', name: 'English' },
  ru: { tag: 'ru', og: 'ru_RU', name: 'Русский' },
};
