// Links that leave the site never hand over window.opener or the referrer.
import type { AnchorHTMLAttributes } from 'react';

export function ExternalLink(props: AnchorHTMLAttributes<HTMLAnchorElement> & { href: string }) {
  return <a target="_blank" rel="noopener noreferrer" {...props} />;
}
