import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';

/**
 * A page: its heading, the document title, and focus on the heading once
 * shown, so that keyboard and screen reader users land on the new page
 * after a navigation instead of on the link they left.
 */
export function Page(props: { title: string; children: ComponentChildren }) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    document.title = `${props.title} · Latchkey`;
    heading.current?.focus();
  }, [props.title]);
  return (
    <section class="page" aria-labelledby="page-title">
      <h1 id="page-title" ref={heading} tabIndex={-1}>
        {props.title}
      </h1>
      {props.children}
    </section>
  );
}
