// A player's public profile (`/players/{name}`): ratings per game kind (provisional ones
// marked), a short rating history per kind, and the recent finished public games with each
// seat's rank; public, so a visitor signed out sees it too. On one's own profile, "My games"
// follows: every game of mine, filtered by kind, status and result.
import { useEffect, useState } from 'preact/hooks';
import { ApiError, api, ok, type Schemas } from '../api/client';
import { defineMessages, useLang, useMessages } from '../i18n';
import { useSession } from '../session';
import { gameName } from '../games/registry';
import { NotFound } from '../screens/NotFound';
import { playerName } from '../components/names';
import { PlayerLink } from './PlayerLink';
import { MyGames } from './MyGames';

type Profile = Schemas['PlayerProfile'];
type HistoryEntry = Schemas['RatingHistoryEntry'];
type Kind = Schemas['KindInfo']['kind'];

const msgs = defineMessages({
  joined: { en: (d: string) => `Joined ${d}`, ja: (d: string) => `${d}に登録` },
  played: {
    en: (n: number, f: number) => `${n} public ${n === 1 ? 'game' : 'games'} played, ${f} finished`,
    ja: (n: number, f: number) => `公開ゲーム：${n}回参加、${f}回終了`,
  },
  ratings: { en: 'Ratings', ja: 'レーティング' },
  noRatings: { en: 'No rated games yet.', ja: 'レーティング対象のゲームはまだありません。' },
  game: { en: 'Game', ja: 'ゲーム' },
  rating: { en: 'Rating', ja: 'レーティング' },
  games: { en: 'Rated games', ja: 'レーティング対象ゲーム数' },
  provisional: { en: 'provisional', ja: '暫定' },
  provisionalHint: {
    en: 'A rating is provisional until 5 rated games and enough certainty (σ at most 5.0); provisional ratings are not on the leaderboard.',
    ja: 'レーティング対象のゲームを5回遊び、十分に確かになる（σが5.0以下）まで暫定です。暫定のレーティングはランキングに載りません。',
  },
  history: { en: (game: string) => `Recent rating changes: ${game}`, ja: (game: string) => `最近のレーティング変動：${game}` },
  historyHint: {
    en: 'Rated private games are not listed, though they count.',
    ja: '非公開のレーティング対象ゲームは表示されませんが、計算には含まれます。',
  },
  rank: { en: (r: number) => `rank ${r}`, ja: (r: number) => `${r}位` },
  recent: { en: 'Recent games', ja: '最近のゲーム' },
  none: { en: 'None.', ja: 'ありません。' },
  change: { en: (b: number, a: number) => `rating ${b} → ${a}`, ja: (b: number, a: number) => `レーティング ${b} → ${a}` },
  failed: { en: 'The profile could not be loaded.', ja: 'プロフィールを読み込めませんでした。' },
});

function day(iso: string, lang: string) {
  return new Date(iso).toLocaleDateString(lang === 'ja' ? 'ja-JP' : 'en-GB', { year: 'numeric', month: 'short', day: 'numeric' });
}

function signed(n: number) {
  return n > 0 ? `+${n}` : `${n}`;
}

function History({ name, kind }: { name: string; kind: string }) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const [items, setItems] = useState<HistoryEntry[] | null>(null);
  useEffect(() => {
    let stale = false;
    ok(api.GET('/api/v1/players/{username}/ratings/{kind}', { params: { path: { username: name, kind: kind as Kind }, query: { limit: 10 } } }))
      .then((page) => !stale && setItems(page.items))
      .catch(() => {});
    return () => {
      stale = true;
    };
  }, [name, kind]);
  if (!items || items.length === 0) return null;
  const kindName = gameName(kind, lang);
  return (
    <section data-testid={`history-${kind}`}>
      <h3>{m.history(kindName)}</h3>
      <ul>
        {items.map((e) => (
          <li key={e.game_id}>
            <a href={`/games/${e.game_id}`}>{day(e.finished_at, lang)}</a> · {m.rank(e.rank)} · {e.rating_before} → {e.rating_after} (
            {signed(e.rating_after - e.rating_before)})
          </li>
        ))}
      </ul>
      <p class="hint">{m.historyHint}</p>
    </section>
  );
}

export function PlayerProfile({ name }: { name: string }) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const { user } = useSession();
  const [profile, setProfile] = useState<Profile | null>(null);
  const [error, setError] = useState<'missing' | 'failed' | null>(null);
  // Public: read for anyone, signed in or not (once the session check has answered, so a
  // signed-in reader's request carries the session).
  const checked = user !== undefined;
  useEffect(() => {
    if (!checked) return;
    let stale = false;
    setProfile(null);
    setError(null);
    ok(api.GET('/api/v1/players/{username}', { params: { path: { username: name } } }))
      .then((p) => !stale && setProfile(p))
      .catch((e: unknown) => !stale && setError(e instanceof ApiError && e.status === 404 ? 'missing' : 'failed'));
    return () => {
      stale = true;
    };
  }, [name, checked]);
  useEffect(() => {
    if (profile) document.title = `${playerName(profile)} · Kontor`;
  }, [profile]);
  if (user === undefined) return null;
  if (error === 'missing') return <NotFound />;
  if (error === 'failed') return <p role="alert">{m.failed}</p>;
  if (!profile) return null;
  const own = user !== null && profile.username.toLowerCase() === user.username.toLowerCase();
  const kindName = (kind: string) => gameName(kind, lang);
  return (
    <>
      <h1 data-testid="profile-name">{playerName(profile)}</h1>
      <p class="muted">
        {m.joined(day(profile.joined_at, lang))} · {m.played(profile.games_played, profile.games_finished)}
      </p>
      <section aria-labelledby="ratings-title">
        <h2 id="ratings-title">{m.ratings}</h2>
        {profile.ratings.length === 0 ? (
          <p class="muted">{m.noRatings}</p>
        ) : (
          <table data-testid="ratings">
            <thead>
              <tr>
                <th scope="col">{m.game}</th>
                <th scope="col">{m.rating}</th>
                <th scope="col">{m.games}</th>
              </tr>
            </thead>
            <tbody>
              {profile.ratings.map((r) => (
                <tr key={r.kind} data-kind={r.kind}>
                  <td>
                    <a href={`/leaderboards/${r.kind}`}>{kindName(r.kind)}</a>
                  </td>
                  <td>
                    {r.rating} {r.provisional && <span class="tag">{m.provisional}</span>}
                  </td>
                  <td>{r.games}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {profile.ratings.some((r) => r.provisional) && <p class="hint">{m.provisionalHint}</p>}
        {profile.ratings.map((r) => (
          <History key={r.kind} name={profile.username} kind={r.kind} />
        ))}
      </section>
      <section aria-labelledby="recent-title">
        <h2 id="recent-title">{m.recent}</h2>
        {profile.recent.length === 0 ? (
          <p class="muted">{m.none}</p>
        ) : (
          <ul class="games" data-testid="recent">
            {profile.recent.map((g) => (
              <li key={g.id} class="game-row">
                <a href={`/games/${g.id}`}>{kindName(g.kind)}</a> <span class="muted">· {day(g.finished_at, lang)}</span>
                <div class="players">
                  {g.seats.map((s, i) => (
                    <span key={i}>
                      {i > 0 && ', '}
                      <PlayerLink seat={s} />
                      {s.rank != null && <span class="muted"> ({m.rank(s.rank)})</span>}
                    </span>
                  ))}
                </div>
                {g.rating_change && <div>{m.change(g.rating_change.before, g.rating_change.after)}</div>}
              </li>
            ))}
          </ul>
        )}
      </section>
      {own && <MyGames />}
    </>
  );
}
