// Whose turn it is, with the move's deadline counting down, and every seat with who plays
// it (its player, or the bot after too many timeouts). A live region, so a screen reader
// hears when the turn passes.
import { defineMessages, useMessages } from '../i18n';
import type { GameDetail } from '../games/types';
import { moveDeadline } from './time';
import { Countdown } from './Countdown';
import { PlayerLink } from '../players/PlayerLink';

const msgs = defineMessages({
  yourTurn: { en: 'Your turn.', ja: 'あなたの手番です。' },
  waitingFor: { en: (who: string) => `Waiting for ${who}.`, ja: (who: string) => `${who}の手番です。` },
  over: { en: 'The game is over.', ja: 'ゲームは終了しました。' },
  cancelled: { en: 'The game was cancelled.', ja: 'ゲームは中止されました。' },
  noLimit: { en: 'no time limit', ja: '時間制限なし' },
  seats: { en: 'Turn and seats', ja: '手番と席' },
  toMove: { en: 'to move', ja: '手番' },
  you: { en: 'you', ja: 'あなた' },
  bot: { en: 'bot plays', ja: 'ボットが操作' },
  forfeited: { en: 'forfeited', ja: '失格' },
});

export function TurnBar({ detail, seatName }: { detail: GameDetail; seatName: (s: number) => string }) {
  const m = useMessages(msgs);
  const deadline = moveDeadline(detail);
  const status =
    detail.status === 'finished'
      ? m.over
      : detail.status === 'cancelled'
        ? m.cancelled
        : detail.your_turn
          ? m.yourTurn
          : m.waitingFor(detail.pending.map(seatName).join(', '));
  return (
    <section class="turn" aria-label={m.seats}>
      <p class={detail.your_turn ? 'your-turn' : undefined}>
        {/* Where the focus goes after one's own move when no decision follows (GamePage). */}
        <strong aria-live="polite" data-testid="turn" id="turn-status" tabIndex={-1}>
          {status}
        </strong>{' '}
        {detail.status === 'active' && (deadline ? <Countdown deadline={deadline} /> : <span class="muted">({m.noLimit})</span>)}
      </p>
      <ul class="seat-list">
        {detail.seats.map((s) => {
          const notes = [
            s.seat === detail.your_seat ? m.you : null,
            detail.pending.includes(s.seat) && detail.status === 'active' ? `▶ ${m.toMove}` : null,
            s.state === 'abandoned' ? m.bot : s.state === 'forfeited' ? m.forfeited : null,
          ].filter(Boolean);
          return (
            <li key={s.seat} class={detail.pending.includes(s.seat) ? 'pending' : undefined}>
              {s.seat + 1}. <PlayerLink seat={s} />
              {notes.length > 0 && <span class="muted"> ({notes.join(', ')})</span>}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
