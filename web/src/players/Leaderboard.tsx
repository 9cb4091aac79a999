// The leaderboard of one game kind (`/leaderboards/{kind}`): players whose rating is no
// longer provisional, highest first, paged as the API pages it; public, signed in or not.
import { useEffect, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api/client';
import { defineMessages, useLang, useMessages } from '../i18n';
import { useSession } from '../session';
import { GAMES, gameName } from '../games/registry';
import { PlayerLink } from './PlayerLink';

type Entry = Schemas['LeaderboardEntry'];
// A kind from the address may be any text: the server answers an unknown one with 422.
type Kind = Schemas['KindInfo']['kind'];

const msgs = defineMessages({
  title: { en: (game: string) => `Leaderboard: ${game}`, ja: (game: string) => `ランキング：${game}` },
  kinds: { en: 'Game', ja: 'ゲーム' },
  position: { en: 'Place', ja: '順位' },
  player: { en: 'Player', ja: 'プレイヤー' },
  rating: { en: 'Rating', ja: 'レーティング' },
  games: { en: 'Rated games', ja: 'レーティング対象ゲーム数' },
  empty: {
    en: 'No one yet: a player appears here after 5 rated games, once the rating is settled.',
    ja: 'まだ誰もいません。レーティング対象のゲームを5回遊び、レーティングが安定すると表示されます。',
  },
  more: { en: 'Show more', ja: 'さらに表示' },
  failed: { en: 'The leaderboard could not be loaded.', ja: 'ランキングを読み込めませんでした。' },
});

export function Leaderboard({ kind }: { kind?: string }) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const { user } = useSession();
  const chosen = kind ?? GAMES[0]?.kind ?? 'flying-dutchman';
  const [entries, setEntries] = useState<Entry[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const [failed, setFailed] = useState(false);
  const fetchPage = (after: string | null) =>
    ok(
      api.GET('/api/v1/leaderboards/{kind}', {
        params: { path: { kind: chosen as Kind }, query: { limit: 50, cursor: after ?? undefined } },
      }),
    );
  // Public: read for anyone, once the session check has answered.
  const checked = user !== undefined;
  useEffect(() => {
    if (!checked) return;
    let stale = false;
    setEntries(null);
    setFailed(false);
    fetchPage(null)
      .then((page) => {
        if (stale) return;
        setEntries(page.items);
        setCursor(page.next_cursor ?? null);
      })
      .catch(() => !stale && setFailed(true));
    return () => {
      stale = true;
    };
  }, [chosen, checked]);
  const chosenName = gameName(chosen, lang);
  useEffect(() => {
    document.title = `${m.title(chosenName)} · Kontor`;
  }, [chosenName, lang]);
  if (user === undefined) return null;
  const more = async () => {
    const page = await fetchPage(cursor);
    setEntries((old) => [...(old ?? []), ...page.items]);
    setCursor(page.next_cursor ?? null);
  };
  return (
    <>
      <h1>{m.title(chosenName)}</h1>
      <nav aria-label={m.kinds} class="tabs">
        {GAMES.map((g) => (
          <a key={g.kind} href={`/leaderboards/${g.kind}`} aria-current={g.kind === chosen ? 'page' : undefined}>
            {gameName(g.kind, lang)}
          </a>
        ))}
      </nav>
      {failed && <p role="alert">{m.failed}</p>}
      {entries !== null && entries.length === 0 && <p class="muted">{m.empty}</p>}
      {entries !== null && entries.length > 0 && (
        <table data-testid="leaderboard">
          <thead>
            <tr>
              <th scope="col">{m.position}</th>
              <th scope="col">{m.player}</th>
              <th scope="col">{m.rating}</th>
              <th scope="col">{m.games}</th>
            </tr>
          </thead>
          <tbody>
            {entries.map((e) => (
              <tr key={e.username}>
                <td>{e.position}</td>
                <td>
                  <PlayerLink seat={e} />
                </td>
                <td>{e.rating}</td>
                <td>{e.games}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {cursor && (
        <button type="button" class="secondary" onClick={() => void more()}>
          {m.more}
        </button>
      )}
    </>
  );
}
