// A tournament's page: its settings, its players, the organiser's early start, joining and
// leaving during entry and withdrawing once it runs, the standings, and each round's tables
// with links to their games and the results; every player's name links to their profile.
// Live through the caller's own stream (`/me/stream`): a tournament of theirs starting, a
// round seated, a player entering or leaving (to the organiser and the entrants) or the
// tournament finished reloads it, as does a game of theirs starting or ending; coming back
// to the tab reloads too, since a spectator of the tournament gets no events of it.
import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, ok, type Schemas } from '../api/client';
import { errorText } from '../api/errors';
import { follow } from '../api/stream';
import { defineMessages, useLang, useMessages } from '../i18n';
import { useSession } from '../session';
import { gameName } from '../games/registry';
import { useWhen } from '../components/when';
import { ConfirmButton } from '../components/ConfirmButton';
import { SignIn } from '../screens/SignIn';
import { PlayerLink } from '../players/PlayerLink';
import { tournamentErrors } from './errors';
import { shared } from './text';

type Tournament = Schemas['Tournament'];
type Round = Tournament['rounds_played'][number];
/** The games' time control as the tournament records it (a time control request). */
type TimeControl = { days_per_move?: number | null; bank_days?: number | null };

const msgs = defineMessages({
  loading: { en: 'Loading…', ja: '読み込み中…' },
  notFound: { en: 'There is no such tournament.', ja: 'そのトーナメントはありません。' },
  back: { en: 'All tournaments', ja: 'トーナメント一覧' },
  settings: { en: 'Settings', ja: '設定' },
  game: { en: 'Game', ja: 'ゲーム' },
  format: { en: 'Format', ja: '形式' },
  tables: { en: 'Tables', ja: '卓' },
  ratedLabel: { en: 'Ratings', ja: 'レーティング' },
  time: { en: 'Time per move', ja: '1手の持ち時間' },
  noLimit: { en: 'no limit', ja: '制限なし' },
  days: {
    en: (d: number, bank: number) => `${d} ${d === 1 ? 'day' : 'days'}${bank > 0 ? `, bank ${bank} ${bank === 1 ? 'day' : 'days'}` : ''}`,
    ja: (d: number, bank: number) => `${d}日${bank > 0 ? `、予備${bank}日` : ''}`,
  },
  closes: { en: 'Entry closes', ja: '受付締切' },
  organiser: { en: 'Organiser', ja: '主催者' },
  status: { en: 'Status', ja: '状態' },
  join: { en: 'Join', ja: '参加する' },
  leave: { en: 'Leave', ja: '参加を取り消す' },
  withdraw: { en: 'Withdraw', ja: '棄権する' },
  withdrawQuestion: {
    en: 'Withdraw from the tournament? Your running games go to their abandonment rule and you are not seated again.',
    ja: 'トーナメントを棄権しますか？進行中のゲームの席は放棄の規定に従い、以後は組み合わせに入りません。',
  },
  start: { en: 'Start now', ja: '今すぐ開始' },
  startQuestion: { en: 'Start the tournament now, closing entry?', ja: '参加受付を締め切ってトーナメントを開始しますか？' },
  joined: { en: 'You have entered.', ja: '参加しています。' },
  withdrawnYou: { en: 'You have withdrawn.', ja: '棄権しました。' },
  players: { en: 'Players', ja: 'プレイヤー' },
  nobody: { en: 'Nobody has entered yet.', ja: 'まだ参加者はいません。' },
  withdrawn: { en: 'withdrawn', ja: '棄権' },
  standings: { en: 'Standings', ja: '順位' },
  position: { en: 'Place', ja: '順位' },
  player: { en: 'Player', ja: 'プレイヤー' },
  points: { en: 'Points', ja: '得点' },
  opponents: { en: 'Opponents’ points', ja: '対戦相手の得点' },
  wins: { en: 'First places', ja: '1位の回数' },
  tiebreakHint: {
    en: 'Ties are broken by the opponents’ points, then by first places, then by the tournament’s recorded seeded order.',
    ja: '同点の場合は、対戦相手の得点、1位の回数、トーナメントの記録されたシード順の順に比べます。',
  },
  noStandings: { en: 'The standings begin with the first round.', ja: '順位は第1ラウンドから始まります。' },
  round: { en: (n: number) => `Round ${n}`, ja: (n: number) => `第${n}ラウンド` },
  roundStatus: {
    en: (s: string) => ({ running: 'playing', finished: 'over' })[s] ?? s,
    ja: (s: string) => ({ running: '対局中', finished: '終了' })[s] ?? s,
  },
  adjudicated: {
    en: 'unfinished at the round’s deadline: it goes on, but does not count',
    ja: 'ラウンドの期限までに終わらず：対局は続きますが、得点には数えません',
  },
  gameOver: { en: 'game over', ja: '終局' },
  deadline: { en: (at: string) => `deadline ${at}`, ja: (at: string) => `期限 ${at}` },
  table: { en: (n: number) => `Table ${n}`, ja: (n: number) => `第${n}卓` },
  toGame: { en: 'Go to the game', ja: 'ゲームへ' },
  yourGame: { en: 'Your game', ja: 'あなたのゲーム' },
  rank: { en: (r: number) => `rank ${r}`, ja: (r: number) => `${r}位` },
  pts: { en: (p: number) => `${p} pt`, ja: (p: number) => `${p}点` },
  noRounds: { en: 'The first round is seated when the tournament starts.', ja: '第1ラウンドはトーナメントの開始時に組まれます。' },
});

/** The events of the caller's stream after which a tournament page reads again: the
 * tournament's own, and a game of theirs starting (a round seated starts it) or ending (the
 * round, and so the standings, may move on). */
const RELOAD_ON = new Set([
  'tournament_started',
  'tournament_round',
  'tournament_finished',
  'tournament_cancelled',
  // A player entered or took the entry back (told to the organiser and the entrants).
  'tournament_entrants',
  'game_started',
  'game_over',
]);

function RoundTables({ round, me }: { round: Round; me: string }) {
  const m = useMessages(msgs);
  const when = useWhen();
  return (
    <section class="round" data-testid="round" data-round={round.number} aria-labelledby={`round-${round.number}`}>
      <h3 id={`round-${round.number}`}>
        {m.round(round.number)} <span class="muted">· {m.roundStatus(round.status)}</span>
        {round.deadline && round.status === 'running' && <span class="muted"> · {m.deadline(when(round.deadline))}</span>}
      </h3>
      <ol class="games">
        {round.tables.map((table, i) => {
          const mine = table.seats.some((s) => s.username === me);
          return (
            <li key={table.game_id} data-testid="tournament-table" data-game-id={table.game_id} data-mine={mine}>
              <strong>{m.table(i + 1)}</strong>{' '}
              <a href={`/games/${table.game_id}`}>{mine ? m.yourGame : m.toGame}</a>
              {table.game_status === 'finished' && <span class="muted"> · {m.gameOver}</span>}
              {table.adjudicated && <span class="tag">{m.adjudicated}</span>}
              <ul class="seat-list">
                {table.seats.map((seat) => (
                  <li key={seat.username}>
                    <PlayerLink seat={seat} />
                    {seat.rank != null && <span class="muted"> · {m.rank(seat.rank)}</span>}
                    {seat.points != null && <span class="muted"> · {m.pts(seat.points)}</span>}
                  </li>
                ))}
              </ul>
            </li>
          );
        })}
      </ol>
    </section>
  );
}

export function TournamentPage({ id }: { id: string }) {
  const m = useMessages(msgs);
  const s = useMessages(shared);
  const { lang } = useLang();
  const when = useWhen();
  const { user } = useSession();
  const [tournament, setTournament] = useState<Tournament | null>(null);
  const [missing, setMissing] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [refresh, setRefresh] = useState(0);

  useEffect(() => {
    if (!user) return;
    let stale = false;
    void ok(api.GET('/api/v1/tournaments/{tournament_id}', { params: { path: { tournament_id: id } } }))
      .then((t) => {
        if (stale) return;
        setTournament(t);
        document.title = `${t.name} · Kontor`;
      })
      .catch((err) => {
        if (!stale && err instanceof ApiError && (err.status === 404 || err.status === 400)) setMissing(true);
      });
    return () => {
      stale = true;
    };
  }, [id, user, refresh]);

  useEffect(() => {
    if (!user) return;
    // Events come in bursts (a round seated starts several games): one reload for each.
    let pending: ReturnType<typeof setTimeout> | undefined;
    const bump = () => {
      clearTimeout(pending);
      pending = setTimeout(() => setRefresh((n) => n + 1), 150);
    };
    const onVisible = () => document.visibilityState === 'visible' && bump();
    document.addEventListener('visibilitychange', onVisible);
    // Each snapshot (the stream's first, or one after a reconnect) is followed by a read: the
    // page's first read ran while the stream was still connecting, and an entrant who came in
    // between would be missed until a reload.
    const stop = follow('/api/v1/me/stream', {
      onMessage: (message) => {
        if (message.event === 'snapshot' || RELOAD_ON.has(message.event)) bump();
      },
    });
    return () => {
      stop();
      clearTimeout(pending);
      document.removeEventListener('visibilitychange', onVisible);
    };
  }, [id, user]);

  if (user === undefined) return null;
  if (user === null) return <SignIn />;
  if (missing) {
    return (
      <section>
        <h1>{m.notFound}</h1>
        <p>
          <a href="/tournaments">{m.back}</a>
        </p>
      </section>
    );
  }
  if (!tournament) return <p aria-busy="true">{m.loading}</p>;
  const t = tournament;
  const me = user.username;
  const entry = t.players.find((p) => p.username === me);
  const organiser = t.organiser === me;

  const act = async (call: () => Promise<unknown>) => {
    setError(null);
    setBusy(true);
    try {
      await call();
      setRefresh((n) => n + 1);
    } catch (err) {
      setError(errorText(err, lang, tournamentErrors));
    } finally {
      setBusy(false);
    }
  };
  const path = { params: { path: { tournament_id: id } } };
  const join = () => act(() => ok(api.POST('/api/v1/tournaments/{tournament_id}/join', path)));
  const leave = () => act(() => ok(api.DELETE('/api/v1/tournaments/{tournament_id}/join', path)));
  const withdraw = () => act(() => ok(api.POST('/api/v1/tournaments/{tournament_id}/withdraw', path)));
  const start = () => act(() => ok(api.POST('/api/v1/tournaments/{tournament_id}/start', path)));
  const tc = t.time_control as TimeControl | null | undefined;

  return (
    <article class="tournament" data-testid="tournament" data-status={t.status}>
      <p>
        <a href="/tournaments">{m.back}</a>
      </p>
      <h1>{t.name}</h1>
      <p>
        <span class="tag" data-testid="tournament-status">
          {s.status(t.status)}
        </span>
      </p>
      <section aria-labelledby="t-settings">
        <h2 id="t-settings">{m.settings}</h2>
        <dl class="settings">
          <dt>{m.game}</dt>
          <dd>{gameName(t.kind, lang)}</dd>
          <dt>{m.format}</dt>
          <dd>
            {s.format(t.format)} · {s.rounds(t.rounds)}
          </dd>
          <dt>{m.tables}</dt>
          <dd>{s.perTable(t.seats_per_table)}</dd>
          <dt>{m.ratedLabel}</dt>
          <dd>{t.rated ? s.rated : s.unrated}</dd>
          <dt>{m.time}</dt>
          <dd>{tc?.days_per_move ? m.days(tc.days_per_move, tc.bank_days ?? 0) : m.noLimit}</dd>
          <dt>{m.closes}</dt>
          <dd>{when(t.entry_closes_at)}</dd>
          <dt>{m.organiser}</dt>
          <dd>{t.organiser}</dd>
        </dl>
      </section>

      <div class="buttons">
        {t.status === 'entry' && !entry && (
          <button type="button" disabled={busy} onClick={() => void join()}>
            {m.join}
          </button>
        )}
        {t.status === 'entry' && entry && (
          <>
            <span data-testid="entered">{m.joined}</span>
            <button type="button" class="secondary" disabled={busy} onClick={() => void leave()}>
              {m.leave}
            </button>
          </>
        )}
        {t.status === 'entry' && organiser && (
          <ConfirmButton question={m.startQuestion} disabled={busy} onConfirm={() => void start()}>
            {m.start}
          </ConfirmButton>
        )}
        {t.status === 'running' && entry && !entry.withdrawn && (
          <ConfirmButton question={m.withdrawQuestion} disabled={busy} onConfirm={() => void withdraw()}>
            {m.withdraw}
          </ConfirmButton>
        )}
        {entry?.withdrawn && <span>{m.withdrawnYou}</span>}
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}

      <section aria-labelledby="t-players">
        <h2 id="t-players">
          {m.players} <span class="muted">{s.players(t.players.length, t.max_players)}</span>
        </h2>
        {t.players.length === 0 ? (
          <p class="muted">{m.nobody}</p>
        ) : (
          <ul class="seat-list" data-testid="tournament-players">
            {t.players.map((p) => (
              <li key={p.username}>
                <PlayerLink seat={p} />
                {p.withdrawn && <span class="muted"> ({m.withdrawn})</span>}
              </li>
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="t-standings">
        <h2 id="t-standings">{m.standings}</h2>
        {t.standings.length === 0 ? (
          <p class="muted">{m.noStandings}</p>
        ) : (
          <table class="ranks" data-testid="standings" aria-describedby="t-tiebreaks">
            <thead>
              <tr>
                <th scope="col">{m.position}</th>
                <th scope="col">{m.player}</th>
                <th scope="col">{m.points}</th>
                <th scope="col">{m.opponents}</th>
                <th scope="col">{m.wins}</th>
              </tr>
            </thead>
            <tbody>
              {t.standings.map((row) => (
                <tr key={row.username}>
                  <td>{row.position}</td>
                  <th scope="row">
                    <PlayerLink seat={row} />
                    {row.withdrawn && <span class="muted"> ({m.withdrawn})</span>}
                  </th>
                  <td>{row.points}</td>
                  <td>{row.opponents_points}</td>
                  <td>{row.wins}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {t.standings.length > 0 && (
          <p id="t-tiebreaks" class="hint">
            {m.tiebreakHint}
          </p>
        )}
      </section>

      <section aria-labelledby="t-rounds">
        <h2 id="t-rounds">{m.tables}</h2>
        {t.rounds_played.length === 0 ? (
          <p class="muted">{m.noRounds}</p>
        ) : (
          [...t.rounds_played].reverse().map((round) => <RoundTables key={round.number} round={round} me={me} />)
        )}
      </section>
    </article>
  );
}
