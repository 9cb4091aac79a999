// A box that scrolls sideways when its content is wider than the screen (a wide table, the
// map on a phone). A keyboard reaches it (Tab, then the arrow keys scroll it) and a screen
// reader hears what it holds: a region named after its content, "scrolls sideways" added so
// that the name differs from the section's around it (landmark names must be unique).
import type { ComponentChildren } from 'preact';
import { defineMessages, useMessages } from '../i18n';

const msgs = defineMessages({
  name: { en: (what: string) => `${what} (scrolls sideways)`, ja: (what: string) => `${what}（横にスクロール）` },
});

export function Scrollable({ label, class: className, children }: { label: string; class: string; children: ComponentChildren }) {
  const m = useMessages(msgs);
  return (
    <div class={className} role="region" aria-label={m.name(label)} tabIndex={0}>
      {children}
    </div>
  );
}
