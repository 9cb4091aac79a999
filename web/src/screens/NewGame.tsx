// A new game: its kind, the number of seats (the kind's range, from `GET /kinds`), the
// game's own options (its module's editor), a time control, who may join and who may watch
// (the platform's `spectators` setting, sent among the options), the chat, and whether moves
// may be taken back (`undo`: own moves only, with consent, or never). On creation
// the page goes to the new game, where the creator waits for players and invites them.
import { useEffect, useRef, useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ok, type Schemas } from '../api/client';
import { errorText } from '../api/errors';
import { newKey } from '../api/keys';
import { defineMessages, useLang, useMessages } from '../i18n';
import { GAMES, gameModule, gameName, defaultChat } from '../games/registry';
import { useSession } from '../session';
import { SignIn } from './SignIn';

type TimeControlRequest = Schemas['TimeControlRequest'];

const msgs = defineMessages({
  title: { en: 'New game', ja: '新しいゲーム' },
  game: { en: 'Game', ja: 'ゲーム' },
  seats: { en: 'Seats', ja: '人数' },
  seatsHint: {
    en: (lo: number, hi: number) => `${lo} to ${hi} players. You take the first seat.`,
    ja: (lo: number, hi: number) => `${lo}〜${hi}人。あなたが最初の席に着きます。`,
  },
  visibility: { en: 'Who may join', ja: '参加できる人' },
  public: { en: 'Anyone (listed in the lobby)', ja: '誰でも（ロビーに表示）' },
  private: { en: 'Invited players only (not listed)', ja: '招待したプレイヤーのみ（ロビーに表示しない）' },
  spectators: { en: 'Who may watch', ja: '観戦できる人' },
  anyone: { en: 'Anyone with the link', ja: 'リンクを知っている人なら誰でも' },
  players: { en: 'Only the players at the table', ja: '参加しているプレイヤーのみ' },
  spectatorsHint: {
    en: 'Players who blocked one of the players, or whom one of them blocked, can never watch.',
    ja: 'プレイヤーの誰かをブロックした人、または誰かにブロックされた人は、どちらの設定でも観戦できません。',
  },
  chat: { en: 'Chat', ja: 'チャット' },
  chatFull: {
    en: 'At the table, in private between two players, and among spectators',
    ja: 'テーブル、プレイヤー2人の非公開チャンネル、観戦者同士',
  },
  chatTable: { en: 'At the table and among spectators (no private channels)', ja: 'テーブルと観戦者同士（非公開チャンネルなし）' },
  chatNone: { en: 'No chat', ja: 'チャットなし' },
  chatHint: {
    en: 'The default suits the game: private talk is part of negotiating in The Flying Dutchman.',
    ja: '既定値はゲームに合わせています。さまよえるオランダ人では非公開の相談も交渉の一部です。',
  },
  undo: { en: 'Taking moves back', ja: '手の取り消し（待った）' },
  undoOwn: {
    en: 'Players may take back their own moves until someone else moves',
    ja: 'ほかの人が動くまでは、自分の手を取り消せる',
  },
  undoConsent: {
    en: 'Also later, if every player whose moves it takes back agrees',
    ja: 'その後も、取り消される手のプレイヤー全員が同意すれば取り消せる',
  },
  undoNone: { en: 'No taking back', ja: '取り消しなし' },
  undoHint: {
    en: 'Never across a die roll, a card drawn, anything revealed or a payment: what the game’s rules call a barrier.',
    ja: 'サイコロ、カードを引くこと、情報の公開、支払いなど、ゲームのルールが区切りとするものを越えては取り消せません。',
  },
  rated: { en: 'Rated', ja: 'レーティング対象' },
  ratedHint: {
    en: 'The result moves the players’ ratings (only when every seat is a person at the start).',
    ja: '結果が参加者のレーティングに反映されます（開始時に全席が人間の場合のみ）。',
  },
  ratedNoConsent: {
    en: 'A rated game cannot allow taking moves back by consent: choose another undo setting to rate it.',
    ja: '同意による取り消しを認めるゲームはレーティング対象にできません。対象にするには別の取り消し設定を選んでください。',
  },
  options: { en: 'Options', ja: 'オプション' },
  time: { en: 'Time control', ja: '持ち時間' },
  timed: { en: 'Limit the time for each move', ja: '1手ごとの時間を制限する' },
  timedHint: {
    en: 'Without a limit, the game waits for each player as long as it takes.',
    ja: '制限なしの場合、各プレイヤーの手番をいつまでも待ちます。',
  },
  daysPerMove: { en: 'Days per move', ja: '1手あたりの日数' },
  daysPerMoveHint: {
    en: 'How long each player has for a move, 1 to 14 days, from the moment the turn comes to them.',
    ja: '手番が回ってきてから1手を指すまでの日数（1〜14日）。',
  },
  bankDays: { en: 'Time bank (days)', ja: '予備時間（日）' },
  bankDaysHint: {
    en: 'Extra time each player starts with, 0 to 30 days, spent when a move takes longer than its days.',
    ja: '各プレイヤーが最初に持つ予備の時間（0〜30日）。1手の日数を超えたときに使われます。',
  },
  weekends: { en: 'Weekends do not count', ja: '週末は数えない' },
  weekendsHint: { en: 'Saturdays and Sundays (UTC) stop the clocks.', ja: '土曜日と日曜日（UTC）は時計が止まります。' },
  abandonAfter: { en: 'Timeouts before a seat is abandoned', ja: '席を放棄とみなす連続時間切れ回数' },
  abandonAfterHint: {
    en: 'After this many timeouts in a row (1 to 10), the seat is handed over as chosen below.',
    ja: 'この回数（1〜10回）続けて時間切れになると、下で選んだとおりに席が扱われます。',
  },
  onAbandon: { en: 'Then', ja: 'その後' },
  bot: {
    en: 'the bot plays the seat until its player returns',
    ja: 'プレイヤーが戻るまでボットが席を操作する',
  },
  forfeit: { en: 'the seat forfeits: the bot plays it out and it ranks last', ja: '失格：ボットが最後まで操作し、最下位になる' },
  create: { en: 'Create the game', ja: 'ゲームを作成' },
});

export function NewGame() {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const { route } = useLocation();
  const [kinds, setKinds] = useState<Schemas['KindInfo'][]>([]);
  const [kind, setKind] = useState<Schemas['CreateGameRequest']['kind']>(GAMES[0]!.kind as Schemas['CreateGameRequest']['kind']);
  const [seats, setSeats] = useState(3);
  const [visibility, setVisibility] = useState<'public' | 'private'>('public');
  const [options, setOptions] = useState<Record<string, unknown>>({});
  const [spectators, setSpectators] = useState<Schemas['Spectators']>('anyone');
  // Each game's default until the creator chooses (private channels for the negotiating game).
  const [chosenChat, setChat] = useState<Schemas['Chat'] | null>(null);
  const [undo, setUndo] = useState<Schemas['UndoPolicy']>('own');
  const [rated, setRated] = useState(false);
  const [timed, setTimed] = useState(false);
  // The fields this form offers, never null (the request type allows null for "default").
  type Fields = 'days_per_move' | 'bank_days' | 'weekends_paused' | 'abandon_after' | 'on_abandon';
  const [tc, setTc] = useState<{ [K in Fields]: NonNullable<TimeControlRequest[K]> }>({
    days_per_move: 3,
    bank_days: 0,
    weekends_paused: false,
    abandon_after: 3,
    on_abandon: 'bot',
  });
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The last table asked for and its Idempotency-Key.
  const pending = useRef<{ text: string; key: string } | null>(null);
  useEffect(() => {
    document.title = 'Kontor';
    void ok(api.GET('/api/v1/kinds')).then((list) => setKinds(list.items)).catch(() => {});
  }, []);
  const module = gameModule(kind)!;
  const chat: Schemas['Chat'] = chosenChat ?? defaultChat(kind);
  const info = kinds.find((k) => k.kind === kind);
  const minSeats = info?.min_seats ?? module.minSeats;
  const maxSeats = info?.max_seats ?? module.maxSeats;
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    setBusy(true);
    const body = { kind, seats, visibility, options: { ...options, spectators, chat, undo, ...(rated && undo !== 'consent' ? { rated: true } : {}) } as never, time_control: timed ? tc : null };
    // The same table asked for again (after an error, or a lost answer) keeps its key: the
    // server then answers with the game it made, never a second one.
    const text = JSON.stringify(body);
    const key = pending.current?.text === text ? pending.current.key : newKey();
    pending.current = { text, key };
    try {
      const game = await ok(api.POST('/api/v1/games', { params: { header: { 'Idempotency-Key': key } }, body }));
      route(`/games/${game.id}`);
    } catch (err) {
      setError(errorText(err, lang, module.errorMessages));
    } finally {
      setBusy(false);
    }
  };
  const { user } = useSession();
  if (user === undefined) return null;
  if (user === null) return <SignIn />;
  const Editor = module.OptionsEditor;
  const num = (key: 'days_per_move' | 'bank_days' | 'abandon_after') => (e: Event) =>
    setTc({ ...tc, [key]: Number((e.currentTarget as HTMLInputElement).value) });
  return (
    <section class="narrow">
      <h1>{m.title}</h1>
      <form onSubmit={submit}>
        <label>
          {m.game}
          <select
            value={kind}
            onChange={(e) => {
              setKind(e.currentTarget.value as Schemas['CreateGameRequest']['kind']);
              setOptions({});
              setChat(null);
            }}
          >
            {GAMES.filter((g) => kinds.length === 0 || kinds.some((k) => k.kind === g.kind)).map((g) => (
              <option key={g.kind} value={g.kind}>
                {gameName(g.kind, lang)}
              </option>
            ))}
          </select>
        </label>
        <label>
          {m.seats}
          <input
            type="number"
            min={minSeats}
            max={maxSeats}
            value={seats}
            required
            aria-describedby="seats-hint"
            onInput={(e) => setSeats(Number(e.currentTarget.value))}
          />
          <small id="seats-hint" class="hint">
            {m.seatsHint(minSeats, maxSeats)}
          </small>
        </label>
        <fieldset>
          <legend>{m.visibility}</legend>
          <label>
            <input type="radio" name="visibility" checked={visibility === 'public'} onChange={() => setVisibility('public')} /> {m.public}
          </label>
          <label>
            <input type="radio" name="visibility" checked={visibility === 'private'} onChange={() => setVisibility('private')} />{' '}
            {m.private}
          </label>
        </fieldset>
        <fieldset aria-describedby="spectators-hint">
          <legend>{m.spectators}</legend>
          <label>
            <input type="radio" name="spectators" checked={spectators === 'anyone'} onChange={() => setSpectators('anyone')} /> {m.anyone}
          </label>
          <label>
            <input type="radio" name="spectators" checked={spectators === 'players'} onChange={() => setSpectators('players')} />{' '}
            {m.players}
          </label>
          <small id="spectators-hint" class="hint">
            {m.spectatorsHint}
          </small>
        </fieldset>
        <fieldset aria-describedby="chat-hint">
          <legend>{m.chat}</legend>
          {(['full', 'table', 'none'] as const).map((c) => (
            <label key={c}>
              <input type="radio" name="chat" value={c} checked={chat === c} onChange={() => setChat(c)} />{' '}
              {c === 'full' ? m.chatFull : c === 'table' ? m.chatTable : m.chatNone}
            </label>
          ))}
          <small id="chat-hint" class="hint">
            {m.chatHint}
          </small>
        </fieldset>
        <fieldset aria-describedby="undo-policy-hint">
          <legend>{m.undo}</legend>
          {(['own', 'consent', 'none'] as const).map((u) => (
            <label key={u}>
              <input type="radio" name="undo" value={u} checked={undo === u} onChange={() => setUndo(u)} />{' '}
              {u === 'own' ? m.undoOwn : u === 'consent' ? m.undoConsent : m.undoNone}
            </label>
          ))}
          <small id="undo-policy-hint" class="hint">
            {m.undoHint}
          </small>
        </fieldset>
        <fieldset>
          <legend>{m.rated}</legend>
          <label>
            <input
              type="checkbox"
              name="rated"
              checked={rated && undo !== 'consent'}
              disabled={undo === 'consent'}
              onChange={(e) => setRated(e.currentTarget.checked)}
              aria-describedby="rated-hint"
            />{' '}
            {m.rated}
          </label>
          <small id="rated-hint" class="hint">
            {undo === 'consent' ? m.ratedNoConsent : m.ratedHint}
          </small>
        </fieldset>
        <fieldset>
          <legend>{m.options}</legend>
          <Editor seats={seats} options={options as never} onChange={(o) => setOptions(o as Record<string, unknown>)} />
        </fieldset>
        <fieldset>
          <legend>{m.time}</legend>
          <label>
            <input type="checkbox" checked={timed} onChange={(e) => setTimed(e.currentTarget.checked)} aria-describedby="timed-hint" />{' '}
            {m.timed}
          </label>
          <small id="timed-hint" class="hint">
            {m.timedHint}
          </small>
          {timed && (
            <>
              <label>
                {m.daysPerMove}
                <input type="number" min={1} max={14} value={tc.days_per_move} onInput={num('days_per_move')} aria-describedby="dpm-hint" />
                <small id="dpm-hint" class="hint">
                  {m.daysPerMoveHint}
                </small>
              </label>
              <label>
                {m.bankDays}
                <input type="number" min={0} max={30} value={tc.bank_days} onInput={num('bank_days')} aria-describedby="bank-hint" />
                <small id="bank-hint" class="hint">
                  {m.bankDaysHint}
                </small>
              </label>
              <label>
                <input
                  type="checkbox"
                  checked={tc.weekends_paused}
                  onChange={(e) => setTc({ ...tc, weekends_paused: e.currentTarget.checked })}
                  aria-describedby="weekend-hint"
                />{' '}
                {m.weekends}
              </label>
              <small id="weekend-hint" class="hint">
                {m.weekendsHint}
              </small>
              <label>
                {m.abandonAfter}
                <input type="number" min={1} max={10} value={tc.abandon_after} onInput={num('abandon_after')} aria-describedby="abandon-hint" />
                <small id="abandon-hint" class="hint">
                  {m.abandonAfterHint}
                </small>
              </label>
              <fieldset>
                <legend>{m.onAbandon}</legend>
                <label>
                  <input type="radio" name="on_abandon" checked={tc.on_abandon === 'bot'} onChange={() => setTc({ ...tc, on_abandon: 'bot' })} />{' '}
                  {m.bot}
                </label>
                <label>
                  <input
                    type="radio"
                    name="on_abandon"
                    checked={tc.on_abandon === 'forfeit'}
                    onChange={() => setTc({ ...tc, on_abandon: 'forfeit' })}
                  />{' '}
                  {m.forfeit}
                </label>
              </fieldset>
            </>
          )}
        </fieldset>
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" disabled={busy}>
          {m.create}
        </button>
      </form>
    </section>
  );
}
