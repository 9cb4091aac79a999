// A secret the server shows this once (an API token, a calendar feed's URL, a webhook's
// signing secret): selected at once, with a copy button, until the player is done with it.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { defineMessages, useMessages } from '../i18n';

const msgs = defineMessages({
  copy: { en: 'Copy', ja: 'コピー' },
  copied: { en: 'Copied.', ja: 'コピーしました。' },
  done: { en: 'Done', ja: '閉じる' },
});

export function ShownOnce(props: {
  value: string;
  /** The field's accessible name. */
  label: string;
  /** What it is, and that it will not be shown again. */
  children: ComponentChildren;
  onDone: () => void;
  testId: string;
  valueTestId?: string;
}) {
  const m = useMessages(msgs);
  const [copied, setCopied] = useState(false);
  const field = useRef<HTMLInputElement>(null);
  useEffect(() => field.current?.select(), []);
  const copy = async () => {
    field.current?.select();
    try {
      await navigator.clipboard.writeText(props.value);
    } catch {
      // No clipboard permission: the text is selected for the player to copy by hand.
      document.execCommand('copy');
    }
    setCopied(true);
  };
  return (
    <div class="notice" role="status" data-testid={props.testId}>
      {props.children}
      <span class="row">
        <input ref={field} readOnly value={props.value} aria-label={props.label} data-testid={props.valueTestId} />
        <button type="button" onClick={() => void copy()}>
          {m.copy}
        </button>
      </span>
      <p aria-live="polite">{copied ? m.copied : ''}</p>
      <button type="button" class="secondary" onClick={props.onDone}>
        {m.done}
      </button>
    </div>
  );
}
