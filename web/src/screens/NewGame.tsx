import { useState } from 'preact/hooks';
import { useLocation } from 'preact-iso';
import { api, ApiError, ok, type Schemas } from '../api/client';
import { defineMessages, useLang, useMessages } from '../i18n';
import { GAMES, gameModule } from '../games/registry';

const msgs = defineMessages({
  title: { en: 'New game', ja: '新しいゲーム' },
  game: { en: 'Game', ja: 'ゲーム' },
  seats: { en: 'Seats', ja: '人数' },
  visibility: { en: 'Who may join', ja: '参加できる人' },
  public: { en: 'Anyone (listed in the lobby)', ja: '誰でも（ロビーに表示）' },
  private: { en: 'Invited players only', ja: '招待したプレイヤーのみ' },
  create: { en: 'Create', ja: '作成' },
});

export function NewGame() {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const { route } = useLocation();
  const [kind, setKind] = useState(GAMES[0]!.kind);
  const [seats, setSeats] = useState(4);
  const [visibility, setVisibility] = useState<'public' | 'private'>('public');
  const [options, setOptions] = useState<Record<string, unknown>>({});
  const [error, setError] = useState<string | null>(null);
  const module = gameModule(kind)!;
  const submit = async (e: Event) => {
    e.preventDefault();
    setError(null);
    try {
      const game = await ok(
        api.POST('/api/v1/games', {
          body: { kind: kind as Schemas["CreateGameRequest"]["kind"], seats, visibility, options: options as never },
        }),
      );
      route(`/games/${game.id}`);
    } catch (err) {
      setError(err instanceof ApiError ? err.message : String(err));
    }
  };
  const Editor = module.OptionsEditor;
  return (
    <section class="narrow">
      <h1>{m.title}</h1>
      <form onSubmit={submit}>
        <label>
          {m.game}
          <select
            value={kind}
            onChange={(e) => {
              setKind(e.currentTarget.value);
              setOptions({});
            }}
          >
            {GAMES.map((g) => (
              <option key={g.kind} value={g.kind}>
                {g.name[lang]}
              </option>
            ))}
          </select>
        </label>
        <label>
          {m.seats}
          <input
            type="number"
            min={module.minSeats}
            max={module.maxSeats}
            value={seats}
            onInput={(e) => setSeats(Number(e.currentTarget.value))}
          />
        </label>
        <fieldset>
          <legend>{m.visibility}</legend>
          <label>
            <input type="radio" name="visibility" checked={visibility === 'public'} onChange={() => setVisibility('public')} />
            {m.public}
          </label>
          <label>
            <input type="radio" name="visibility" checked={visibility === 'private'} onChange={() => setVisibility('private')} />
            {m.private}
          </label>
        </fieldset>
        <Editor seats={seats} options={options as never} onChange={(o) => setOptions(o as Record<string, unknown>)} />
        {error && (
          <p class="error" role="alert">
            {error}
          </p>
        )}
        <button type="submit">{m.create}</button>
      </form>
    </section>
  );
}
