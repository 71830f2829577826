// Where a signup came from, as the page finds it and as the store keeps it (shared/sources.ts): a
// landing's query and another site's Referer, reduced to its host; each value bounded to 64
// printable characters, cleaned rather than refused, and a referring site to a host.
import { boundSource, landingSource, SOURCE_MAX_LENGTH } from '../../shared/sources';

describe('landingSource', () => {
  const landing = (query: string, referer?: string) =>
    landingSource(new URLSearchParams(query), referer, 'orgnote.example');

  it("takes the query's four fields, and leaves out the rest and the empty ones", () => {
    expect(
      landing('utm_source=hn&utm_medium=&utm_campaign=launch+week&utm_term=x&email=a%40b.co'),
    ).toEqual({ utm_source: 'hn', utm_campaign: 'launch week' });
    expect(landing('')).toEqual({});
  });

  it("takes another site's host from the Referer, never its path or query", () => {
    expect(landing('', 'https://News.YCombinator.com/item?id=1#top')).toEqual({
      referrer: 'news.ycombinator.com',
    });
    expect(landing('', 'android-app://com.google.android.gm/')).toEqual({
      referrer: 'com.google.android.gm',
    });
  });

  it('takes nothing from our own pages, nor from a Referer that is not a URL', () => {
    expect(landing('', 'https://orgnote.example/privacy?utm_source=x')).toEqual({});
    // Another scheme or port is still our own host (an http page redirected to https).
    expect(landing('', 'http://orgnote.example:8080/')).toEqual({});
    expect(landing('', 'not a url')).toEqual({});
    expect(landing('', '')).toEqual({});
  });

  it("prefers another site's Referer to a referrer our own link carried", () => {
    expect(landing('referrer=lobste.rs', 'https://news.ycombinator.com/')).toEqual({
      referrer: 'news.ycombinator.com',
    });
    expect(landing('referrer=lobste.rs', 'https://orgnote.example/')).toEqual({
      referrer: 'lobste.rs',
    });
  });
});

describe('boundSource', () => {
  it('keeps a value of at most 64 characters as it is, and cuts a longer one there', () => {
    const longest = `кампания-${'x'.repeat(SOURCE_MAX_LENGTH - 10)}🌱`;
    expect([...longest]).toHaveLength(SOURCE_MAX_LENGTH);
    expect(boundSource({ utm_campaign: longest })).toEqual({ utm_campaign: longest });
    // Cut by characters, never through one (an emoji is two UTF-16 units).
    expect(boundSource({ utm_campaign: `${longest}🌱tail` })).toEqual({ utm_campaign: longest });
    expect(boundSource({ utm_source: 'y'.repeat(10_000) })).toEqual({
      utm_source: 'y'.repeat(SOURCE_MAX_LENGTH),
    });
  });

  it('makes whitespace one space and removes what does not print, refusing nothing', () => {
    expect(
      boundSource({
        utm_source: '  news\tletter\r\n ',
        utm_medium: 'e\u0000ma\u0007il\u202e',
        utm_campaign: 'spring\u200b sale\u00ad',
      }),
    ).toEqual({ utm_source: 'news letter', utm_medium: 'email', utm_campaign: 'spring sale' });
    // A lone surrogate (JSON can carry one) and private use are not text either.
    expect(boundSource({ utm_source: 'a\ud800b\ue000c' })).toEqual({ utm_source: 'abc' });
  });

  it('leaves out a field with nothing left, and one that is not a single text', () => {
    expect(boundSource({ utm_source: ' \u0000\u200b ', utm_medium: ['a', 'b'] })).toBeUndefined();
    expect(boundSource({ utm_campaign: { nested: 'x' }, referrer: 42 })).toBeUndefined();
    expect(boundSource({ email: 'a@b.co' })).toBeUndefined();
  });

  it('keeps a referring site as a host: of a URL or as given, lower case, IDN as punycode', () => {
    expect(boundSource({ referrer: 'https://lobste.rs/s/abc?q=1' })).toEqual({
      referrer: 'lobste.rs',
    });
    expect(boundSource({ referrer: 'News.YCombinator.com' })).toEqual({
      referrer: 'news.ycombinator.com',
    });
    expect(boundSource({ referrer: 'пример.рф/страница' })).toEqual({
      referrer: 'xn--e1afmkfd.xn--p1ai',
    });
    for (const referrer of ['not a host', 'javascript:alert(1)', '', 'http://']) {
      expect({ referrer, kept: boundSource({ referrer }) }).toEqual({ referrer, kept: undefined });
    }
  });

  it('keeps the last labels of a longer host that fit: the site, not the subdomains', () => {
    const host = `${'a'.repeat(40)}.${'b'.repeat(30)}.example.org`;
    expect(boundSource({ referrer: host })).toEqual({ referrer: `${'b'.repeat(30)}.example.org` });
    expect(boundSource({ referrer: 'c'.repeat(63) })).toEqual({ referrer: 'c'.repeat(63) });
    expect(boundSource({ referrer: `${'d'.repeat(63)}.e` })).toEqual({ referrer: 'e' });
  });
});
