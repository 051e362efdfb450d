/** A button that copies a text to the clipboard, and says whether it did in a polite live region. */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/**
 * The clipboard API exists only in secure contexts (https, or loopback); an engine reached over plain http
 * from another host falls back to a selection and the older copy command.
 */
async function copyText(text: string): Promise<void> {
  if (navigator.clipboard) return navigator.clipboard.writeText(text);
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.className = 'visually-hidden';
  document.body.append(area);
  area.select();
  const copied = document.execCommand('copy');
  area.remove();
  if (!copied) throw new Error('the browser refused to copy');
}

/** How long "Copied" stays beside the button. */
const SAID_FOR_MS = 3000;

/**
 * `label` is the button's accessible name ("Copy the MCP URL"); `children` its visible text, "Copy" unless
 * given. `text` may be a function, for a text that is costly to make or must be read at the moment of copying.
 */
export function CopyButton({ text, label, children = 'Copy' }: { text: string | (() => string); label: string; children?: ComponentChildren }) {
  const [said, setSaid] = useState<{ text: string; ok: boolean } | undefined>();
  useEffect(() => {
    if (!said) return;
    const timer = setTimeout(() => setSaid(undefined), SAID_FOR_MS);
    return () => clearTimeout(timer);
  }, [said]);
  async function copy() {
    // Emptied first, so that copying again is announced again.
    setSaid(undefined);
    try {
      await copyText(typeof text === 'function' ? text() : text);
      setSaid({ text: 'Copied', ok: true });
    } catch {
      setSaid({ text: 'Not copied: select the text and copy it', ok: false });
    }
  }
  return (
    <span class="copy">
      <button type="button" class="secondary small" aria-label={label} onClick={copy}>
        {children}
      </button>
      {/* The live region is always rendered, even while its text is empty (and hidden), so that the text is announced when it comes. */}
      <span role="status">
        <span class={said?.ok === false ? 'copy-said bad' : 'copy-said'}>{said?.text ?? ''}</span>
      </span>
    </span>
  );
}
