// When the player to move must have moved: `turn_started_at` plus the time control's
// seconds per move, not counting Saturdays and Sundays (UTC) when the game pauses them.
// A seat's time bank and a vacation can give more; the API does not publish either per
// seat, so this is the move's own deadline.
import type { Schemas } from '../api/client';

type Summary = Schemas['GameSummary'];
const DAY = 86_400_000;

export function moveDeadline(game: Summary): Date | null {
  const tc = game.time_control;
  if (game.status !== 'active' || !tc || !game.turn_started_at) return null;
  const start = Date.parse(game.turn_started_at);
  if (!tc.weekends_paused) return new Date(start + tc.seconds_per_move * 1000);
  let t = start;
  let left = tc.seconds_per_move * 1000;
  while (left > 0) {
    const day = new Date(t).getUTCDay();
    const midnight = Math.floor(t / DAY) * DAY + DAY;
    if (day === 0 || day === 6) {
      t = midnight;
      continue;
    }
    const step = Math.min(left, midnight - t);
    t += step;
    left -= step;
  }
  return new Date(t);
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
