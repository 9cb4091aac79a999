// The marks of a game wherever it is named (the lobby's rows, the game's page): rated, private,
// and the tournament and round it was seated for (a link to the tournament's page). A player
// sees a game is rated before joining it.
import { defineMessages, useMessages } from '../i18n';
import type { Schemas } from '../api/client';

type Summary = Schemas['GameSummary'];

const msgs = defineMessages({
  rated: { en: 'Rated', ja: 'レーティング対象' },
  ratedHint: {
    en: "The result moves the players' ratings.",
    ja: 'この結果はプレイヤーのレーティングに反映されます。',
  },
  private: { en: 'Private', ja: '非公開' },
  tournament: {
    en: (name: string, round: number) => `${name} · round ${round}`,
    ja: (name: string, round: number) => `${name}・第${round}ラウンド`,
  },
});

/** Whether a game was created rated (its `rated` option). */
export function isRated(game: Pick<Summary, 'options'>): boolean {
  return (game.options as { rated?: boolean } | null | undefined)?.rated === true;
}

export function GameTags({ game }: { game: Pick<Summary, 'options' | 'visibility' | 'tournament'> }) {
  const m = useMessages(msgs);
  const tournament = game.tournament ?? null;
  return (
    <>
      {isRated(game) && (
        <span class="tag tag-rated" data-testid="rated" title={m.ratedHint}>
          {m.rated}
        </span>
      )}
      {game.visibility === 'private' && <span class="tag">{m.private}</span>}
      {tournament && (
        <a class="tag" href={`/tournaments/${tournament.id}`} data-testid="game-tournament">
          {m.tournament(tournament.name, tournament.round)}
        </a>
      )}
    </>
  );
}
