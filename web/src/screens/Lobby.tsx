// The lobby: the games waiting for my move first (with the time left), then my running
// games, my games still waiting for players, open games to join and finished games (mine,
// and others' public games outside tournaments). Each row says who plays, when, whether it
// is rated and which tournament's round it is. Each list pages as the API does. The lobby's live stream (`/lobby/stream`) refreshes the lists
// whenever a game opens, a seat is taken or given up, a game starts, ends or is cancelled,
// or a turn comes; so does a click on the Lobby link, and coming back to the tab.
import { useEffect, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api/client';
import { follow } from '../api/stream';
import { defineMessages, useLang, useMessages } from '../i18n';
import { useSession } from '../session';
import { gameName } from '../games/registry';
import { Countdown } from '../components/Countdown';
import { moveDeadline } from '../components/time';
import { SignIn } from './SignIn';
import { playerName } from '../components/names';
import { PlayerLink } from '../players/PlayerLink';
import { GameTags } from '../components/GameTags';
import { useWhen } from '../components/when';

type Summary = Schemas['GameSummary'];
type ListView = Schemas['ListView'];

const msgs = defineMessages({
  title: { en: 'Lobby', ja: 'ロビー' },
  myTurn: { en: 'Your turn', ja: 'あなたの手番' },
  running: { en: 'My running games', ja: '進行中のゲーム' },
  waiting: { en: 'My games waiting for players', ja: '参加者を待っているゲーム' },
  open: { en: 'Open games to join', ja: '参加者募集中のゲーム' },
  finished: { en: 'Finished games', ja: '終了したゲーム' },
  none: { en: 'None.', ja: 'ありません。' },
  more: { en: 'Show more', ja: 'さらに表示' },
  newGame: { en: 'Start a new game', ja: '新しいゲームを作る' },
  seats: { en: (n: number, of: number) => `${n}/${of} seats`, ja: (n: number, of: number) => `${n}/${of}席` },
  status: {
    en: (s: string) => ({ open: 'waiting for players', active: 'running', finished: 'finished', cancelled: 'cancelled' })[s] ?? s,
    ja: (s: string) => ({ open: '募集中', active: '進行中', finished: '終了', cancelled: '中止' })[s] ?? s,
  },
  yourMove: { en: 'your move', ja: 'あなたの手番' },
  toMove: { en: (who: string) => `${who} to move`, ja: (who: string) => `${who}の手番` },
  won: { en: (who: string) => `won by ${who}`, ja: (who: string) => `勝者：${who}` },
  finishedAt: { en: (w: string) => `ended ${w}`, ja: (w: string) => `${w}に終了` },
  startedAt: { en: (w: string) => `started ${w}`, ja: (w: string) => `${w}に開始` },
  createdAt: { en: (w: string) => `opened ${w}`, ja: (w: string) => `${w}に作成` },
  playersWatch: { en: 'only players watch', ja: '観戦は参加者のみ' },
  count: { en: (n: number) => `(${n})`, ja: (n: number) => `（${n}）` },
  chatUnread: { en: (n: number) => `${n} unread in the chat`, ja: (n: number) => `チャット未読${n}件` },
  chat: {
    en: (c: string) => ({ full: 'chat with private channels', table: 'table chat', none: 'no chat' })[c] ?? c,
    ja: (c: string) => ({ full: 'チャット（非公開あり）', table: 'テーブルチャット', none: 'チャットなし' })[c] ?? c,
  },
});

function GameRow({ game }: { game: Summary }) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const when = useWhen();
  const name = (seat: number) => {
    const s = game.seats.find((s) => s.seat === seat);
    return s ? playerName(s) : `#${seat + 1}`;
  };
  const deadline = moveDeadline(game);
  const chatSetting = game.options?.chat;
  const winners = (game.outcome as Schemas['Outcome'] | null | undefined)?.winners ?? [];
  let turn: string | null = null;
  if (game.status === 'active') turn = game.your_turn ? m.yourMove : m.toMove(game.pending.map(name).join(', '));
  else if (game.status === 'finished' && winners.length > 0) turn = m.won(winners.map(name).join(', '));
  // When: a finished game by its end, a running one by its start, an open one by its making.
  const at = game.finished_at ?? game.started_at ?? game.created_at;
  const atWords = game.finished_at ? m.finishedAt(when(at)) : game.started_at ? m.startedAt(when(at)) : m.createdAt(when(at));
  return (
    <li class="game-row" data-testid="game-row" data-game-id={game.id}>
      <a href={`/games/${game.id}`}>{gameName(game.kind, lang)}</a>
      <GameTags game={game} />
      {(game.options as { spectators?: Schemas['Spectators'] }).spectators === 'players' && <span class="tag">{m.playersWatch}</span>}
      {chatSetting && <span class="tag" data-testid="chat-setting">{m.chat(chatSetting)}</span>}
      {(game.chat_unread ?? 0) > 0 && (
        <a class="tag unread" href={`/games/${game.id}`} data-testid="chat-unread">
          {m.chatUnread(game.chat_unread ?? 0)}
        </a>
      )}
      <span class="muted">
        {' '}
        · {m.status(game.status)} · {m.seats(game.seats.length, game.seat_count)}
      </span>
      <div class="players">
        {game.seats.map((s, i) => (
          <span key={s.seat}>
            {i > 0 && ', '}
            <PlayerLink seat={s} />
          </span>
        ))}
        <span class="muted">
          {' '}
          · <time dateTime={at}>{atWords}</time>
        </span>
      </div>
      {(turn || deadline) && (
        <div class={game.your_turn ? 'your-turn' : undefined}>
          {turn && <strong>{turn}</strong>} {deadline && <Countdown deadline={deadline} />}
        </div>
      )}
    </li>
  );
}

function GameList(props: {
  view: ListView;
  status?: Schemas['GameSummary']['status'];
  title: string;
  refresh: number;
  id: string;
  notMine?: boolean;
  tournamentGames?: Schemas['TournamentGamesFilter'];
}) {
  const m = useMessages(msgs);
  const [games, setGames] = useState<Summary[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  // "Open games to join" leaves out my own (they are listed as mine, waiting for players).
  const fetchPage = async (after: string | null) => {
    const page = await ok(
      api.GET('/api/v1/games', {
        params: { query: { view: props.view, status: props.status, tournament_games: props.tournamentGames, limit: 20, cursor: after ?? undefined } },
      }),
    );
    return props.notMine ? { ...page, items: page.items.filter((g) => g.your_seat == null) } : page;
  };
  // A refresh starts again from the first page (what changed is most likely there).
  useEffect(() => {
    let stale = false;
    void fetchPage(null)
      .then((page) => {
        if (stale) return;
        setGames(page.items);
        setCursor(page.next_cursor ?? null);
      })
      .catch(() => {});
    return () => {
      stale = true;
    };
  }, [props.view, props.status, props.refresh]);
  const more = async () => {
    const page = await fetchPage(cursor);
    setGames((old) => [...(old ?? []), ...page.items.filter((g) => !old?.some((o) => o.id === g.id))]);
    setCursor(page.next_cursor ?? null);
  };
  return (
    <section aria-labelledby={props.id} data-testid={`list-${props.id}`} data-loaded={games !== null}>
      <h2 id={props.id}>
        {props.title}{' '}
        <span class="muted" aria-live={props.view === 'my_turn' ? 'polite' : undefined}>
          {games && games.length > 0 ? m.count(games.length) : ''}
        </span>
      </h2>
      {games === null ? null : games.length === 0 ? (
        <p class="muted">{m.none}</p>
      ) : (
        <ul class="games">
          {games.map((g) => (
            <GameRow key={g.id} game={g} />
          ))}
        </ul>
      )}
      {cursor && (
        <button type="button" class="secondary" onClick={() => void more()}>
          {m.more}
        </button>
      )}
    </section>
  );
}

export function Lobby() {
  const m = useMessages(msgs);
  const { user } = useSession();
  const [refresh, setRefresh] = useState(0);
  useEffect(() => {
    if (!user) return;
    document.title = 'Kontor';
    // Events come in bursts (a start and a turn): one refresh for each burst.
    let pending: ReturnType<typeof setTimeout> | undefined;
    const bump = () => {
      clearTimeout(pending);
      pending = setTimeout(() => setRefresh((n) => n + 1), 150);
    };
    // Coming back to the tab also refreshes: a stream may have been cut while asleep.
    const onVisible = () => document.visibilityState === 'visible' && bump();
    document.addEventListener('visibilitychange', onVisible);
    // A click on a link to the lobby while on it (the router sees no change of address).
    const onClick = (e: MouseEvent) => {
      const link = e.target instanceof Element ? e.target.closest('a') : null;
      if (link?.getAttribute('href') === '/') bump();
    };
    document.addEventListener('click', onClick);
    // The first snapshot is what the lists just loaded; a later one follows a reconnect,
    // after which anything may have changed. Every other event (chat_unread included: the
    // unread chat counts) changes a list.
    let connectedBefore = false;
    const stop = follow('/api/v1/lobby/stream', {
      onMessage: (message) => {
        if (message.event === 'snapshot' && !connectedBefore) connectedBefore = true;
        else bump();
      },
    });
    return () => {
      stop();
      clearTimeout(pending);
      document.removeEventListener('visibilitychange', onVisible);
      document.removeEventListener('click', onClick);
    };
  }, [user]);
  if (user === undefined) return null;
  if (user === null) return <SignIn />;
  return (
    <>
      <h1 class="visually-hidden">{m.title}</h1>
      <p>
        <a href="/new" class="button">
          {m.newGame}
        </a>
      </p>
      <div class="lobby">
        <GameList id="my-turn" view="my_turn" title={m.myTurn} refresh={refresh} />
        <GameList id="running" view="mine" status="active" title={m.running} refresh={refresh} />
        <GameList id="waiting" view="mine" status="open" title={m.waiting} refresh={refresh} />
        <GameList id="open" view="open" title={m.open} refresh={refresh} notMine />
        {/* Others' tournament games are on their tournament's page, not here. */}
        <GameList id="finished" view="finished" title={m.finished} refresh={refresh} tournamentGames="mine" />
      </div>
    </>
  );
}
