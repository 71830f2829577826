// Everything visible on the landing page (docs/product.md §1, §2), rendered through the real route
// table.
import { screen, within } from '@testing-library/react';
import { renderRoutes } from '../../support/render-route';
import { link, pageHeading } from '../../support/screen';

describe('layout and landing page', () => {
  beforeEach(() => localStorage.clear());

  it('has the header: logo, title, BETA tag, menu button and the repository link', () => {
    renderRoutes('/');
    const header = screen.getByRole('banner');
    const logo = within(header).getByRole('img', { name: 'OrgNote logo' });
    expect(logo).toHaveAttribute('width', '32');
    expect(logo).toHaveAttribute('height', '32');
    expect(within(header).getByText('OrgNote')).toBeInTheDocument();
    expect(within(header).getByText('BETA')).toBeInTheDocument();
    expect(within(header).getByRole('button', { name: 'Menu' })).toBeInTheDocument();
    const repo = within(header).getByRole('link', { name: 'Source code on GitHub' });
    expect(repo).toHaveAttribute('href', 'https://github.com/Artawower/orgnote');
    expect(repo).toHaveAttribute('rel', 'noopener noreferrer');
  });

  it('has the hero: tagline, prototype notice and the three buttons', () => {
    renderRoutes('/', { config: { webAppUrl: 'https://app.example.com/' } });
    expect(pageHeading('From an org-mode lover to org-mode lovers')).toBeInTheDocument();
    expect(screen.getByText(/prototype/)).toBeInTheDocument();
    expect(link('Get it on Google Play')).toHaveAttribute(
      'href',
      expect.stringContaining('play.google.com'),
    );
    expect(link('Download')).toHaveAttribute(
      'href',
      'https://github.com/Artawower/orgnote/releases',
    );
    expect(link('Use online')).toHaveAttribute('href', 'https://app.example.com');
  });

  it('puts the child route form inside the hero', () => {
    renderRoutes('/activate');
    const hero = screen.getByRole('region', { name: 'From an org-mode lover to org-mode lovers' });
    expect(
      within(hero).getByRole('heading', { name: 'Enter your activation key' }),
    ).toBeInTheDocument();
  });

  it('chooses the preview with <picture>: phone below 768 px, desktop from 768 px', () => {
    const { container } = renderRoutes('/');
    const source = container.querySelector('picture source')!;
    expect(source.getAttribute('media')).toBe('(max-width: 767.98px)');
    expect(source.getAttribute('srcset')).toBe('/images/preview-phone-2x.webp 2x');
    const img = container.querySelector('picture img')!;
    expect(img.getAttribute('src')).toBe('/images/preview-desktop-1x.webp');
    expect(img.getAttribute('srcset')).toBe(
      '/images/preview-desktop-1x.webp 1x, /images/preview-desktop-2x.webp 2x',
    );
    expect(img).toHaveAttribute('width');
    expect(img).toHaveAttribute('height');
    expect(img.getAttribute('alt')).toMatch(/OrgNote/);
  });

  it("shows 'Everything is plain text' with a real org-mode note", () => {
    renderRoutes('/');
    const section = screen.getByRole('region', { name: 'Everything is plain text' });
    const note = section.querySelector('code')!.textContent;
    expect(note).toMatch(/^#\+TITLE: /m);
    expect(note).toMatch(/^\* /m);
    expect(note).toMatch(/^\*\* /m);
    expect(note).toMatch(/\[\[id:[0-9a-f-]+\]\[[^\]]+\]\]/);
    expect(note).toMatch(/^:PROPERTIES:\n:ID: +\S+\n:END:$/m);
    expect(note).toMatch(/^#\+BEGIN_SRC \w+\n[\s\S]+\n#\+END_SRC$/m);
  });

  it('lists the seven feature cards with their badges and notes', () => {
    renderRoutes('/');
    const grid = screen.getByRole('region', { name: 'Features' });
    const cards = within(grid).getAllByRole('listitem');
    const summary = cards.map((card) => ({
      title: card.querySelector('h3')!.firstChild!.textContent,
      badge: card.querySelector('.badge')?.textContent ?? null,
      note: card.querySelector('.feature-note')?.textContent ?? null,
    }));
    expect(summary).toEqual([
      { title: 'Open Source', badge: null, note: null },
      { title: 'Links between notes', badge: null, note: null },
      { title: 'Sync with Emacs', badge: 'beta', note: null },
      { title: 'Self hosted', badge: 'wip', note: '(not tested)' },
      { title: 'Share', badge: 'wip', note: null },
      { title: 'Extensions', badge: 'wip', note: '(API under development)' },
      {
        title: 'Literate programming',
        badge: 'wip',
        note: '(only javascript supported right now)',
      },
    ]);
    expect(within(cards[1]).getByRole('img', { name: /graph of notes/ })).toHaveAttribute(
      'src',
      '/images/note-graph.svg',
    );
  });

  it("has the footer: 2023, 'Concacts' and 'Social', external links safe", () => {
    renderRoutes('/');
    const footer = screen.getByRole('contentinfo');
    expect(within(footer).getByText(/© 2023/)).toBeInTheDocument();
    expect(within(footer).getByRole('heading', { name: 'Concacts' })).toBeInTheDocument();
    expect(within(footer).getByRole('heading', { name: 'Social' })).toBeInTheDocument();
    expect(within(footer).getByRole('link', { name: 'Issue tracker' })).toHaveAttribute(
      'href',
      'https://github.com/Artawower/orgnote/issues',
    );
    expect(within(footer).getByRole('link', { name: 'Patreon' })).toHaveAttribute(
      'href',
      'https://www.patreon.com/artawower',
    );
    expect(within(footer).getByRole('link', { name: /@/ }).getAttribute('href')).toMatch(
      /^mailto:/,
    );
    for (const anchor of within(document.body).getAllByRole('link')) {
      if (anchor.getAttribute('target') === '_blank')
        expect(anchor).toHaveAttribute('rel', 'noopener noreferrer');
    }
  });

  it('keeps the starfall decorative and out of the accessibility tree', () => {
    const { container } = renderRoutes('/');
    expect(container.querySelector('.starfall')).toHaveAttribute('aria-hidden', 'true');
  });

  it("shows 'Unexpected Application Error!' with status and text for an unknown route", async () => {
    renderRoutes('/nope');
    expect(
      await screen.findByRole('heading', { name: 'Unexpected Application Error!' }),
    ).toBeInTheDocument();
    expect(screen.getByText('404 Not Found')).toBeInTheDocument();
    expect(screen.getByRole('banner')).toBeInTheDocument();
  });
});
