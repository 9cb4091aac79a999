import { defineMessages, useMessages } from '../i18n';

const msgs = defineMessages({
  title: { en: 'Nothing here', ja: 'ページが見つかりません' },
  back: { en: 'Back to the lobby', ja: 'ロビーへ戻る' },
});

export function NotFound() {
  const m = useMessages(msgs);
  return (
    <section>
      <h1>{m.title}</h1>
      <a href="/">{m.back}</a>
    </section>
  );
}
