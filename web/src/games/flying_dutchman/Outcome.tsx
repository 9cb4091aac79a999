// The end of the game: each player's wealth (ducats plus the current value of each share
// card, all shown at the end), ranks and winners, and, where ranks tie or skip, why (the
// engine's order: survivors by wealth, then the bankrupt, later bankruptcies first).
import { defineMessages, useLang, useMessages } from '../../i18n';
import type { GameDetail } from '../types';
import { ShareCard, type EndReason, type View } from './common';
import { Scrollable } from '../../components/Scrollable';

const msgs = defineMessages({
  title: { en: 'Final result', ja: '最終結果' },
  rank: { en: 'Rank', ja: '順位' },
  player: { en: 'Player', ja: 'プレイヤー' },
  coins: { en: 'Ducats', ja: 'ドゥカート' },
  shares: { en: 'Shares (value now)', ja: '株（現在の価値）' },
  wealth: { en: 'Wealth', ja: '資産' },
  bankrupt: { en: 'bankrupt', ja: '破産' },
  winner: { en: (names: string) => `Winner: ${names}`, ja: (names: string) => `勝者：${names}` },
  winners: { en: (names: string) => `Shared win: ${names}`, ja: (names: string) => `同点優勝：${names}` },
  round_marker_at18: { en: 'The round marker reached 18.', ja: 'ラウンドマーカーが18に達しました。' },
  last_player_standing: { en: 'Everybody else went bankrupt.', ja: '他の全員が破産しました。' },
  all_bankrupt: {
    en: 'The players still in the game all went bankrupt at the same landing: they share the win.',
    ja: '残っていたプレイヤー全員が同じ着地で破産したため、勝利を分け合います。',
  },
  tied: { en: 'tied', ja: '同点' },
  why: {
    en: 'Equal ranks are ties, and the ranks after a tie are skipped (1, 1, 3). Players still in the game rank by wealth, highest first; bankrupt players rank after them, those who went bankrupt later ahead of those who went bankrupt earlier; players who went bankrupt at the same landing share a rank.',
    ja: '同じ順位は同点で、その次の順位は飛ばされます（1、1、3）。残ったプレイヤーは資産の多い順に並び、破産したプレイヤーはその後に、後で破産した人ほど上位になります。同じ着地で破産したプレイヤーは同じ順位です。',
  },
});

export function FdOutcome({ detail, seatName }: { detail: GameDetail; seatName: (seat: number) => string }) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const view = detail.view as View | null | undefined;
  const outcome = view?.outcome ?? detail.outcome;
  if (!view || !outcome) return null;
  const reason: EndReason | null = view.step.step === 'finished' ? view.step.reason : null;
  const worth = (c: string) => view.markers.find((mk) => mk.colour === c)?.value ?? 0;
  const order = view.players.map((p) => p.seat).sort((a, b) => (outcome.ranks[a] ?? 99) - (outcome.ranks[b] ?? 99));
  const names = outcome.winners.map(seatName).join(', ');
  const tied = (seat: number) => outcome.ranks.filter((r) => r === outcome.ranks[seat]).length > 1;
  const explain = view.players.some((p) => p.bankrupt || tied(p.seat));
  return (
    <section class="fd-outcome" aria-label={m.title} data-testid="fd-outcome">
      <h3>{m.title}</h3>
      {reason && <p>{m[reason]}</p>}
      <p class="fd-winner" data-testid="fd-winners">
        <strong>{outcome.winners.length > 1 ? m.winners(names) : m.winner(names)}</strong>
      </p>
      <Scrollable class="fd-table-wrap" label={m.title}>
        <table>
          <thead>
            <tr>
              <th scope="col" class="fd-rank">{m.rank}</th>
              <th scope="col">{m.player}</th>
              <th scope="col">{m.coins}</th>
              <th scope="col">{m.shares}</th>
              <th scope="col">{m.wealth}</th>
            </tr>
          </thead>
          <tbody>
            {order.map((seat) => {
              const p = view.players.find((pl) => pl.seat === seat)!;
              const score = outcome.scores[seat];
              return (
                <tr key={seat} data-seat={seat}>
                  <td class="fd-rank" data-field="rank">
                    {outcome.ranks[seat]}
                    {tied(seat) && <small> ({m.tied})</small>}
                  </td>
                  <th scope="row">{seatName(seat)}</th>
                  <td>{p.bankrupt ? '—' : p.coins}</td>
                  <td data-hand-of={seat}>
                    {p.bankrupt
                      ? m.bankrupt
                      : (p.shares ?? []).map((c, i) => <ShareCard key={i} colour={c} lang={lang} note={String(worth(c))} />)}
                  </td>
                  <td data-field="wealth">
                    {p.bankrupt || score === null || score === undefined
                      ? '—'
                      : `${[p.coins, ...(p.shares ?? []).map(worth)].join(' + ')} = ${score}`}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </Scrollable>
      {explain && (
        <p class="fd-note" data-testid="fd-ranks-why">
          {m.why}
        </p>
      )}
    </section>
  );
}
