// The tournament refusals in Japanese, by their `code` (English shows the server's detail).
import type { CodeMessages } from '../api/errors';

export const tournamentErrors: CodeMessages = {
  tournament_not_found: { en: 'There is no such tournament.', ja: 'そのトーナメントはありません。' },
  organiser_not_allowed: {
    en: 'You may not organise tournaments on this server.',
    ja: 'このサーバーではトーナメントを主催できません。',
  },
  not_the_organiser: { en: 'Only the organiser may do this.', ja: '主催者だけが行えます。' },
  tournament_wrong_status: {
    en: 'The tournament is not in a state that allows this.',
    ja: 'トーナメントの状態のため、これは行えません。',
  },
  tournament_full: { en: 'The tournament is full.', ja: 'トーナメントは満員です。' },
  tournament_not_entered: { en: 'You have not entered this tournament.', ja: 'このトーナメントに参加していません。' },
  tournament_already_withdrawn: { en: 'You withdrew from this tournament already.', ja: 'このトーナメントはすでに棄権しています。' },
  tournament_too_few_players: { en: 'Too few players have entered to fill a table.', ja: '1卓を埋めるだけの参加者がいません。' },
  unknown_game_kind: { en: 'There is no such game.', ja: 'そのゲームはありません。' },
};
