import { useState } from 'preact/hooks';

/**
 * Copies a value someone pastes elsewhere (a DNS record, a URL for the
 * identity provider): typing them over is where mistakes come from. The
 * value stays on the page as text too, for when the clipboard is refused.
 */
export function CopyButton(props: { text: string; label: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'refused'>('idle');
  return (
    <>
      <button
        type="button"
        class="secondary"
        aria-label={props.label}
        onClick={() =>
          void navigator.clipboard.writeText(props.text).then(
            () => setState('copied'),
            () => setState('refused'),
          )
        }
      >
        Copy
      </button>
      <span role="status">{state === 'copied' ? ' Copied.' : state === 'refused' ? ' The browser refused: select the text and copy it.' : ''}</span>
    </>
  );
}
