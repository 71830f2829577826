// The success and error views that replace a form (docs/product.md §4). The title takes focus when
// the view appears after an action, so keyboard and screen-reader users land on the news.
import { useEffect, useRef, type ReactNode } from 'react';
import { useMessages } from '../messages';
import { ArrowBackIcon } from './icons';

interface ResultViewProps {
  kind: 'success' | 'error';
  title?: string;
  children: ReactNode;
  /** Shows the back arrow (error view). */
  onBack?: () => void;
  /** Move focus to the title on mount; off when the view is simply how the page starts. */
  focusOnMount?: boolean;
}

export function ResultView({
  kind,
  title,
  children,
  onBack,
  focusOnMount = true,
}: ResultViewProps) {
  const titleRef = useRef<HTMLHeadingElement>(null);
  const m = useMessages();
  useEffect(() => {
    if (focusOnMount) titleRef.current?.focus();
  }, [focusOnMount]);

  return (
    <section className={`form-card result result-${kind}`} aria-labelledby="result-title">
      <div className="result-header">
        {onBack ? (
          <button
            type="button"
            className="icon-button result-back"
            aria-label={m.backToForm_}
            onClick={onBack}
          >
            <ArrowBackIcon />
          </button>
        ) : null}
        <h2 id="result-title" className="form-title" tabIndex={-1} ref={titleRef}>
          {title ?? (kind === 'success' ? m.congratulations_ : m.error_)}
        </h2>
      </div>
      <div className="result-body" role={kind === 'error' ? 'alert' : 'status'}>
        {children}
      </div>
    </section>
  );
}
