// A game still waiting for players: its seats, and join, leave, start, cancel and invite
// as the caller may. Each call's refusal comes back to the page through `run`.
import { useState } from 'preact/hooks';
import { api, ok } from '../api/client';
import { defineMessages, useMessages } from '../i18n';
import type { User } from '../session';
import type { GameDetail } from '../games/types';
import { ConfirmButton } from './ConfirmButton';
import { playerName } from './names';
import { isRated } from './GameTags';

const msgs = defineMessages({
  waiting: { en: 'Waiting for players', ja: 'プレイヤー募集中' },
  seats: {
    en: (n: number, of: number) => `${n} of ${of} seats taken`,
    ja: (n: number, of: number) => `${of}席中${n}席が埋まっています`,
  },
  seat: { en: (n: number) => `Seat ${n}`, ja: (n: number) => `${n}番席` },
  free: { en: 'free', ja: '空席' },
  you: { en: '(you)', ja: '（あなた）' },
  creator: { en: '(creator)', ja: '（作成者）' },
  private: {
    en: 'A private game: only invited players may join.',
    ja: '非公開のゲーム：招待されたプレイヤーだけが参加できます。',
  },
  rated: {
    en: "A rated game: its result moves the players' ratings.",
    ja: 'レーティング対象のゲームです。結果はプレイヤーのレーティングに反映されます。',
  },
  startsWhenFull: {
    en: 'The game starts when the last seat is taken; the creator may start it earlier with the players seated.',
    ja: '最後の席が埋まるとゲームが始まります。作成者は着席済みのプレイヤーで先に開始することもできます。',
  },
  join: { en: 'Join', ja: '参加する' },
  leave: { en: 'Leave', ja: '退出する' },
  start: { en: 'Start now', ja: '今すぐ開始' },
  cancel: { en: 'Cancel the game', ja: 'ゲームを中止する' },
  reallyCancel: { en: 'Cancel this game for everyone?', ja: '全員にとってこのゲームを中止しますか？' },
  invite: { en: 'Invite a player', ja: 'プレイヤーを招待' },
  username: { en: 'Username', ja: 'ユーザー名' },
  send: { en: 'Invite', ja: '招待する' },
  invited: { en: (u: string) => `${u} is invited.`, ja: (u: string) => `${u}を招待しました。` },
  signInToJoin: { en: 'Sign in to join.', ja: '参加するにはログインしてください。' },
});

export function OpenTable(props: {
  detail: GameDetail;
  user: User | null;
  busy: boolean;
  run: (call: () => Promise<unknown>) => Promise<void>;
}) {
  const m = useMessages(msgs);
  const { detail, user, busy, run } = props;
  const [invitee, setInvitee] = useState('');
  const [invited, setInvited] = useState<string | null>(null);
  const path = { params: { path: { game_id: detail.id } } };
  const mySeat = detail.your_seat ?? null;
  const isCreator = user?.id === detail.created_by;
  const act = (call: () => Promise<unknown>) => () => void run(call).catch(() => {});
  const invite = (e: Event) => {
    e.preventDefault();
    const username = invitee.trim();
    if (!username) return;
    setInvited(null);
    void run(() => ok(api.POST('/api/v1/games/{game_id}/invitations', { ...path, body: { username } })))
      .then(() => {
        setInvited(username);
        setInvitee('');
      })
      .catch(() => {});
  };
  const seats = Array.from({ length: detail.seat_count }, (_, i) => detail.seats.find((s) => s.seat === i));
  return (
    <section class="open-table" aria-labelledby="open-title">
      <h2 id="open-title">{m.waiting}</h2>
      <p>{m.seats(detail.seats.length, detail.seat_count)}</p>
      <ol class="seats" data-testid="seats">
        {seats.map((s, i) => (
          <li key={i}>
            {m.seat(i + 1)}: {s ? playerName(s) : <em>{m.free}</em>} {s && s.seat === mySeat ? m.you : ''}{' '}
            {s && s.user_id === detail.created_by ? m.creator : ''}
          </li>
        ))}
      </ol>
      {detail.visibility === 'private' && <p>{m.private}</p>}
      {isRated(detail) && (
        <p data-testid="rated-hint">
          <strong>{m.rated}</strong>
        </p>
      )}
      <p class="hint">{m.startsWhenFull}</p>
      <div class="buttons">
        {!user && (
          <a href="/signin">{m.signInToJoin}</a>
        )}
        {user && mySeat === null && (
          <button type="button" disabled={busy} onClick={act(() => ok(api.POST('/api/v1/games/{game_id}/join', { ...path, body: {} })))}>
            {m.join}
          </button>
        )}
        {mySeat !== null && !isCreator && (
          <button type="button" class="secondary" disabled={busy} onClick={act(() => ok(api.POST('/api/v1/games/{game_id}/leave', path)))}>
            {m.leave}
          </button>
        )}
        {isCreator && (
          <>
            <button type="button" disabled={busy} onClick={act(() => ok(api.POST('/api/v1/games/{game_id}/start', path)))}>
              {m.start}
            </button>
            <ConfirmButton
              disabled={busy}
              question={m.reallyCancel}
              onConfirm={act(() => ok(api.POST('/api/v1/games/{game_id}/cancel', path)))}
            >
              {m.cancel}
            </ConfirmButton>
          </>
        )}
      </div>
      {mySeat !== null && (
        <form class="invite" onSubmit={invite}>
          <label>
            {m.invite}
            <span class="row">
              <input
                name="invitee"
                autocomplete="off"
                placeholder={m.username}
                aria-label={m.username}
                value={invitee}
                onInput={(e) => setInvitee(e.currentTarget.value)}
              />
              <button type="submit" disabled={busy || !invitee.trim()}>
                {m.send}
              </button>
            </span>
          </label>
          <p aria-live="polite">{invited && m.invited(invited)}</p>
        </form>
      )}
    </section>
  );
}
