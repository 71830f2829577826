// Features grid of docs/product.md §1: seven cards, badges 'beta'/'wip', and the notes on their
// cards. The words are the catalog's (`cards_`, in this order); a badge's kind is its style, and
// its word the language's.
import { useMessages } from '../messages';

interface Look {
  badge?: 'beta' | 'wip';
  image?: { src: string; width: number; height: number };
}

/** How each card of the catalog's `cards_` looks, in the same order. */
const LOOKS: Look[] = [
  {},
  { image: { src: '/images/note-graph.svg', width: 320, height: 200 } },
  { badge: 'beta' },
  { badge: 'wip' },
  { badge: 'wip' },
  { badge: 'wip' },
  { badge: 'wip' },
];

interface CardWords {
  title_: string;
  text_: string;
  note_?: string;
  alt_?: string;
}

export function FeaturesGrid() {
  const m = useMessages();
  const cards: readonly CardWords[] = m.cards_;
  return (
    <section className="features" aria-labelledby="features-title">
      <h2 id="features-title" className="section-title">
        {m.features_}
      </h2>
      <ul className="features-grid">
        {cards.map((card, i) => {
          const { badge, image } = LOOKS[i];
          return (
            <li key={card.title_} className="feature-card">
              <h3 className="feature-title">
                {card.title_}
                {badge && (
                  <span className={`badge badge-${badge}`}>
                    {badge === 'beta' ? m.beta_ : m.wip_}
                  </span>
                )}
              </h3>
              {image && (
                <img
                  className="feature-image"
                  src={image.src}
                  alt={card.alt_}
                  width={image.width}
                  height={image.height}
                  loading="lazy"
                  decoding="async"
                />
              )}
              <p>{card.text_}</p>
              {card.note_ && <p className="feature-note">({card.note_})</p>}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
