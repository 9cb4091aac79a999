import { useEffect, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api/client';
import { defineMessages, useLang, useMessages } from '../i18n';
import { useSession } from '../session';
import { gameModule } from '../games/registry';
import { SignIn } from './SignIn';

type Summary = Schemas['GameSummary'];
type ListView = Schemas['ListView'];

const msgs = defineMessages({
  myTurn: { en: 'Your turn', ja: 'あなたの手番' },
  mine: { en: 'My games', ja: '参加中のゲーム' },
  open: { en: 'Open games', ja: '参加者募集中' },
  finished: { en: 'Finished', ja: '終了したゲーム' },
  none: { en: 'None.', ja: 'ありません。' },
  players: { en: 'Players', ja: 'プレイヤー' },
});

function GameRow({ game }: { game: Summary }) {
  const { lang } = useLang();
  const module = gameModule(game.kind);
  const names = game.seats.map((s) => s.username).join(', ');
  return (
    <li>
      <a href={`/games/${game.id}`}>
        {module?.name[lang] ?? game.kind} · {game.seats.length}/{game.seat_count} · {names}
      </a>
    </li>
  );
}

function GameList({ view, title }: { view: ListView; title: string }) {
  const m = useMessages(msgs);
  const [games, setGames] = useState<Summary[] | null>(null);
  useEffect(() => {
    void ok(api.GET('/api/v1/games', { params: { query: { view } } })).then((page) => setGames(page.items));
  }, [view]);
  return (
    <section aria-label={title}>
      <h2>{title}</h2>
      {games === null ? null : games.length === 0 ? (
        <p>{m.none}</p>
      ) : (
        <ul class="games">
          {games.map((g) => (
            <GameRow key={g.id} game={g} />
          ))}
        </ul>
      )}
    </section>
  );
}

export function Lobby() {
  const m = useMessages(msgs);
  const { user } = useSession();
  if (user === undefined) return null;
  if (user === null) return <SignIn />;
  return (
    <div class="lobby">
      <GameList view="my_turn" title={m.myTurn} />
      <GameList view="mine" title={m.mine} />
      <GameList view="open" title={m.open} />
      <GameList view="finished" title={m.finished} />
    </div>
  );
}
