// Decorative starfall layer (docs/product.md §1). Pure CSS (see styles), hidden from assistive
// technology, fixed and behind everything so it costs no layout.
const STAR_COUNT = 12;

export function Starfall() {
  return (
    <div className="starfall" aria-hidden="true">
      {Array.from({ length: STAR_COUNT }, (_, i) => (
        <span key={i} className="star" />
      ))}
    </div>
  );
}
