// Taking moves back (issue 23), on a running game's page, from `GameDetail.undo`: the
// Undo button where the table's policy allows it (one click when only the caller's own
// moves go back, else "Ask to undo…" naming who must consent), the open request (who asked,
// who must answer and who did, until when; Withdraw for the one who asked), and the prompt
// with Accept and Decline for the seats asked. The page reloads the game on every event of
// its stream, and the request's events are events, so all of it is live; what changes is
// said in a polite live region.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api/client';
import { defineMessages, useMessages } from '../i18n';
import type { EventOut, GameDetail } from '../games/types';
import { useWhen } from '../components/when';
import { isUndoEvent } from './log';
import { undoLine } from './lines';

type UndoState = Schemas['UndoState'];

const msgs = defineMessages({
  title: { en: 'Take back moves', ja: '手の取り消し' },
  undoOwn: { en: 'Undo my move', ja: '自分の手を取り消す' },
  undoOwnHint: {
    en: (line: number) => `Takes the game back to line ${line} of the log; nobody else has moved since.`,
    ja: (line: number) => `ログの${line}行目の時点に戻します。その後、ほかの人はまだ動いていません。`,
  },
  ask: { en: 'Ask to undo…', ja: '取り消しを頼む…' },
  askHint: {
    en: (who: string) => `Others moved since: ${who} must agree.`,
    ja: (who: string) => `その後ほかの人も動いています：${who}の同意が必要です。`,
  },
  askQuestion: {
    en: (line: number, who: string) => `Ask to take the game back to line ${line} of the log? ${who} must agree; any “no” ends the request.`,
    ja: (line: number, who: string) => `ログの${line}行目の時点に戻すよう頼みますか？${who}の同意が必要で、一人でも断れば取りやめになります。`,
  },
  botsAccept: { en: 'A seat the bot plays agrees at once.', ja: 'ボットが操作する席はすぐに同意します。' },
  send: { en: 'Send the request', ja: '依頼を送る' },
  cancel: { en: 'Cancel', ja: 'やめる' },
  requested: {
    en: (who: string, line: number) => `${who} asks to take the game back to line ${line} of the log.`,
    ja: (who: string, line: number) => `${who}が、ログの${line}行目の時点に戻すよう頼んでいます。`,
  },
  youRequested: {
    en: (line: number) => `You asked to take the game back to line ${line} of the log.`,
    ja: (line: number) => `ログの${line}行目の時点に戻すよう頼みました。`,
  },
  until: { en: (when: string) => `Answers until ${when}.`, ja: (when: string) => `回答期限：${when}` },
  answers: { en: 'Who must agree', ja: '同意が必要な人' },
  agreed: { en: 'agreed', ja: '同意済み' },
  waiting: { en: 'not answered yet', ja: '未回答' },
  you: { en: 'you', ja: 'あなた' },
  prompt: {
    en: 'It takes back a move of yours too. Do you agree?',
    ja: 'あなたの手も取り消されます。同意しますか？',
  },
  accept: { en: 'Accept', ja: '同意する' },
  decline: { en: 'Decline', ja: '断る' },
  withdraw: { en: 'Withdraw the request', ja: '依頼を取り下げる' },
  youAgreed: { en: 'You agreed; waiting for the others.', ja: '同意しました。ほかの人の回答を待っています。' },
  and: { en: ' and ', ja: '、' },
});

/** The names as a list in words: "ada", "ada and ben", "ada, ben and cy". */
function names(list: string[], and: string, lang: 'en' | 'ja'): string {
  if (lang === 'ja') return list.join('、');
  if (list.length <= 1) return list.join('');
  return `${list.slice(0, -1).join(', ')}${and}${list[list.length - 1]}`;
}

export function UndoPanel(props: {
  detail: GameDetail;
  events: EventOut[];
  seatName: (seat: number) => string;
  busy: boolean;
  lang: 'en' | 'ja';
  /** Runs a call as the page runs a move: busy, the refusal shown, the game loaded again. */
  run: (call: () => Promise<unknown>) => Promise<void>;
}) {
  const { detail, events, seatName, busy, lang, run } = props;
  const m = useMessages(msgs);
  const when = useWhen();
  const undo: UndoState | null = detail.undo ?? null;
  const mine = detail.your_seat ?? null;
  const [asking, setAsking] = useState(false);
  const panel = useRef<HTMLElement>(null);
  const askButton = useRef<HTMLButtonElement>(null);
  const sendButton = useRef<HTMLButtonElement>(null);
  const request = undo?.request ?? null;
  const canTo = undo?.can_undo_to ?? null;

  // The question goes away when what it asked about did (a move, a request of another's).
  useEffect(() => {
    if (canTo === null || request !== null) setAsking(false);
  }, [canTo, request]);
  useEffect(() => {
    if (asking) sendButton.current?.focus();
  }, [asking]);

  if (!undo || undo.policy === 'none' || detail.status !== 'active') return null;
  // What the last event of the game said about undo, if nothing happened since: announced.
  const last = events[events.length - 1];
  const news = last && isUndoEvent(last.type) && last.seq === detail.version ? undoLine(last, lang, seatName) : '';
  const botPlayed = (seat: number) => detail.seats.some((s) => s.seat === seat && s.state !== 'active');
  const who = (seats: number[]) => names(seats.map((s) => (s === mine ? m.you : seatName(s))), m.and, lang);

  // After the buttons that were pressed are gone, the focus goes to the panel, not the page.
  const thenFocus = () =>
    requestAnimationFrame(() => {
      if (document.activeElement && document.activeElement !== document.body) return;
      (document.querySelector<HTMLElement>('.board [data-controls]') ?? panel.current)?.focus();
    });
  const send = (to: number) =>
    run(() =>
      ok(
        api.POST('/api/v1/games/{game_id}/undo', {
          params: { path: { game_id: detail.id } },
          // At the version seen: a retry is answered the same, never a second undo.
          body: { at_version: detail.version, to_version: to },
        }),
      ),
    )
      .then(thenFocus)
      .catch(() => {});
  const answer = (seq: number, accept: boolean) =>
    run(() =>
      ok(
        api.POST('/api/v1/games/{game_id}/undo/{request}/answer', {
          params: { path: { game_id: detail.id, request: seq } },
          body: { accept },
        }),
      ),
    )
      .then(thenFocus)
      .catch(() => {});
  const withdraw = (seq: number) =>
    run(() => ok(api.DELETE('/api/v1/games/{game_id}/undo/{request}', { params: { path: { game_id: detail.id, request: seq } } })))
      .then(thenFocus)
      .catch(() => {});

  let body = null;
  if (request) {
    const asked = mine !== null && request.needs.includes(mine) && !request.accepted.includes(mine);
    body = (
      <div data-testid="undo-request" data-request={request.seq}>
        <p>{request.by_seat === mine ? m.youRequested(request.to_version) : m.requested(seatName(request.by_seat), request.to_version)}</p>
        <p class="muted">{m.until(when(request.deadline))}</p>
        <p id="undo-answers-title">{m.answers}</p>
        <ul aria-labelledby="undo-answers-title" data-testid="undo-answers">
          {request.needs.map((seat) => (
            <li key={seat} data-seat={seat} data-accepted={request.accepted.includes(seat) ? 'true' : 'false'}>
              {seat === mine ? m.you : seatName(seat)}: {request.accepted.includes(seat) ? m.agreed : m.waiting}
            </li>
          ))}
        </ul>
        {asked && (
          <div role="group" aria-labelledby="undo-prompt" class="undo-prompt" data-testid="undo-prompt">
            <p id="undo-prompt">{m.prompt}</p>
            <div class="buttons">
              <button type="button" disabled={busy} onClick={() => void answer(request.seq, true)}>
                {m.accept}
              </button>
              <button type="button" class="secondary" disabled={busy} onClick={() => void answer(request.seq, false)}>
                {m.decline}
              </button>
            </div>
          </div>
        )}
        {mine !== null && request.accepted.includes(mine) && request.by_seat !== mine && <p>{m.youAgreed}</p>}
        {request.by_seat === mine && (
          <div class="buttons">
            <button type="button" class="secondary" disabled={busy} onClick={() => void withdraw(request.seq)}>
              {m.withdraw}
            </button>
          </div>
        )}
      </div>
    );
  } else if (canTo !== null && mine !== null) {
    const others = undo.needs;
    if (others.length === 0) {
      body = (
        <div class="buttons">
          <button type="button" disabled={busy} onClick={() => void send(canTo)} aria-describedby="undo-hint" data-testid="undo-own">
            {m.undoOwn}
          </button>
          <small id="undo-hint" class="hint">
            {m.undoOwnHint(canTo)}
          </small>
        </div>
      );
    } else if (!asking) {
      body = (
        <div class="buttons">
          <button type="button" class="secondary" ref={askButton} disabled={busy} onClick={() => setAsking(true)} aria-describedby="undo-hint">
            {m.ask}
          </button>
          <small id="undo-hint" class="hint">
            {m.askHint(who(others))}
          </small>
        </div>
      );
    } else {
      const cancel = () => {
        setAsking(false);
        requestAnimationFrame(() => askButton.current?.focus());
      };
      body = (
        <div
          role="group"
          aria-labelledby="undo-question"
          class="undo-ask"
          data-testid="undo-ask"
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.preventDefault();
              cancel();
            }
          }}
        >
          <p id="undo-question">{m.askQuestion(canTo, who(others))}</p>
          {others.some(botPlayed) && <p class="hint">{m.botsAccept}</p>}
          <div class="buttons">
            <button type="button" ref={sendButton} disabled={busy} onClick={() => void send(canTo).then(() => setAsking(false))}>
              {m.send}
            </button>
            <button type="button" class="secondary" onClick={cancel}>
              {m.cancel}
            </button>
          </div>
        </div>
      );
    }
  }

  return (
    <>
      {/* Always there while undo is possible, so that a screen reader hears each change. */}
      <p class="visually-hidden" role="status" aria-live="polite" data-testid="undo-news">
        {news}
      </p>
      {(body !== null || news !== '') && (
        <section class="undo" aria-labelledby="undo-title" data-testid="undo" data-policy={undo.policy} ref={panel} tabIndex={-1}>
          <h2 id="undo-title">{m.title}</h2>
          {news !== '' && <p class="muted">{news}</p>}
          {body}
        </section>
      )}
    </>
  );
}
