// When the move must be made: the server's deadline of the seat to move (its time for the
// move, its time bank and any vacation counted in, as the mails say it). The caller's own
// seat's when it is their turn; else the first of the seats to move.
import type { Schemas } from '../api/client';

type Summary = Schemas['GameSummary'];

export function moveDeadline(game: Summary): Date | null {
  if (game.status !== 'active') return null;
  const toMove = game.seats.filter((s) => game.pending.includes(s.seat) && s.deadline);
  const mine = toMove.find((s) => s.seat === game.your_seat);
  const times = (game.your_turn && mine ? [mine] : toMove).map((s) => Date.parse(s.deadline!));
  return times.length ? new Date(Math.min(...times)) : null;
}

/** "2 d 3 h", "3 h 12 min", "4 min 5 s"; negative means overdue. */
export function formatSpan(ms: number, lang: 'en' | 'ja'): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const u = lang === 'ja' ? { d: '日', h: '時間', m: '分', s: '秒' } : { d: ' d', h: ' h', m: ' min', s: ' s' };
  const sep = lang === 'ja' ? '' : ' ';
  if (d > 0) return `${d}${u.d}${sep}${h}${u.h}`;
  if (h > 0) return `${h}${u.h}${sep}${m}${u.m}`;
  return `${m}${u.m}${sep}${sec}${u.s}`;
}
