// The replay slider: every version of the game, 1 to the current one. Moving it shows that
// version's board (`?at=N`, no controls); "Now" goes back to the live game.
import { useEffect, useState } from 'preact/hooks';
import { defineMessages, useMessages } from '../i18n';

const msgs = defineMessages({
  title: { en: 'Replay', ja: 'リプレイ' },
  version: { en: 'Version', ja: 'バージョン' },
  back: { en: 'Step back', ja: '1手戻る' },
  forward: { en: 'Step forward', ja: '1手進む' },
  now: { en: 'Back to now', ja: '現在に戻る' },
  showing: {
    en: (at: number, of: number) => `Showing version ${at} of ${of}`,
    ja: (at: number, of: number) => `バージョン ${at} / ${of} を表示中`,
  },
  live: { en: (of: number) => `Current version ${of}`, ja: (of: number) => `現在のバージョン ${of}` },
});

export function Replay(props: { version: number; at: number | null; onSeek: (at: number | null) => void }) {
  const m = useMessages(msgs);
  const shown = props.at ?? props.version;
  // The slider's own value while it is dragged; the page follows on release.
  const [value, setValue] = useState(shown);
  useEffect(() => setValue(shown), [shown]);
  const seek = (n: number) => props.onSeek(n >= props.version ? null : Math.max(1, n));
  return (
    <section class="replay" aria-labelledby="replay-title">
      <h2 id="replay-title">{m.title}</h2>
      <label>
        {m.version}
        <input
          type="range"
          data-testid="replay"
          min={1}
          max={props.version}
          value={value}
          onInput={(e) => setValue(Number(e.currentTarget.value))}
          onChange={(e) => seek(Number(e.currentTarget.value))}
        />
      </label>
      <div class="buttons">
        <button type="button" class="secondary" disabled={shown <= 1} onClick={() => seek(shown - 1)}>
          {m.back}
        </button>
        <button type="button" class="secondary" disabled={props.at === null} onClick={() => seek(shown + 1)}>
          {m.forward}
        </button>
        <button type="button" class="secondary" disabled={props.at === null} onClick={() => props.onSeek(null)}>
          {m.now}
        </button>
      </div>
      <p aria-live="polite" data-testid="at-version" data-at={shown}>
        {props.at === null ? m.live(props.version) : m.showing(shown, props.version)}
      </p>
    </section>
  );
}
