// The company boxes (cubes, controller, shares, round profit…) and the players' money,
// cubes and shares, from the view.
import { count, defineMessages, useLang, useMessages } from '../../i18n';
import { COLOUR, COLOURS, COMPANY, type View, companyLabel } from './model';
import { Scrollable } from '../../components/Scrollable';

const msgs = defineMessages({
  companies: { en: 'Companies', ja: '会社' },
  players: { en: 'Players', ja: 'プレイヤー' },
  controller: { en: 'Controller', ja: '支配者' },
  inBox: { en: 'marker in its box', ja: 'マーカーは箱の中' },
  deliveryController: { en: 'Delivers for', ja: '出荷の担当' },
  cubes: { en: 'Cubes', ja: 'キューブ' },
  profit: { en: 'Round profit', ja: 'ラウンド利益' },
  finalProfit: { en: 'Final profit', ja: '最終利益' },
  shares: { en: 'Shares sold / in box', ja: '売れた株 / 箱の株' },
  track: { en: 'Track left', ja: '残りの線路' },
  network: { en: 'Network', ja: '路線網' },
  cities: { en: (n: number) => count(n, 'city', 'cities'), ja: (n: number) => `${n}都市` },
  goods: { en: 'Goods', ja: '商品' },
  passed: { en: 'passed', ja: 'パス済み' },
  acting: { en: 'to act', ja: '手番' },
  player: { en: 'Player', ja: 'プレイヤー' },
  money: { en: 'Money', ja: 'お金' },
  pawn: { en: 'pawn', ja: '駒' },
  pawnLong: { en: 'holds the active-player pawn', ja: 'スタートプレイヤー駒を持っている' },
  controlsMark: { en: '◆ = controls the company', ja: '◆＝会社を支配' },
  you: { en: '(you)', ja: '（あなた）' },
  toAct: { en: 'to act', ja: '手番' },
  sharesOf: { en: (c: string) => `Shares of ${c}`, ja: (c: string) => `${c}の株` },
  sharesHeld: { en: 'Shares', ja: '株' },
  none: { en: '—', ja: '—' },
});

export function CompanyBoxes({ view, seatName }: { view: View; seatName: (seat: number) => string }) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const goodsPhase = view.phase === 'delivery' || view.phase === 'finished';
  return (
    <section aria-label={m.companies} class="sd-companies">
      <h2>{m.companies}</h2>
      <ul class="sd-boxes">
        {view.companies.map((c) => {
          const style = COMPANY[c.company];
          const active = view.active_company === c.company;
          return (
            <li key={c.company} class={active ? 'sd-box active' : 'sd-box'} data-testid={`sd-company-${c.company}`}>
              <h3 style={{ background: style.fill, color: style.ink }}>
                {/* In Japanese the mark is the name itself. */}
                {style.mark[lang] !== style.name[lang] && <span class="sd-mark">{style.mark[lang]} </span>}
                {companyLabel(c.company, lang)}
                {active && <span class="sd-tag"> · {m.acting}</span>}
                {c.passed && <span class="sd-tag"> · {m.passed}</span>}
              </h3>
              <dl>
                <dt>{m.controller}</dt>
                <dd>{c.controller != null ? seatName(c.controller) : m.inBox}</dd>
                {c.delivery_controller != null && (
                  <>
                    <dt>{m.deliveryController}</dt>
                    <dd>{seatName(c.delivery_controller)}</dd>
                  </>
                )}
                <dt>{m.cubes}</dt>
                <dd>{c.cubes}</dd>
                <dt>{m.profit}</dt>
                <dd>${c.profit}</dd>
                <dt>{m.shares}</dt>
                <dd>
                  {c.shares_sold} / {c.shares_in_box}
                </dd>
                <dt>{m.track}</dt>
                <dd>{c.track_left}</dd>
                <dt>{m.network}</dt>
                <dd>{c.cities.length ? `${m.cities(c.cities.length)}: ${c.cities.join(' ')}` : m.none}</dd>
                {goodsPhase && (
                  <>
                    <dt>{m.goods}</dt>
                    <dd>
                      <Goods goods={c.goods} />
                    </dd>
                  </>
                )}
                {view.phase === 'finished' && (
                  <>
                    <dt>{m.finalProfit}</dt>
                    <dd>${c.final_profit}</dd>
                  </>
                )}
              </dl>
            </li>
          );
        })}
      </ul>
    </section>
  );
}

/** Goods cubes by colour, each told by its letters as well as its colour. */
export function Goods({ goods }: { goods: readonly number[] }) {
  const { lang } = useLang();
  const held = COLOURS.flatMap((colour, i) => Array.from({ length: goods[i] ?? 0 }, () => colour));
  if (!held.length) return <span>—</span>;
  return (
    <span class="sd-goods-list">
      {held.map((colour, i) => (
        <span
          key={i}
          class="sd-cube"
          style={{ background: COLOUR[colour].fill, color: COLOUR[colour].ink }}
          title={COLOUR[colour].name[lang]}
        >
          {COLOUR[colour].mark[lang]}
        </span>
      ))}
    </span>
  );
}

export function PlayersTable({
  view,
  seatName,
  mySeat,
}: {
  view: View;
  seatName: (seat: number) => string;
  mySeat: number | null;
}) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  return (
    <section aria-label={m.players} class="sd-players">
      <h2>{m.players}</h2>
      <Scrollable class="sd-scroll" label={m.players}>
        <table>
          <caption class="sd-caption">{m.controlsMark}</caption>
          <thead>
            <tr>
              <th scope="col">{m.player}</th>
              <th scope="col">{m.money}</th>
              <th scope="col">{m.cubes}</th>
              <th scope="col">{m.sharesHeld}</th>
            </tr>
          </thead>
          <tbody>
            {view.players.map((p) => (
              <tr key={p.seat} class={view.pending.includes(p.seat) ? 'sd-to-act' : undefined} data-testid={`sd-player-${p.seat}`}>
                <th scope="row">
                  {seatName(p.seat)} {p.seat === mySeat && m.you}
                  {view.pawn === p.seat && view.phase !== 'finished' && (
                    <span class="sd-tag" title={m.pawnLong}>
                      {' '}
                      ♟ {m.pawn}
                    </span>
                  )}
                  {view.pending.includes(p.seat) && <span class="sd-tag"> ▶ {m.toAct}</span>}
                </th>
                <td>${p.money}</td>
                <td>{p.cubes}</td>
                <td>
                  <span class="sd-goods-list">
                    {view.companies.map((c, i) =>
                      p.shares[i] ? (
                        <span
                          key={c.company}
                          class="sd-mark chip"
                          style={{ background: COMPANY[c.company].fill, color: COMPANY[c.company].ink }}
                          title={m.sharesOf(companyLabel(c.company, lang))}
                        >
                          {p.controls.includes(c.company) && '◆'}
                          {COMPANY[c.company].mark[lang]}×{p.shares[i]}
                        </span>
                      ) : null,
                    )}
                  </span>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scrollable>
    </section>
  );
}
