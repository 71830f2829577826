// The menu button and its dropdown of navigation items (docs/product.md §2, §9: 13rem wide).
// Closes when an item is clicked, on Escape and on a click outside. Before the script runs the
// dropdown still opens through CSS :focus-within, so the menu works without JavaScript.
import { useEffect, useId, useLayoutEffect, useRef, useState } from 'react';
import { NavLink } from 'react-router';
import { useHydrated } from '../hooks/useHydrated';
import { MenuIcon } from './icons';

const NAV_ITEMS = [
  { to: '/', label: 'Waitlis' }, // sic, docs/product.md §2
  { to: '/activate', label: 'Activate' },
] as const;

export function MenuDropdown() {
  const [open, setOpen] = useState(false);
  // Script-driven only after hydration, so server and client render the same.
  const enhanced = useHydrated();
  const rootRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const listId = useId();

  // A tap before hydration opened the dropdown through :focus-within (the button took focus), and
  // the same tap may be what started hydration. As the script takes over, data-enhanced turns that
  // CSS off: keep the menu open, before the next paint, rather than close it under the finger.
  useLayoutEffect(() => {
    if (enhanced && rootRef.current?.contains(document.activeElement)) setOpen(true);
  }, [enhanced]);

  useEffect(() => {
    if (!open) return;
    function onPointerDown(event: PointerEvent) {
      if (!rootRef.current?.contains(event.target as Node)) setOpen(false);
    }
    function onKeyDown(event: KeyboardEvent) {
      if (event.key === 'Escape') {
        setOpen(false);
        buttonRef.current?.focus();
      }
    }
    document.addEventListener('pointerdown', onPointerDown);
    document.addEventListener('keydown', onKeyDown);
    return () => {
      document.removeEventListener('pointerdown', onPointerDown);
      document.removeEventListener('keydown', onKeyDown);
    };
  }, [open]);

  return (
    <nav className="menu" aria-label="Main" ref={rootRef} data-enhanced={enhanced ? 'true' : undefined}>
      <button
        ref={buttonRef}
        type="button"
        className="icon-button menu-button"
        aria-label="Menu"
        aria-expanded={open}
        aria-controls={listId}
        onClick={() => setOpen((value) => !value)}
      >
        <MenuIcon />
      </button>
      <ul id={listId} className="menu-dropdown" hidden={!open}>
        {NAV_ITEMS.map((item) => (
          <li key={item.to}>
            <NavLink to={item.to} end className="menu-item" onClick={() => setOpen(false)}>
              {item.label}
            </NavLink>
          </li>
        ))}
      </ul>
    </nav>
  );
}
