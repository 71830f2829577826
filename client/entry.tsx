// Browser entry. The document's inline script adds it once the browser is idle after
// the first paint, or at the first key or touch in a form or the menu (server/pages/document.tsx).
// Evaluating a module graph of 330 kB at once is one task the browser cannot interrupt (83–116 ms
// in the baseline's loads under 4× CPU slowdown, npm run bench:mainthread), so the libraries are
// evaluated in steps with a pause between them (client/boot/: top-level await inside the one
// bundle), and React's transition hydration then yields on its own.
//
// It is built once a language (scripts/build.ts): '#messages/…' (package.json "imports") names the
// build's language's messages, so a page carries its own language's only, a lazy page's part in
// the page's chunk.
import './styles/app.css';
import site from '#messages/site';
import { hydrate } from './hydrate';

void hydrate(site);
