// "My games": every game of mine (`GET /games?view=mine`), filtered by kind, status and
// result (won: my seat ranked first; a result means a finished game), paged.
import { useEffect, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api/client';
import { defineMessages, useLang, useMessages } from '../i18n';
import { GAMES, gameName } from '../games/registry';
import { PlayerLink } from './PlayerLink';

type Summary = Schemas['GameSummary'];
type Status = NonNullable<Summary['status']>;
type Result = Schemas['GameResult'];

const msgs = defineMessages({
  title: { en: 'My games', ja: '自分のゲーム' },
  kind: { en: 'Game', ja: 'ゲーム' },
  status: { en: 'Status', ja: '状態' },
  result: { en: 'Result', ja: '結果' },
  any: { en: 'Any', ja: 'すべて' },
  statuses: {
    en: (s: string) => ({ open: 'waiting for players', active: 'running', finished: 'finished' })[s] ?? s,
    ja: (s: string) => ({ open: '募集中', active: '進行中', finished: '終了' })[s] ?? s,
  },
  won: { en: 'Won', ja: '勝ち' },
  notWon: { en: 'Not won', ja: '勝ち以外' },
  resultHint: { en: 'A result shows finished games only.', ja: '結果で絞り込むと終了したゲームのみ表示されます。' },
  none: { en: 'None.', ja: 'ありません。' },
  more: { en: 'Show more', ja: 'さらに表示' },
});

const STATUSES: Status[] = ['open', 'active', 'finished'];

export function MyGames() {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const [kind, setKind] = useState('');
  const [status, setStatus] = useState<Status | ''>('');
  const [result, setResult] = useState<Result | ''>('');
  const [games, setGames] = useState<Summary[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  // A result needs finished games: the status follows.
  const effectiveStatus = result ? 'finished' : status;
  const fetchPage = (after: string | null) =>
    ok(
      api.GET('/api/v1/games', {
        params: {
          query: {
            view: 'mine',
            kind: (kind || undefined) as Summary['kind'] | undefined,
            status: effectiveStatus || undefined,
            result: result || undefined,
            limit: 20,
            cursor: after ?? undefined,
          },
        },
      }),
    );
  useEffect(() => {
    let stale = false;
    fetchPage(null)
      .then((page) => {
        if (stale) return;
        setGames(page.items);
        setCursor(page.next_cursor ?? null);
      })
      .catch(() => {});
    return () => {
      stale = true;
    };
  }, [kind, effectiveStatus, result]);
  const more = async () => {
    const page = await fetchPage(cursor);
    setGames((old) => [...(old ?? []), ...page.items]);
    setCursor(page.next_cursor ?? null);
  };
  return (
    <section aria-labelledby="my-games-title" data-testid="my-games" data-loaded={games !== null}>
      <h2 id="my-games-title">{m.title}</h2>
      <div class="filters">
        <label>
          {m.kind}{' '}
          <select value={kind} onChange={(e) => setKind(e.currentTarget.value)}>
            <option value="">{m.any}</option>
            {GAMES.map((g) => (
              <option key={g.kind} value={g.kind}>
                {gameName(g.kind, lang)}
              </option>
            ))}
          </select>
        </label>{' '}
        <label>
          {m.status}{' '}
          <select value={effectiveStatus} disabled={result !== ''} onChange={(e) => setStatus(e.currentTarget.value as Status | '')}>
            <option value="">{m.any}</option>
            {STATUSES.map((s) => (
              <option key={s} value={s}>
                {m.statuses(s)}
              </option>
            ))}
          </select>
        </label>{' '}
        <label>
          {m.result}{' '}
          <select value={result} onChange={(e) => setResult(e.currentTarget.value as Result | '')} aria-describedby="result-hint">
            <option value="">{m.any}</option>
            <option value="won">{m.won}</option>
            <option value="not_won">{m.notWon}</option>
          </select>
        </label>
        <small id="result-hint" class="hint">
          {m.resultHint}
        </small>
      </div>
      {games !== null && games.length === 0 && <p class="muted">{m.none}</p>}
      {games !== null && games.length > 0 && (
        <ul class="games">
          {games.map((g) => (
            <li key={g.id} class="game-row" data-testid="my-game" data-game-id={g.id}>
              <a href={`/games/${g.id}`}>{gameName(g.kind, lang)}</a>
              <span class="muted"> · {m.statuses(g.status)}</span>
              <div class="players">
                {g.seats.map((s, i) => (
                  <span key={s.seat}>
                    {i > 0 && ', '}
                    <PlayerLink seat={s} />
                  </span>
                ))}
              </div>
            </li>
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
