// The Flying Dutchman's options on the new-game screen, each with what it means. Only the
// options changed from their defaults are sent (the server fills every default in).
import { useState } from 'preact/hooks';
import { defineMessages, useMessages } from '../../i18n';
import type { OptionsEditorProps } from '../types';
import type { Options } from './common';

// Every option has a default on the server, so the schema requires none; the page fills them.
const DEFAULTS: Required<Options> = {
  edition: '2016',
  value_track: 'without_one',
  board: 'standard',
  negotiation_deadline_secs: 86_400,
};
const MIN_DEADLINE_MIN = 1;
const MAX_DEADLINE_MIN = 20_160; // 14 days, the server's limit (1 209 600 s)

const msgs = defineMessages({
  title: { en: 'The Flying Dutchman: options', ja: 'さまよえるオランダ人の設定' },
  edition: { en: 'Edition', ja: '版' },
  editionHelp: {
    en: 'Only the starting money differs.',
    ja: '違いは最初の所持金だけです。',
  },
  e2016: { en: '2016 Japanese edition: 35 ducats each (default)', ja: '2016年日本語版：各35ドゥカート（標準）' },
  e1992: { en: '1992 edition: 25 ducats each', ja: '1992年版：各25ドゥカート' },
  track: { en: 'Value track', ja: '価値トラック' },
  trackHelp: {
    en: 'The chests a colour’s value steps through. Whether the printed track has a “1” chest is unknown, so it is a choice.',
    ja: '各色の価値が進む宝箱の列です。印刷された盤に「1」の宝箱があるかは不明なので選べます。',
  },
  withoutOne: { en: '0, 2, 3, … 18 (without 1; default)', ja: '0, 2, 3, … 18（1なし・標準）' },
  withOne: { en: '0, 1, 2, … 18 (with 1)', ja: '0, 1, 2, … 18（1あり）' },
  board: { en: 'Board', ja: '盤' },
  boardHelp: {
    en: 'The sea the ghost ship sails: 18 ships (3 of each colour) and 6 islands joined by 40 lines. Only this one exists.',
    ja: '幽霊船が進む海：船18隻（各色3隻）と島6つを40本の線で結んだ盤。現在はこれだけです。',
  },
  standard: { en: 'Standard', ja: '標準' },
  deadline: { en: 'Negotiation deadline (minutes)', ja: '交渉の期限（分）' },
  deadlineHelp: {
    en: 'When tied players negotiate, they have this long to agree; then it counts as “no agreement” and an extra round of bids follows. 1 minute to 14 days; default 1 day (1440).',
    ja: '同点のプレイヤーが交渉するときの制限時間です。過ぎると「合意なし」となり追加の入札ラウンドになります。1分〜14日、標準は1日（1440分）。',
  },
});

export function OptionsEditor({ options, onChange }: OptionsEditorProps<Options>) {
  const m = useMessages(msgs);
  const current: Required<Options> = { ...DEFAULTS, ...options };
  // Keeps only what differs from the defaults, so the stored game shows the server's defaults.
  const set = <K extends keyof Options>(key: K, value: Options[K]) => {
    const next: Partial<Options> = { ...options, [key]: value };
    if (value === DEFAULTS[key]) delete next[key];
    onChange(next);
  };
  // The field's text is its own, so a number being typed is not replaced while it is out of range.
  const [minutes, setMinutes] = useState(String(Math.round(current.negotiation_deadline_secs / 60)));
  return (
    <div class="fd-options" data-testid="fd-options" role="group" aria-label={m.title}>
      <fieldset>
        <legend>{m.edition}</legend>
        <p class="fd-note" id="fd-edition-help">
          {m.editionHelp}
        </p>
        <label>
          <input type="radio" name="fd-edition" checked={current.edition === '2016'} onChange={() => set('edition', '2016')} />{' '}
          {m.e2016}
        </label>
        <label>
          <input type="radio" name="fd-edition" checked={current.edition === '1992'} onChange={() => set('edition', '1992')} />{' '}
          {m.e1992}
        </label>
      </fieldset>
      <fieldset>
        <legend>{m.track}</legend>
        <p class="fd-note">{m.trackHelp}</p>
        <label>
          <input
            type="radio"
            name="fd-track"
            checked={current.value_track === 'without_one'}
            onChange={() => set('value_track', 'without_one')}
          />{' '}
          {m.withoutOne}
        </label>
        <label>
          <input type="radio" name="fd-track" checked={current.value_track === 'with_one'} onChange={() => set('value_track', 'with_one')} />{' '}
          {m.withOne}
        </label>
      </fieldset>
      <label>
        {m.board}
        <select value={current.board} onChange={() => set('board', 'standard')} aria-describedby="fd-board-help">
          <option value="standard">{m.standard}</option>
        </select>
      </label>
      <p class="fd-note" id="fd-board-help">
        {m.boardHelp}
      </p>
      <label>
        {m.deadline}
        <input
          type="number"
          min={MIN_DEADLINE_MIN}
          max={MAX_DEADLINE_MIN}
          step={1}
          value={minutes}
          aria-describedby="fd-deadline-help"
          onInput={(e) => {
            setMinutes(e.currentTarget.value);
            const value = Math.round(Number(e.currentTarget.value));
            if (value >= MIN_DEADLINE_MIN && value <= MAX_DEADLINE_MIN) set('negotiation_deadline_secs', value * 60);
          }}
        />
      </label>
      <p class="fd-note" id="fd-deadline-help">
        {m.deadlineHelp}
      </p>
    </div>
  );
}
