// The menu button and its dropdown of navigation items (docs/product.md §2, §9: 13rem wide).
// The dropdown is an HTML popover that the button opens through popovertarget: the browser opens
// and closes it (a tap on the button, Escape, a tap outside) and tells assistive technology
// whether it is open, the same before hydration, after it and without JavaScript. The CSS
// :focus-within it replaced never opened it in Safari, which does not focus a button on a tap.
// React only closes it when an item routes on the client; the document's inline script closes it
// when the keyboard focus leaves the menu (server/pages/document.tsx), before hydration too.
import { useId, useRef, type MouseEvent } from 'react';
import { NavLink } from 'react-router';
import { useMessages } from '../messages';
import { useSourceQuery } from '../landing-source';
import { MenuIcon } from './icons';

export function MenuDropdown() {
  const listRef = useRef<HTMLUListElement>(null);
  const listId = useId();
  const m = useMessages();
  // Where the visitor came from goes along to the next page (client/landing-source.ts).
  const source = useSourceQuery();
  const items = [
    { to: `/${source}`, label: m.navWaitlist_ },
    { to: `/activate${source}`, label: m.navActivate_ },
  ];

  // A page load closes it without the script; a client-side route change has to. Browsers older
  // than the Popover API (2023-24) open it through :focus-within instead (app.css): there the
  // item gives up the focus.
  const closeOnItem = (event: MouseEvent<HTMLAnchorElement>) => {
    const list = listRef.current;
    if (!list || !('hidePopover' in list)) event.currentTarget.blur();
    else if (list.matches(':popover-open')) list.hidePopover();
  };

  return (
    <nav className="menu" aria-label={m.mainMenu_}>
      <button
        type="button"
        className="icon-button menu-button"
        aria-label={m.menuButton_}
        aria-controls={listId}
        popoverTarget={listId}
      >
        <MenuIcon />
      </button>
      <ul id={listId} ref={listRef} className="menu-dropdown" popover="auto">
        {items.map((item) => (
          <li key={item.to}>
            <NavLink to={item.to} end className="menu-item" onClick={closeOnItem}>
              {item.label}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
