// The catalogs (shared/messages/): every language has exactly the English reference's keys, in
// every part, nested ones and messages that are functions included; and every key ends in '_',
// which the browser build shortens (shared/messages/types.ts).
import { CATALOGS } from '../../shared/messages';
import { LANGUAGES } from '../../shared/i18n/languages';

/** Every key path of a part: 'cards_.1.alt_', 'reasons_.rateLimited_', 'copyright_()'. */
function keyPaths(value: unknown, at = ''): string[] {
  if (typeof value === 'function') return [`${at}()`];
  if (value === null || typeof value !== 'object') return [at];
  return Object.entries(value).flatMap(([key, inner]) =>
    keyPaths(inner, at ? `${at}.${key}` : key),
  );
}

/** The names that are an object's keys (array indexes are not names). */
function names(value: unknown): string[] {
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => [
    ...(Array.isArray(value) ? [] : [key]),
    ...names(inner),
  ]);
}

const parts = Object.keys(CATALOGS.en) as (keyof (typeof CATALOGS)['en'])[];

describe('the message catalogs', () => {
  it.each(LANGUAGES.filter((language) => language !== 'en'))(
    "%s has exactly English's keys in every part",
    (language) => {
      expect(Object.keys(CATALOGS[language]).sort()).toEqual([...parts].sort());
      for (const part of parts)
        expect([part, keyPaths(CATALOGS[language][part]).sort()]).toEqual([
          part,
          keyPaths(CATALOGS.en[part]).sort(),
        ]);
    },
  );

  it.each(LANGUAGES)("%s: every key ends in '_'", (language) => {
    for (const part of parts)
      expect([part, names(CATALOGS[language][part]).filter((name) => !name.endsWith('_'))]).toEqual(
        [part, []],
      );
  });

  it("the messages that are functions answer in their language's forms", () => {
    const ru = CATALOGS.ru;
    expect(ru.site.descriptionTooLong_(2000)).toBe(
      'В поле «О себе» можно написать не больше 2000\u00a0символов',
    );
    expect(ru.site.descriptionTooLong_(21)).toMatch(/21\u00a0символа$/);
    expect(ru.forms.emailTooLong_(254)).toMatch(/254\u00a0символов$/);
    expect(ru.site.domainsAllowed_(['a.org', 'b.org', 'c.org'])).toBe(
      'Записаться можно только с адресом на домене a.org, b.org или c.org',
    );
    expect(CATALOGS.en.site.domainsAllowed_(['a.org', 'b.org', 'c.org'])).toBe(
      'Only addresses at a.org, b.org or c.org can join',
    );
    expect(ru.site.status_(404, 'Not Found')).toBe('404\u00a0— страница не найдена');
    expect(CATALOGS.en.site.status_(404, 'Not Found')).toBe('404 Not Found');
  });
});
