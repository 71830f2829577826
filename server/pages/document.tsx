// The whole HTML document, rendered by React on the server (no split template). The browser
// hydrates only #root, so everything outside it is server-only and may differ per request.
import type { ReactNode } from 'react';
import { PUBLIC_CONFIG_ELEMENT_ID } from '../../client/public-config';
import { SUBSCRIBED_STORAGE_KEY } from '../../shared/constants';
import type { PublicConfig } from '../../shared/public-config';
import { LOCALES, type Language } from '../../shared/i18n/languages';
import type { PageScripts } from '../../shared/manifest';
import type { PageAssets } from './static-files';

/** What search results and link previews show, in each language. */
const HEAD_TEXTS: Record<Language, { description: string; socialTitle: string; imageAlt: string }> =
  {
    en: {
      description:
        'OrgNote: a free, open-source note-taking app for org-mode lovers, built on the ' +
        'Zettelkasten idea. Join the waitlist.',
      socialTitle: 'OrgNote: from an org-mode lover to org-mode lovers',
      imageAlt: 'OrgNote: notes in org-mode, linked like a Zettelkasten',
    },
    ru: {
      description:
        'OrgNote\u00a0— свободное приложение для заметок с открытым кодом для тех, кто любит ' +
        'org-mode, построенное на идее Zettelkasten. Запишитесь в лист ожидания.',
      socialTitle: 'OrgNote: от любителя org-mode\u00a0— любителям org-mode',
      imageAlt: 'OrgNote: заметки в org-mode, связанные как в Zettelkasten',
    },
  };

const SOCIAL_IMAGE = { path: '/images/og-card.png', width: 1200, height: 630 };

/** JSON that is safe inside a <script> element: no way to close the tag or open a comment. */
function scriptSafeJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026');
}

/**
 * The page's one inline script (allowed by hash or nonce), in <head> so it runs before the body is
 * parsed:
 * - A visitor who joined before ('subscribed' in localStorage) is marked on <html data-joined>, so
 *   the stylesheet shows the joined view from the first paint, with no React.
 * - The entry scripts, which only hydrate a page that already works as HTML, are added (with
 *   modulepreload links for the chunks they import, so those load beside them) after the
 *   first contentful paint (or the load event where Paint Timing is missing) once the browser is
 *   idle, or at the first touch, key or focus in a form or the menu, whichever comes first. So
 *   hydration never competes with the first paint, and a visitor about to use a form gets it
 *   hydrated as soon as they start (a key or a touch: the field that autofocus focused does not
 *   count). Until then the forms post and the menu opens without script.
 * - The menu's dropdown (a popover, client/components/MenuDropdown.tsx) closes when the keyboard
 *   focus leaves the menu, so it never hangs over the field the focus went to; and where the
 *   browser predates the Popover API, a tap on the button gives it the focus (Safari gives none)
 *   for the CSS :focus-within that opens it there. Here rather than in React, so it holds before
 *   hydration too.
 * - The starfall moves only where a GPU composites it: a worker (client/workers/motion-check.ts)
 *   asks WebGL, off the main thread, in idle time, and marks <html data-motion>. Without a GPU the
 *   animation would keep the compositor redrawing the layer in software on the cores the main
 *   thread needs.
 */
function bootScript({
  scripts,
  preloads,
  workers,
}: PageScripts & Pick<PageAssets, 'workers'>): string {
  return (
    `(()=>{const d=document;` +
    `try{localStorage.getItem(${scriptSafeJson(SUBSCRIBED_STORAGE_KEY)})!==null&&` +
    `d.documentElement.setAttribute('data-joined','')}catch{}` +
    `let started=false;const events=['pointerdown','keydown'];` +
    `const go=()=>{if(started)return;started=true;` +
    `for(const e of events)removeEventListener(e,touched,true);` +
    `const add=(tag,props)=>d.head.append(Object.assign(d.createElement(tag),props));` +
    `for(const href of ${scriptSafeJson(preloads)})add('link',{rel:'modulepreload',href});` +
    `for(const src of ${scriptSafeJson(scripts)})add('script',{type:'module',src})};` +
    `const touched=(e)=>{if(e.target instanceof Element&&e.target.closest('form,.menu'))go()};` +
    `for(const e of events)addEventListener(e,touched,{capture:true,passive:true});` +
    `const menu=(n)=>n instanceof Element&&n.closest('.menu');` +
    `addEventListener('focusout',(e)=>{const m=menu(e.target),p=m&&m.querySelector('[popover]');` +
    `if(p&&p.hidePopover&&e.relatedTarget instanceof Node&&!m.contains(e.relatedTarget)` +
    `&&p.matches(':popover-open'))p.hidePopover()});` +
    `addEventListener('click',(e)=>{const b=menu(e.target)&&e.target.closest('button');` +
    `if(b&&!b.hidePopover)b.focus()});` +
    `const motion=()=>{` +
    `if(!matchMedia('(prefers-reduced-motion: no-preference)').matches||!self.Worker)return;` +
    `const w=new Worker(${scriptSafeJson(workers['motion-check'])});` +
    `w.onmessage=(e)=>{w.terminate();` +
    `if(e.data===true)d.documentElement.setAttribute('data-motion','')};` +
    `w.onerror=()=>w.terminate()};` +
    `const later=(f,ms)=>` +
    `self.requestIdleCallback?requestIdleCallback(f,{timeout:ms}):setTimeout(f,200);` +
    `const idle=()=>{later(go,2000);later(motion,4000)};` +
    `const P=self.PerformanceObserver;if(P&&(P.supportedEntryTypes||[]).includes('paint'))` +
    `new P((list,observer)=>{` +
    `if(list.getEntriesByName('first-contentful-paint').length){observer.disconnect();idle()}})` +
    `.observe({type:'paint',buffered:true});` +
    `else addEventListener('load',idle)})()`
  );
}

export interface DocumentProps {
  language: Language;
  /** Absolute URL of this page without its query (canonical link, og:url). */
  canonicalUrl: string;
  /**
   * The same page in each of the site's languages (this one's included), as absolute URLs:
   * `<link rel="alternate" hreflang>`, and x-default for the English one.
   */
  alternates: { language: Language; href: string }[];
  /** Public origin of the site, for absolute image URLs in social cards. */
  origin: string;
  /** The stylesheet comes as text and goes inline (its hash is in the page policy). */
  assets: PageAssets;
  publicConfig: PublicConfig;
  /** CSP nonce for the scripts; none when the page's policy lists script hashes instead. */
  nonce?: string;
  children: ReactNode;
}

export function Document({
  language,
  canonicalUrl,
  alternates,
  origin,
  assets,
  publicConfig,
  nonce,
  children,
}: DocumentProps) {
  const texts = HEAD_TEXTS[language];
  return (
    <html lang={LOCALES[language].tag}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {/* <title> comes from the route (React hoists it here). */}
        <meta name="description" content={texts.description} />
        <meta name="theme-color" content="#14121f" />
        <link rel="canonical" href={canonicalUrl} />
        {alternates.map((alternate) => (
          <link
            key={alternate.language}
            rel="alternate"
            hrefLang={LOCALES[alternate.language].tag}
            href={alternate.href}
          />
        ))}
        {alternates
          .filter((alternate) => alternate.language === 'en')
          .map((alternate) => (
            <link key="x-default" rel="alternate" hrefLang="x-default" href={alternate.href} />
          ))}
        <link rel="icon" href="/favicon.svg" type="image/svg+xml" />
        <meta property="og:type" content="website" />
        <meta property="og:site_name" content="OrgNote" />
        <meta property="og:locale" content={LOCALES[language].og} />
        {alternates
          .filter((alternate) => alternate.language !== language)
          .map((alternate) => (
            <meta
              key={alternate.language}
              property="og:locale:alternate"
              content={LOCALES[alternate.language].og}
            />
          ))}
        <meta property="og:title" content={texts.socialTitle} />
        <meta property="og:description" content={texts.description} />
        <meta property="og:url" content={canonicalUrl} />
        <meta property="og:image" content={`${origin}${SOCIAL_IMAGE.path}`} />
        <meta property="og:image:width" content={String(SOCIAL_IMAGE.width)} />
        <meta property="og:image:height" content={String(SOCIAL_IMAGE.height)} />
        <meta property="og:image:alt" content={texts.imageAlt} />
        <meta name="twitter:card" content="summary_large_image" />
        <meta name="twitter:title" content={texts.socialTitle} />
        <meta name="twitter:description" content={texts.description} />
        <meta name="twitter:image" content={`${origin}${SOCIAL_IMAGE.path}`} />
        {assets.css && <style dangerouslySetInnerHTML={{ __html: assets.css }} />}
        {/* The policy allows this script by nonce or hash, and the files it adds by 'self'. */}
        <script
          nonce={nonce}
          dangerouslySetInnerHTML={{
            __html: bootScript({ ...assets.languages[language], workers: assets.workers }),
          }}
        />
      </head>
      <body>
        <div id="root">{children}</div>
        <script
          id={PUBLIC_CONFIG_ELEMENT_ID}
          type="application/json"
          dangerouslySetInnerHTML={{ __html: scriptSafeJson(publicConfig) }}
        />
      </body>
    </html>
  );
}
