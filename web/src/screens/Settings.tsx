import { defineMessages, useMessages } from '../i18n';

const msgs = defineMessages({
  title: { en: 'Settings', ja: '設定' },
});

// To be built: notifications per kind, vacation, API tokens.
export function Settings() {
  const m = useMessages(msgs);
  return (
    <section>
      <h1>{m.title}</h1>
    </section>
  );
}
