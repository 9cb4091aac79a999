// The final scoring: each company's goods split into sets and its final profit, then what
// each player received per company (final profit × shares), their money and rank.
import { count, defineMessages, useLang, useMessages } from '../../i18n';
import type { GameDetail } from '../types';
import { COMPANY, SET_VALUES, type View, companyLabel, goodsSets } from './model';
import { Goods } from './Tables';
import { Scrollable } from '../../components/Scrollable';

const msgs = defineMessages({
  title: { en: 'Final scoring', ja: '最終得点' },
  byCompany: { en: 'Goods and final profit by company', ja: '会社ごとの商品と最終利益' },
  company: { en: 'Company', ja: '会社' },
  goods: { en: 'Goods', ja: '商品' },
  sets: { en: 'Sets', ja: 'セット' },
  set: {
    en: (times: number, n: number, value: number) => `${times > 1 ? `${times} × ` : ''}${count(n, 'colour')} $${value}`,
    ja: (times: number, n: number, value: number) => `${n}色 $${value}${times > 1 ? ` ×${times}` : ''}`,
  },
  profit: { en: 'Final profit', ja: '最終利益' },
  deliveredBy: { en: 'Delivered by', ja: '出荷の担当' },
  byPlayer: { en: 'Final dividends by player (profit × shares)', ja: 'プレイヤーごとの最終配当（利益×株数）' },
  player: { en: 'Player', ja: 'プレイヤー' },
  before: { en: 'Round dividends', ja: 'ラウンド配当' },
  final: { en: 'Final dividends', ja: '最終配当' },
  money: { en: 'Money', ja: 'お金' },
  goodsControlled: { en: 'Goods (tie-break)', ja: '商品数（同点時）' },
  rank: { en: 'Rank', ja: '順位' },
  winner: { en: 'winner', ja: '勝者' },
  winners: { en: (names: string) => `Winner: ${names}`, ja: (names: string) => `勝者：${names}` },
  noSets: { en: 'no goods', ja: '商品なし' },
  nobody: { en: 'nobody', ja: 'なし' },
});

/** Set sizes (largest first) as [size, how many] pairs. */
function grouped(sets: number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const n of sets) {
    const last = out.at(-1);
    if (last && last[0] === n) last[1] += 1;
    else out.push([n, 1]);
  }
  return out;
}

export function Outcome({ detail, seatName }: { detail: GameDetail; seatName: (seat: number) => string }) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const view = detail.view as View | null | undefined;
  const outcome = view?.outcome;
  if (!view || !outcome) return null;
  const finalOf = (seat: number, i: number) => (view.players[seat]?.shares[i] ?? 0) * (view.companies[i]?.final_profit ?? 0);
  return (
    <section class="sd-outcome" aria-labelledby="sd-outcome-title" data-testid="sd-outcome">
      <h2 id="sd-outcome-title">{m.title}</h2>
      <p class="sd-winners">
        <strong>{m.winners(outcome.winners.map(seatName).join(', '))}</strong>
      </p>
      <Scrollable class="sd-scroll" label={m.byCompany}>
        <table>
          <caption>{m.byCompany}</caption>
          <thead>
            <tr>
              <th scope="col">{m.company}</th>
              <th scope="col">{m.deliveredBy}</th>
              <th scope="col">{m.goods}</th>
              <th scope="col">{m.sets}</th>
              <th scope="col">{m.profit}</th>
            </tr>
          </thead>
          <tbody>
            {view.companies.map((c) => {
              const sets = goodsSets(c.goods);
              return (
                <tr key={c.company}>
                  <th scope="row">
                    <span class="sd-mark chip" style={{ background: COMPANY[c.company].fill, color: COMPANY[c.company].ink }}>
                      {COMPANY[c.company].mark[lang]}
                    </span>{' '}
                    {companyLabel(c.company, lang)}
                  </th>
                  <td>{c.delivery_controller != null ? seatName(c.delivery_controller) : m.nobody}</td>
                  <td>
                    <Goods goods={c.goods} />
                  </td>
                  <td>{sets.length ? grouped(sets).map(([n, times]) => m.set(times, n, SET_VALUES[n] ?? 0)).join(' + ') : m.noSets}</td>
                  <td>${c.final_profit}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </Scrollable>
      <Scrollable class="sd-scroll" label={m.byPlayer}>
        <table>
          <caption>{m.byPlayer}</caption>
          <thead>
            <tr>
              <th scope="col">{m.player}</th>
              {view.companies.map((c) => (
                <th scope="col" key={c.company}>
                  {companyLabel(c.company, lang)}
                </th>
              ))}
              <th scope="col">{m.final}</th>
              <th scope="col">{m.before}</th>
              <th scope="col">{m.money}</th>
              <th scope="col">{m.goodsControlled}</th>
              <th scope="col">{m.rank}</th>
            </tr>
          </thead>
          <tbody>
            {view.players.map((p) => {
              const finals = view.companies.map((_, i) => finalOf(p.seat, i));
              const final = finals.reduce((a, b) => a + b, 0);
              const goods = view.companies
                .filter((c) => c.delivery_controller === p.seat)
                .reduce((n, c) => n + c.goods.reduce((a, b) => a + b, 0), 0);
              const won = outcome.winners.includes(p.seat);
              return (
                <tr key={p.seat} class={won ? 'sd-won' : undefined} data-testid={`sd-final-${p.seat}`}>
                  <th scope="row">
                    {seatName(p.seat)}
                    {won && <span class="sd-tag"> ★ {m.winner}</span>}
                  </th>
                  {finals.map((amount, i) => (
                    <td key={i} class="sd-nowrap">
                      {amount ? `${p.shares[i]} × $${view.companies[i]!.final_profit} = $${amount}` : ''}
                    </td>
                  ))}
                  <td>${final}</td>
                  <td>${p.money - final}</td>
                  <td>
                    <strong>${outcome.scores[p.seat] ?? p.money}</strong>
                  </td>
                  <td>{goods}</td>
                  <td>{outcome.ranks[p.seat]}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </Scrollable>
    </section>
  );
}
