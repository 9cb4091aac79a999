// The end of the game: each player's wealth (ducats plus the current value of each share
// card, all shown at the end), ranks and winners.
import { defineMessages, useLang, useMessages } from '../../i18n';
import type { GameDetail } from '../types';
import { ShareCard, type EndReason, type View } from './common';

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
  all_bankrupt: { en: 'The last players went bankrupt together and share the win.', ja: '残りの全員が同時に破産し、勝利を分け合います。' },
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
  return (
    <section class="fd-outcome" aria-label={m.title} data-testid="fd-outcome">
      <h3>{m.title}</h3>
      {reason && <p>{m[reason]}</p>}
      <p class="fd-winner" data-testid="fd-winners">
        <strong>{outcome.winners.length > 1 ? m.winners(names) : m.winner(names)}</strong>
      </p>
      <div class="fd-table-wrap">
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
                  <td class="fd-rank">{outcome.ranks[seat]}</td>
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
      </div>
    </section>
  );
}
