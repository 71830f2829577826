// Inline SVG: the icons are decorative, so hidden from assistive technology (the control carries
// the label); the logo below is an image with a name of its own.
import { useMessages } from '../messages';

const common = {
  width: 24,
  height: 24,
  viewBox: '0 0 24 24',
  'aria-hidden': true,
  focusable: false,
} as const;

export function MenuIcon() {
  return (
    <svg {...common}>
      <path fill="currentColor" d="M3 6h18v2H3zm0 5h18v2H3zm0 5h18v2H3z" />
    </svg>
  );
}

export function GithubIcon() {
  return (
    <svg {...common}>
      <path
        fill="currentColor"
        d="M12 2a10 10 0 0 0-3.16 19.49c.5.09.68-.22.68-.48v-1.7c-2.78.6-3.37-1.34-3.37-1.34-.45-1.16-1.11-1.47-1.11-1.47-.91-.62.07-.6.07-.6 1 .07 1.53 1.03 1.53 1.03.9 1.52 2.34 1.08 2.91.83.09-.65.35-1.09.63-1.34-2.22-.25-4.55-1.11-4.55-4.94 0-1.09.39-1.98 1.03-2.68-.1-.25-.45-1.27.1-2.64 0 0 .84-.27 2.75 1.02a9.6 9.6 0 0 1 5 0c1.91-1.29 2.75-1.02 2.75-1.02.55 1.37.2 2.39.1 2.64.64.7 1.03 1.59 1.03 2.68 0 3.84-2.34 4.69-4.57 4.94.36.31.68.92.68 1.85v2.75c0 .27.18.58.69.48A10 10 0 0 0 12 2Z"
      />
    </svg>
  );
}

export function ArrowBackIcon() {
  return (
    <svg {...common}>
      <path fill="currentColor" d="M20 11H7.83l5.59-5.59L12 4l-8 8 8 8 1.41-1.41L7.83 13H20v-2z" />
    </svg>
  );
}

// The logo is drawn inline too, though it is an image with a name of its own (role img): as an
// <img> file it cost the page a request during the navigation's commit (React hoists a preload for
// every eager <img> into the head) and an SVG document of its own, built and laid out on the main
// thread when the file arrives (docs/benchmarks.md).

export function OrgNoteLogo({ className }: { className?: string }) {
  const m = useMessages();
  return (
    <svg
      className={className}
      width="32"
      height="32"
      viewBox="0 0 32 32"
      role="img"
      aria-label={m.logo_}
    >
      <path
        d="M7.5 2.5H20l9 9v14a4 4 0 0 1-4 4H7.5a4 4 0 0 1-4-4v-19a4 4 0 0 1 4-4z"
        fill="#a78bfa"
      />
      <path d="M20 2.5V8a3.5 3.5 0 0 0 3.5 3.5H29z" fill="#ddd6fe" />
      <path
        d="M10 23.5l4.5-9 7.5 7"
        fill="none"
        stroke="#14121f"
        strokeWidth="2.2"
        strokeLinecap="round"
        strokeLinejoin="round"
      />
      <circle cx="10" cy="23.5" r="3" fill="#14121f" />
      <circle cx="14.5" cy="14.5" r="3" fill="#14121f" />
      <circle cx="22" cy="21.5" r="3.4" fill="#14121f" />
      <circle cx="22" cy="21.5" r="1.7" fill="#5eead4" />
    </svg>
  );
}
