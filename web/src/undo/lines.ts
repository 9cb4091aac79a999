// The log's lines for the undo family of platform events (GameLog and the undo panel's
// announcements say the same).
import { defineMessages, resolve, type Lang } from '../i18n';
import type { EventOut } from '../games/types';

const msgs = defineMessages({
  requested: {
    en: (who: string, line: number, needs: string) => `${who} asks to take the game back to line ${line}; ${needs} must agree.`,
    ja: (who: string, line: number, needs: string) => `${who}が${line}行目の時点に戻すよう頼みました。${needs}の同意が必要です。`,
  },
  accepted: { en: (who: string) => `${who} agrees to the undo.`, ja: (who: string) => `${who}が取り消しに同意しました。` },
  declined: {
    en: (who: string) => `${who} declines the undo; the request is over.`,
    ja: (who: string) => `${who}が取り消しを断りました。依頼は終了です。`,
  },
  withdrawn: { en: (who: string) => `${who} withdraws the undo request.`, ja: (who: string) => `${who}が取り消しの依頼を取り下げました。` },
  lapsedDeadline: {
    en: 'The undo request lapsed: not every answer came in time.',
    ja: '取り消しの依頼は期限切れになりました：期限までに全員の回答がそろいませんでした。',
  },
  lapsedSeat: {
    en: 'The undo request lapsed: a seat changed hands (a player returned or left), which no undo can reach back across.',
    ja: '取り消しの依頼は無効になりました：席の担当が変わった（プレイヤーが戻った、または退出した）ため、それより前には戻せません。',
  },
  lapsedMoved: {
    en: 'The undo request lapsed: the game moved on.',
    ja: '取り消しの依頼は無効になりました：ゲームが先に進みました。',
  },
  rewoundAgreed: {
    en: (line: number) => `Everyone agreed: the game is back at line ${line}; the moves after it are undone.`,
    ja: (line: number) => `全員が同意しました：${line}行目の時点に戻り、その後の手は取り消されました。`,
  },
  rewoundOwn: {
    en: (who: string, line: number) => `${who} took back their move: the game is back at line ${line}.`,
    ja: (who: string, line: number) => `${who}が自分の手を取り消しました：${line}行目の時点に戻りました。`,
  },
});

type Data = {
  by_seat?: number;
  seat?: number;
  to_version?: number;
  needs?: number[];
  accept?: boolean;
  reason?: string;
  request?: number | null;
};

/** The line for an undo-family event, or null for any other event. */
export function undoLine(event: EventOut, lang: Lang, seatName: (seat: number) => string): string | null {
  const m = resolve(msgs, lang);
  const data = event.data as Data;
  const line = data.to_version ?? 0;
  switch (event.type) {
    case 'kontor.undo_requested':
      return m.requested(seatName(data.by_seat ?? 0), line, (data.needs ?? []).map(seatName).join(lang === 'ja' ? '、' : ', '));
    case 'kontor.undo_answered':
      return data.accept ? m.accepted(seatName(data.seat ?? 0)) : m.declined(seatName(data.seat ?? 0));
    case 'kontor.undo_withdrawn':
      return m.withdrawn(seatName(data.by_seat ?? 0));
    case 'kontor.undo_lapsed':
      return data.reason === 'deadline' ? m.lapsedDeadline : data.reason === 'seat' ? m.lapsedSeat : m.lapsedMoved;
    case 'kontor.rewound':
      return data.request !== undefined && data.request !== null ? m.rewoundAgreed(line) : m.rewoundOwn(seatName(data.by_seat ?? 0), line);
    default:
      return null;
  }
}
