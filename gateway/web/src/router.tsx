import type { ComponentChildren, JSX } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** The page's path and query, which the app routes on. */
export interface Location {
  readonly path: string;
  readonly query: URLSearchParams;
}

function current(): Location {
  return { path: window.location.pathname, query: new URLSearchParams(window.location.search) };
}

const listeners = new Set<() => void>();

/** Moves to another page of the app without reloading it. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  for (const listener of listeners) listener();
}

/** The current location, re-rendering on navigation and on the browser's back and forward. */
export function useLocation(): Location {
  const [location, setLocation] = useState(current);
  useEffect(() => {
    const update = () => setLocation(current());
    listeners.add(update);
    window.addEventListener('popstate', update);
    // Effects run children first: a page that moved to another page as it first showed did so before this listened.
    // (Only another path counts: forgetQuery drops a token from the address bar, and the page keeps what it read.)
    if (window.location.pathname !== location.path) update();
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return location;
}

/** A link to a page of the app: a real `<a href>` (new tab, copy link work), navigated in place on a plain click. */
export function Link(props: { href: string; class?: string; children: ComponentChildren }) {
  const onClick = (event: JSX.TargetedMouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(props.href);
  };
  return (
    <a href={props.href} class={props.class} onClick={onClick}>
      {props.children}
    </a>
  );
}

/**
 * Removes secrets (a mailed token, an OAuth code) from the address bar once
 * read, so that they stay out of the history and of anything shared.
 */
export function forgetQuery(): void {
  window.history.replaceState(null, '', window.location.pathname);
}
