// App preview of docs/product.md §2: phone variant below 768 px, desktop from 768 px. <picture>
// chooses, so the server HTML is already right and no script decides. The images are WebP drawn
// from SVG sources (scripts/images/render-previews.ts says why), decoded off the main thread.
import { PHONE_BREAKPOINT_PX } from '../../shared/constants';
import { useMessages } from '../messages';

export function AppPreview() {
  const m = useMessages();
  return (
    <section className="preview" aria-label={m.preview_}>
      <picture>
        <source
          media={`(max-width: ${PHONE_BREAKPOINT_PX - 0.02}px)`}
          srcSet="/images/preview-phone-2x.webp 2x"
          width="360"
          height="720"
        />
        <img
          className="preview-image"
          src="/images/preview-desktop-1x.webp"
          srcSet="/images/preview-desktop-1x.webp 1x, /images/preview-desktop-2x.webp 2x"
          width="1200"
          height="750"
          alt={m.previewAlt_}
          loading="lazy"
          decoding="async"
        />
      </picture>
    </section>
  );
}
