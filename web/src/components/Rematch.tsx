// Rematch on a finished game's page: offer one, see who accepted, accept or decline, and
// follow the link to the new game; live through the game's stream (its `rematch` events, which
// spectators get too). On a rematch's page: a link back to the game it repeats.
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api/client';
import { errorText } from '../api/errors';
import { defineMessages, useLang, useMessages } from '../i18n';
import type { GameDetail } from '../games/types';
import { useWhen } from './when';

type RematchState = Schemas['RematchState'];

const msgs = defineMessages({
  title: { en: 'Rematch', ja: '再戦' },
  rematchOf: { en: 'This game is a rematch of', ja: 'このゲームは次のゲームの再戦です：' },
  earlier: { en: 'the earlier game', ja: '前のゲーム' },
  offer: { en: 'Offer a rematch', ja: '再戦を申し込む' },
  offerHint: {
    en: 'Everyone plays again with the same options and time control; each seat moves one place round.',
    ja: '同じオプションと持ち時間で全員がもう一度対戦します。席は一つずつずれます。',
  },
  offered: {
    en: (who: string, until: string) => `${who} offers a rematch (answers until ${until}).`,
    ja: (who: string, until: string) => `${who}さんが再戦を申し込んでいます（回答期限：${until}）。`,
  },
  accepted: { en: 'accepted', ja: '承諾' },
  declined: { en: 'declined', ja: '辞退' },
  waiting: { en: 'not answered yet', ja: '未回答' },
  bot: { en: 'stays a bot', ja: 'ボットのまま' },
  accept: { en: 'Accept', ja: '受ける' },
  decline: { en: 'Decline', ja: '断る' },
  started: { en: 'The rematch has started.', ja: '再戦が始まりました。' },
  goTo: { en: 'Go to the rematch', ja: '再戦へ進む' },
  endedDeclined: { en: 'The last rematch offer was declined.', ja: '前回の再戦の申し込みは断られました。' },
  endedExpired: { en: 'The last rematch offer expired unanswered.', ja: '前回の再戦の申し込みは期限切れになりました。' },
  endedCancelled: {
    en: 'The last rematch offer was cancelled: these players cannot meet again.',
    ja: '前回の再戦の申し込みは取り消されました：このメンバーでは再戦できません。',
  },
});

export function RematchOf({ detail }: { detail: GameDetail }) {
  const m = useMessages(msgs);
  if (!detail.rematch_of) return null;
  return (
    <p class="muted" data-testid="rematch-of">
      {m.rematchOf} <a href={`/games/${detail.rematch_of}`}>{m.earlier}</a>
    </p>
  );
}

export function Rematch({
  detail,
  seatName,
  changes,
}: {
  detail: GameDetail;
  seatName: (seat: number) => string;
  changes: number;
}) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const when = useWhen();
  const [state, setState] = useState<RematchState | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const id = detail.id;

  const load = useCallback(async () => {
    try {
      setState(await ok(api.GET('/api/v1/games/{game_id}/rematch', { params: { path: { game_id: id } } })));
    } catch (err) {
      setError(err);
    }
  }, [id]);

  // `changes` counts the game stream's `rematch` events: an offer was made, answered or ended.
  useEffect(() => {
    void load();
  }, [load, changes]);

  const act = async (call: () => Promise<RematchState>) => {
    setBusy(true);
    setError(null);
    try {
      setState(await call());
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  const offer = () => act(() => ok(api.POST('/api/v1/games/{game_id}/rematch', { params: { path: { game_id: id } } })));
  const answer = (offerId: number, accept: boolean) =>
    act(() =>
      ok(
        api.POST('/api/v1/games/{game_id}/rematch/{offer_id}/answer', {
          params: { path: { game_id: id, offer_id: offerId } },
          body: { accept },
        }),
      ),
    );

  if (!state) return null;
  const mine = detail.your_seat ?? null;
  const plays = mine !== null && state.players.includes(mine);
  const current = state.offer ?? null;
  const open = current?.status === 'open' ? current : null;
  const ended =
    current?.status === 'declined' ? m.endedDeclined : current?.status === 'expired' ? m.endedExpired : current?.status === 'cancelled' ? m.endedCancelled : null;

  return (
    <section class="rematch" aria-labelledby="rematch-title" data-testid="rematch" data-offer-status={current?.status ?? 'none'}>
      <h2 id="rematch-title">{m.title}</h2>
      {state.rematch ? (
        <p>
          {m.started}{' '}
          <a href={`/games/${state.rematch}`} data-testid="rematch-link">
            {m.goTo}
          </a>
        </p>
      ) : open ? (
        <>
          <p>{m.offered(seatName(open.offered_by_seat), when(open.expires_at))}</p>
          <ul data-testid="rematch-answers">
            {detail.seats.map((s) => {
              const given = open.answers.find((a) => a.seat === s.seat);
              const word = !state.players.includes(s.seat) ? m.bot : given ? (given.accept ? m.accepted : m.declined) : m.waiting;
              return (
                <li key={s.seat} data-seat={s.seat}>
                  {seatName(s.seat)}: {word}
                </li>
              );
            })}
          </ul>
          {mine !== null && open.waiting_for.includes(mine) && (
            <p>
              <button type="button" disabled={busy} onClick={() => void answer(open.id, true)}>
                {m.accept}
              </button>{' '}
              <button type="button" class="secondary" disabled={busy} onClick={() => void answer(open.id, false)}>
                {m.decline}
              </button>
            </p>
          )}
        </>
      ) : (
        <>
          {ended && <p class="muted">{ended}</p>}
          {plays && (
            <p>
              <button type="button" disabled={busy} onClick={() => void offer()}>
                {m.offer}
              </button>{' '}
              <small class="muted">{m.offerHint}</small>
            </p>
          )}
        </>
      )}
      {error !== null && (
        <p class="error" role="alert">
          {errorText(error, lang)}
        </p>
      )}
    </section>
  );
}
