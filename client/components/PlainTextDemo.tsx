// 'Everything is plain text' (docs/product.md §1): a sample note in real org-mode syntax, its
// prose in the page's language (the catalog's `sample_`).
import { useMessages } from '../messages';

export function PlainTextDemo() {
  const m = useMessages();
  return (
    <section className="plain-text" aria-labelledby="plain-text-title">
      <h2 id="plain-text-title" className="section-title">
        {m.plainText_}
      </h2>
      {/* Focusable so the keyboard can scroll it sideways; a named region, since HTML allows no
          aria-label on a plain <pre>. */}
      <pre className="org-sample" tabIndex={0} role="region" aria-label={m.sampleNote_}>
        <code>{m.sample_}</code>
      </pre>
    </section>
  );
}
