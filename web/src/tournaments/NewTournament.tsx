// A new tournament: its name, game, seats per table (3–6, within the game's own range), the
// number of rounds, the format, whether its games are rated, an optional time control per
// move, when entry closes and how many may enter. On creation the page goes to the
// tournament, where its organiser may start it early.
import { useEffect, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok, type Schemas } from '../api/client';
import { errorText } from '../api/errors';
import { defineMessages, useLang, useMessages } from '../i18n';
import { GAMES, gameName } from '../games/registry';
import { tournamentErrors } from './errors';

type Request = Schemas['CreateTournamentRequest'];

const msgs = defineMessages({
  name: { en: 'Name', ja: '名前' },
  game: { en: 'Game', ja: 'ゲーム' },
  seats: { en: 'Seats per table', ja: '1卓の人数' },
  seatsHint: {
    en: (lo: number, hi: number) => `${lo} to ${hi}. When the players do not divide evenly, some tables have one seat fewer.`,
    ja: (lo: number, hi: number) => `${lo}〜${hi}人。人数が割り切れないときは、1人少ない卓ができます。`,
  },
  rounds: { en: 'Rounds', ja: 'ラウンド数' },
  roundsHint: { en: '1 to 20. A round ends when all of its games are over.', ja: '1〜20。ラウンドは全ゲームの終了で終わります。' },
  format: { en: 'Format', ja: '形式' },
  swiss: {
    en: 'Swiss: each round seats players with similar scores together, avoiding repeat opponents',
    ja: 'スイス式：毎ラウンド、得点の近いプレイヤーを同卓にし、同じ相手との再戦を避けます',
  },
  roundRobin: {
    en: 'Round-robin groups: the players are split into groups that meet each other every round',
    ja: '総当たりグループ：プレイヤーをグループに分け、毎ラウンドそのグループで対戦します',
  },
  rated: { en: 'Rated games', ja: 'レーティング対象のゲーム' },
  ratedHint: { en: 'Every game of the tournament moves the players’ ratings.', ja: 'トーナメントの全ゲームがレーティングに反映されます。' },
  timed: { en: 'Limit the time for each move', ja: '1手ごとの時間を制限する' },
  daysPerMove: { en: 'Days per move', ja: '1手あたりの日数' },
  bankDays: { en: 'Time bank (days)', ja: '予備時間（日）' },
  weekends: { en: 'Weekends do not count', ja: '週末は数えない' },
  closes: { en: 'Entry closes at', ja: '参加受付の締切' },
  closesHint: {
    en: 'In this browser’s time zone. The tournament starts then, or is cancelled with too few players.',
    ja: 'このブラウザのタイムゾーンです。その時点で開始します（人数が足りなければ中止）。',
  },
  maxPlayers: { en: 'Most players', ja: '最大人数' },
  create: { en: 'Create tournament', ja: 'トーナメントを作成' },
});

/** `YYYY-MM-DDTHH:mm` in the browser's zone, as a datetime-local input takes it. */
function localInput(at: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`;
}

export function NewTournament() {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const { route } = useLocation();
  const [kinds, setKinds] = useState<Schemas['KindInfo'][]>([]);
  const [name, setName] = useState('');
  const [kind, setKind] = useState<Request['kind']>(GAMES[0]!.kind as Request['kind']);
  const [seats, setSeats] = useState(3);
  const [rounds, setRounds] = useState(3);
  const [format, setFormat] = useState<Request['format']>('swiss');
  const [rated, setRated] = useState(false);
  const [timed, setTimed] = useState(false);
  const [tc, setTc] = useState({ days_per_move: 3, bank_days: 0, weekends_paused: false });
  const [closes, setCloses] = useState(() => localInput(new Date(Date.now() + 7 * 24 * 3600 * 1000)));
  const [maxPlayers, setMaxPlayers] = useState(12);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    void ok(api.GET('/api/v1/kinds'))
      .then((list) => setKinds(list.items))
      .catch(() => {});
  }, []);
  const info = kinds.find((k) => k.kind === kind);
  const module = GAMES.find((g) => g.kind === kind)!;
  const minSeats = Math.max(3, info?.min_seats ?? module.minSeats);
  const maxSeats = Math.min(6, info?.max_seats ?? module.maxSeats);
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const created = await ok(
        api.POST('/api/v1/tournaments', {
          body: {
            name,
            kind,
            seats_per_table: seats,
            rounds,
            format,
            rated,
            time_control: timed ? tc : null,
            entry_closes_at: new Date(closes).toISOString(),
            max_players: maxPlayers,
          },
        }),
      );
      route(`/tournaments/${created.id}`);
    } catch (err) {
      setError(errorText(err, lang, tournamentErrors));
    } finally {
      setBusy(false);
    }
  };
  const num = (set: (n: number) => void) => (e: Event) => set(Number((e.currentTarget as HTMLInputElement).value));
  return (
    <form class="narrow" onSubmit={submit} data-testid="new-tournament">
      <label>
        {m.name}
        <input value={name} required maxLength={80} onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label>
        {m.game}
        <select value={kind} onChange={(e) => setKind(e.currentTarget.value as Request['kind'])}>
          {GAMES.filter((g) => kinds.length === 0 || kinds.some((k) => k.kind === g.kind)).map((g) => (
            <option key={g.kind} value={g.kind}>
              {gameName(g.kind, lang)}
            </option>
          ))}
        </select>
      </label>
      <label>
        {m.seats}
        <input type="number" min={minSeats} max={maxSeats} value={seats} required aria-describedby="t-seats-hint" onInput={num(setSeats)} />
        <small id="t-seats-hint" class="hint">
          {m.seatsHint(minSeats, maxSeats)}
        </small>
      </label>
      <label>
        {m.rounds}
        <input type="number" min={1} max={20} value={rounds} required aria-describedby="t-rounds-hint" onInput={num(setRounds)} />
        <small id="t-rounds-hint" class="hint">
          {m.roundsHint}
        </small>
      </label>
      <fieldset>
        <legend>{m.format}</legend>
        <label>
          <input type="radio" name="format" checked={format === 'swiss'} onChange={() => setFormat('swiss')} /> {m.swiss}
        </label>
        <label>
          <input type="radio" name="format" checked={format === 'round_robin'} onChange={() => setFormat('round_robin')} /> {m.roundRobin}
        </label>
      </fieldset>
      <label>
        <input type="checkbox" checked={rated} onChange={(e) => setRated(e.currentTarget.checked)} aria-describedby="t-rated-hint" /> {m.rated}
      </label>
      <small id="t-rated-hint" class="hint">
        {m.ratedHint}
      </small>
      <fieldset>
        <label>
          <input type="checkbox" checked={timed} onChange={(e) => setTimed(e.currentTarget.checked)} /> {m.timed}
        </label>
        {timed && (
          <>
            <label>
              {m.daysPerMove}
              <input type="number" min={1} max={14} value={tc.days_per_move} onInput={num((n) => setTc({ ...tc, days_per_move: n }))} />
            </label>
            <label>
              {m.bankDays}
              <input type="number" min={0} max={30} value={tc.bank_days} onInput={num((n) => setTc({ ...tc, bank_days: n }))} />
            </label>
            <label>
              <input type="checkbox" checked={tc.weekends_paused} onChange={(e) => setTc({ ...tc, weekends_paused: e.currentTarget.checked })} />{' '}
              {m.weekends}
            </label>
          </>
        )}
      </fieldset>
      <label>
        {m.closes}
        <input type="datetime-local" value={closes} required aria-describedby="t-closes-hint" onInput={(e) => setCloses(e.currentTarget.value)} />
        <small id="t-closes-hint" class="hint">
          {m.closesHint}
        </small>
      </label>
      <label>
        {m.maxPlayers}
        <input type="number" min={seats} value={maxPlayers} required onInput={num(setMaxPlayers)} />
      </label>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
      <button type="submit" disabled={busy}>
        {m.create}
      </button>
    </form>
  );
}
