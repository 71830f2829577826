// The menu button and its dropdown of navigation items (docs/product.md §2, §9: 13rem wide).
// The dropdown is an HTML popover that the button opens through popovertarget: the browser opens
// and closes it (a tap on the button, Escape, a tap outside) and tells assistive technology
// whether it is open, the same before hydration, after it and without JavaScript. The CSS
// :focus-within of before never opened it in Safari, which does not focus a button on a tap.
// The script only closes it when an item routes on the client or the focus leaves it.
import { useId, useRef, type FocusEvent, type MouseEvent } from 'react';
import { NavLink } from 'react-router';
import { MenuIcon } from './icons';

const NAV_ITEMS = [
  { to: '/', label: 'Waitlis' }, // sic, docs/product.md §2
  { to: '/activate', label: 'Activate' },
] as const;

export function MenuDropdown() {
  const listRef = useRef<HTMLUListElement>(null);
  const listId = useId();

  const popover = () => {
    const list = listRef.current;
    return list && 'hidePopover' in list ? list : undefined;
  };
  const hide = () => {
    const list = popover();
    if (list?.matches(':popover-open')) list.hidePopover();
  };

  // Browsers older than the Popover API (2023-24) open it through :focus-within instead
  // (app.css): there Safari, which focuses no button on a tap, is given the focus by the script,
  // and an item gives it up to close the dropdown.
  const focusWithoutPopover = (event: MouseEvent<HTMLButtonElement>) => {
    if (!popover()) event.currentTarget.focus();
  };
  // A page load closes it without the script; a client-side route change has to.
  const closeOnItem = (event: MouseEvent<HTMLAnchorElement>) => {
    if (popover()) hide();
    else event.currentTarget.blur();
  };
  // Tabbing past the last item closes it, so it never hangs over the field the focus went to.
  const closeWhenFocusLeaves = (event: FocusEvent<HTMLElement>) => {
    if (event.relatedTarget instanceof Node && !event.currentTarget.contains(event.relatedTarget)) hide();
  };

  return (
    <nav className="menu" aria-label="Main" onBlur={closeWhenFocusLeaves}>
      <button type="button" className="icon-button menu-button" aria-label="Menu" aria-controls={listId} popoverTarget={listId} onClick={focusWithoutPopover}>
        <MenuIcon />
      </button>
      <ul id={listId} ref={listRef} className="menu-dropdown" popover="auto">
        {NAV_ITEMS.map((item) => (
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
