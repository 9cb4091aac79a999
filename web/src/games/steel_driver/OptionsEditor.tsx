// Steel Driver's options for the new-game screen. The game has one: the map, and only the
// built-in USA map exists (the server refuses any other). What the seat count means for
// the game is said beside it.
import { count, defineMessages, useMessages } from '../../i18n';
import type { OptionsEditorProps } from '../types';
import { cubesPerRound, type Options } from './model';

const msgs = defineMessages({
  options: { en: 'Steel Driver options', ja: 'スチールドライバーの設定' },
  map: { en: 'Map', ja: '地図' },
  usa: { en: 'USA', ja: 'アメリカ合衆国' },
  mapMeans: {
    en: 'The board: 38 cities in five goods colours, 10 of them start cities (hexagons), joined by links that cost 2–6 cubes to build. USA is the only map.',
    ja: '盤面：5色の商品の38都市（うち10都市は六角形の始発都市）と、建設費2〜6キューブの区間。地図はアメリカ合衆国のみです。',
  },
  seatsMean: {
    en: (seats: number, cubes: number) =>
      `With ${seats} players, each receives ${count(cubes, 'investment cube')} per round, for 5 rounds. Six companies are auctioned every round; after round 5 the companies deliver goods and the shares pay out.`,
    ja: (seats: number, cubes: number) =>
      `${seats}人では、各ラウンドに1人${cubes}個の投資キューブを受け取り、5ラウンド遊びます。毎ラウンド6社の支配権を競り、第5ラウンドの後に商品を出荷して株の配当を受け取ります。`,
  },
});

/** The maps the server knows (SteelDriver.Options: "only the built-in `usa` map exists"). */
const MAPS = ['usa'] as const;

export function OptionsEditor({ seats, options, onChange }: OptionsEditorProps<Options>) {
  const m = useMessages(msgs);
  const valid = seats >= 3 && seats <= 6;
  return (
    // The new-game screen puts this inside its own "Options" group.
    <div class="sd-options" role="group" aria-label={m.options}>
      <label>
        {m.map}
        <select
          value={options.map ?? 'usa'}
          aria-describedby="sd-map-means"
          onChange={(e) => onChange({ ...options, map: e.currentTarget.value })}
        >
          {MAPS.map((id) => (
            <option key={id} value={id}>
              {m.usa}
            </option>
          ))}
        </select>
      </label>
      <p id="sd-map-means" class="sd-hint">
        {m.mapMeans}
      </p>
      {valid && <p class="sd-hint">{m.seatsMean(seats, cubesPerRound(seats))}</p>}
    </div>
  );
}
