// Features grid of docs/product.md §1: seven cards, badges 'beta'/'wip', and the notes on their
// cards.
interface Feature {
  title: string;
  text: string;
  badge?: 'beta' | 'wip';
  note?: string;
  image?: { src: string; alt: string; width: number; height: number };
}

const FEATURES: Feature[] = [
  {
    title: 'Open Source',
    text: 'Free software under the GNU GPL v3. Read the code, fork it, improve it.',
  },
  {
    title: 'Links between notes',
    text: 'Connect ideas with org-mode id links and explore them as a graph.',
    image: {
      src: '/images/note-graph.svg',
      alt: 'A graph of notes connected by links',
      width: 320,
      height: 200,
    },
  },
  {
    title: 'Sync with Emacs',
    badge: 'beta',
    text: 'Keep notes in sync with your Emacs org files.',
  },
  {
    title: 'Self hosted',
    badge: 'wip',
    note: 'not tested',
    text: 'Run your own server and keep your notes at home.',
  },
  { title: 'Share', badge: 'wip', text: 'Publish a note and share it with a link.' },
  {
    title: 'Extensions',
    badge: 'wip',
    note: 'API under development',
    text: 'Extend the app with your own code.',
  },
  {
    title: 'Literate programming',
    badge: 'wip',
    note: 'only javascript supported right now',
    text: 'Run source blocks right inside your notes.',
  },
];

export function FeaturesGrid() {
  return (
    <section className="features" aria-labelledby="features-title">
      <h2 id="features-title" className="section-title">
        Features
      </h2>
      <ul className="features-grid">
        {FEATURES.map((feature) => (
          <li key={feature.title} className="feature-card">
            <h3 className="feature-title">
              {feature.title}
              {feature.badge && (
                <span className={`badge badge-${feature.badge}`}>{feature.badge}</span>
              )}
            </h3>
            {feature.image && (
              <img
                className="feature-image"
                src={feature.image.src}
                alt={feature.image.alt}
                width={feature.image.width}
                height={feature.image.height}
                loading="lazy"
                decoding="async"
              />
            )}
            <p>{feature.text}</p>
            {feature.note && <p className="feature-note">({feature.note})</p>}
          </li>
        ))}
      </ul>
    </section>
  );
}
