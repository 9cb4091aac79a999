// A button for something that cannot be undone: the first press asks, in place, whether
// to go on; focus moves to the question's "No" so a stray Enter does nothing harmful.
import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { defineMessages, useMessages } from '../i18n';

const msgs = defineMessages({
  yes: { en: 'Yes', ja: 'はい' },
  no: { en: 'No', ja: 'いいえ' },
});

export function ConfirmButton(props: {
  children: ComponentChildren;
  question: string;
  onConfirm: () => void;
  disabled?: boolean;
}) {
  const m = useMessages(msgs);
  const [asking, setAsking] = useState(false);
  const no = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    if (asking) no.current?.focus();
  }, [asking]);
  if (!asking) {
    return (
      <button type="button" class="danger" disabled={props.disabled} onClick={() => setAsking(true)}>
        {props.children}
      </button>
    );
  }
  return (
    <span role="group" aria-label={props.question} class="confirm">
      <span>{props.question}</span>{' '}
      <button
        type="button"
        class="danger"
        onClick={() => {
          setAsking(false);
          props.onConfirm();
        }}
      >
        {m.yes}
      </button>{' '}
      <button type="button" class="secondary" ref={no} onClick={() => setAsking(false)}>
        {m.no}
      </button>
    </span>
  );
}
