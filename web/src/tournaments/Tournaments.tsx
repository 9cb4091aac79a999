// The tournaments: those open for entry, running and finished (each list a page at a time,
// newest first, with a "show more" button while the API has a next page), and the form that creates one (shown to everyone signed in; the server says
// whether the caller may organise, see `KONTOR_TOURNAMENT_ORGANISERS`).
import { useEffect, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api/client';
import { defineMessages, useLang, useMessages } from '../i18n';
import { useSession } from '../session';
import { gameName } from '../games/registry';
import { useWhen } from '../components/when';
import { SignIn } from '../screens/SignIn';
import { NewTournament } from './NewTournament';
import { shared } from './text';

type Summary = Schemas['TournamentSummary'];
type Status = 'entry' | 'running' | 'finished';

const msgs = defineMessages({
  title: { en: 'Tournaments', ja: 'トーナメント' },
  entry: { en: 'Open for entry', ja: '参加受付中' },
  running: { en: 'Running', ja: '進行中' },
  finished: { en: 'Finished', ja: '終了' },
  none: { en: 'None.', ja: 'ありません。' },
  more: { en: 'Show more', ja: 'さらに表示' },
  create: { en: 'Create tournament', ja: 'トーナメントを作成' },
  closes: { en: (at: string) => `entry closes ${at}`, ja: (at: string) => `受付締切 ${at}` },
  by: { en: (who: string) => `organised by ${who}`, ja: (who: string) => `主催：${who}` },
});

function TournamentRow({ t }: { t: Summary }) {
  const m = useMessages(msgs);
  const s = useMessages(shared);
  const { lang } = useLang();
  const when = useWhen();
  return (
    <li data-testid="tournament-row" data-tournament-id={t.id}>
      <a href={`/tournaments/${t.id}`}>{t.name}</a>
      <span class="tag">{gameName(t.kind, lang)}</span>
      <span class="tag">{t.rated ? s.rated : s.unrated}</span>
      <div class="muted">
        {s.format(t.format)} · {s.perTable(t.seats_per_table)} · {s.rounds(t.rounds)} · {s.players(t.player_count, t.max_players)}
      </div>
      <div class="muted">
        {t.status === 'entry' ? m.closes(when(t.entry_closes_at)) : s.status(t.status)}
        {' · '}
        {m.by(t.organiser)}
      </div>
    </li>
  );
}

function TournamentList(props: { status: Status; title: string; refresh: number }) {
  const m = useMessages(msgs);
  const [items, setItems] = useState<Summary[] | null>(null);
  const [cursor, setCursor] = useState<string | null>(null);
  const fetchPage = (after: string | null) =>
    ok(api.GET('/api/v1/tournaments', { params: { query: { status: props.status, cursor: after ?? undefined } } }));
  useEffect(() => {
    let stale = false;
    fetchPage(null)
      .then((page) => {
        if (stale) return;
        setItems(page.items);
        setCursor(page.next_cursor ?? null);
      })
      .catch(() => {});
    return () => {
      stale = true;
    };
  }, [props.status, props.refresh]);
  const more = async () => {
    const page = await fetchPage(cursor);
    // A tournament may have moved between pages meanwhile: each is listed once.
    setItems((old) => {
      const known = new Set((old ?? []).map((t) => t.id));
      return [...(old ?? []), ...page.items.filter((t) => !known.has(t.id))];
    });
    setCursor(page.next_cursor ?? null);
  };
  const id = `tournaments-${props.status}`;
  return (
    <section aria-labelledby={id} data-testid={id} data-loaded={items !== null}>
      <h2 id={id}>{props.title}</h2>
      {items === null ? null : items.length === 0 ? (
        <p class="muted">{m.none}</p>
      ) : (
        <ul class="games">
          {items.map((t) => (
            <TournamentRow key={t.id} t={t} />
          ))}
        </ul>
      )}
      {cursor && (
        <button type="button" class="secondary" onClick={() => void more().catch(() => {})}>
          {m.more}
        </button>
      )}
    </section>
  );
}

export function Tournaments() {
  const m = useMessages(msgs);
  const { user } = useSession();
  const [refresh, setRefresh] = useState(0);
  useEffect(() => {
    document.title = `${m.title} · Kontor`;
  }, [m]);
  // Coming back to the tab refreshes the lists (entries and rounds move on meanwhile).
  useEffect(() => {
    const onVisible = () => document.visibilityState === 'visible' && setRefresh((n) => n + 1);
    document.addEventListener('visibilitychange', onVisible);
    return () => document.removeEventListener('visibilitychange', onVisible);
  }, []);
  if (user === undefined) return null;
  if (user === null) return <SignIn />;
  return (
    <>
      <h1>{m.title}</h1>
      <details class="create-tournament">
        <summary>{m.create}</summary>
        <NewTournament />
      </details>
      <div class="lobby">
        <TournamentList status="entry" title={m.entry} refresh={refresh} />
        <TournamentList status="running" title={m.running} refresh={refresh} />
        <TournamentList status="finished" title={m.finished} refresh={refresh} />
      </div>
    </>
  );
}
