// Words the tournament screens share: a tournament's status and format, in both languages.
import { defineMessages } from '../i18n';

export const shared = defineMessages({
  status: {
    en: (s: string) => ({ entry: 'entry open', running: 'running', finished: 'finished', cancelled: 'cancelled' })[s] ?? s,
    ja: (s: string) => ({ entry: '参加受付中', running: '進行中', finished: '終了', cancelled: '中止' })[s] ?? s,
  },
  format: {
    en: (f: string) => ({ swiss: 'Swiss', round_robin: 'Round-robin groups' })[f] ?? f,
    ja: (f: string) => ({ swiss: 'スイス式', round_robin: '総当たりグループ' })[f] ?? f,
  },
  rated: { en: 'rated', ja: 'レーティング対象' },
  unrated: { en: 'unrated', ja: 'レーティング対象外' },
  perTable: { en: (n: number) => `${n} per table`, ja: (n: number) => `1卓${n}人` },
  rounds: { en: (n: number) => `${n} ${n === 1 ? 'round' : 'rounds'}`, ja: (n: number) => `${n}ラウンド` },
  players: { en: (n: number, max: number) => `${n}/${max} players`, ja: (n: number, max: number) => `${n}/${max}人` },
});
