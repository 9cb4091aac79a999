// Taking moves back (issue 23), on a running game's page, from `GameDetail.undo`: the
// Undo button where the table's policy allows it (one click when only the caller's own
// moves go back, else "Ask to undo…" naming who must consent), the open request (who asked,
// which moves would go back, who must answer and who did, until when; Withdraw for the one
// who asked), and the prompt with Accept and Decline for the seats asked. The moves are named
// in words (the log's lines of the game), never by a line number far down the page. A
// declined request is not asked again before the game moves on (the server's rule; the
// panel says so). The page follows the game's stream, and the request's events are events,
// so all of it is live; what changes is said in a polite live region.
import { useEffect, useRef, useState } from 'preact/hooks';
import { api, ok, type Schemas } from '../api/client';
import { defineMessages, useMessages, type Lang } from '../i18n';
import type { EventOut, GameDetail, GameModule } from '../games/types';
import { useWhen } from '../components/when';
import { isUndoEvent } from './log';
import { undoLine } from './lines';

type UndoState = Schemas['UndoState'];

/** How many moves the panel names; more are counted. */
const MOVES_SHOWN = 6;

/**
 * The moves an undo back to version `to` would take back, in words (the game's log lines of
 * the events after `to` still in effect), oldest first.
 */
export function movesAfter(
  events: EventOut[],
  to: number,
  module: GameModule<never, never, never, never, never> | undefined,
  lang: Lang,
  seatName: (seat: number) => string,
): string[] {
  if (!module) return [];
  const lines: string[] = [];
  for (const e of events) {
    if (e.seq <= to || e.undone || e.type.startsWith('kontor.')) continue;
    try {
      lines.push(module.describe(e.data as never, lang, seatName));
    } catch {
      lines.push(e.type);
    }
  }
  return lines;
}

const msgs = defineMessages({
  title: { en: 'Take back moves', ja: '手の取り消し' },
  undoOwn: { en: 'Undo my move', ja: '自分の手を取り消す' },
  undoOwnHint: {
    en: 'Nobody else has moved since; it takes back:',
    ja: 'その後ほかの人はまだ動いていません。取り消される手：',
  },
  ask: { en: 'Ask to undo…', ja: '取り消しを頼む…' },
  askHint: {
    en: (who: string) => `Others moved since: ${who} must agree.`,
    ja: (who: string) => `その後ほかの人も動いています：${who}の同意が必要です。`,
  },
  askQuestion: {
    en: (who: string) => `Ask to take these moves back? ${who} must agree; any “no” ends the request.`,
    ja: (who: string) => `これらの手の取り消しを頼みますか？${who}の同意が必要で、一人でも断れば取りやめになります。`,
  },
  botsAccept: { en: 'A seat the bot plays agrees at once.', ja: 'ボットが操作する席はすぐに同意します。' },
  send: { en: 'Send the request', ja: '依頼を送る' },
  cancel: { en: 'Cancel', ja: 'やめる' },
  requested: {
    en: (who: string) => `${who} asks to take these moves back:`,
    ja: (who: string) => `${who}が、次の手の取り消しを頼んでいます：`,
  },
  youRequested: {
    en: 'You asked to take these moves back:',
    ja: '次の手の取り消しを頼みました：',
  },
  requestedNews: {
    en: (who: string, n: number, needs: string) => `${who} asks to take back ${n === 1 ? 'a move' : `${n} moves`}; ${needs} must agree.`,
    ja: (who: string, n: number, needs: string) => `${who}が${n}手の取り消しを頼んでいます。${needs}の同意が必要です。`,
  },
  more: { en: (n: number) => `and ${n} more`, ja: (n: number) => `ほか${n}手` },
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
  declined: {
    en: 'Your request was declined. You can ask again after the next move.',
    ja: 'あなたの依頼は断られました。次の手が指されたら、もう一度頼めます。',
  },
  and: { en: ' and ', ja: '、' },
});

/** The moves as a list, the first few named and the rest counted. */
function MoveList({ moves, id }: { moves: string[]; id?: string }) {
  const m = useMessages(msgs);
  const shown = moves.slice(0, MOVES_SHOWN);
  return (
    <ul class="undo-moves" id={id} data-testid="undo-moves">
      {shown.map((line, i) => (
        <li key={i}>{line}</li>
      ))}
      {moves.length > shown.length && <li class="muted">{m.more(moves.length - shown.length)}</li>}
    </ul>
  );
}

/** The names as a list in words: "ada", "ada and ben", "ada, ben and cy". */
function names(list: string[], and: string, lang: 'en' | 'ja'): string {
  if (lang === 'ja') return list.join('、');
  if (list.length <= 1) return list.join('');
  return `${list.slice(0, -1).join(', ')}${and}${list[list.length - 1]}`;
}

export function UndoPanel(props: {
  detail: GameDetail;
  events: EventOut[];
  module: GameModule<never, never, never, never, never> | undefined;
  seatName: (seat: number) => string;
  busy: boolean;
  lang: 'en' | 'ja';
  /** Runs a call as the page runs a move: busy, the refusal shown, the game loaded again. */
  run: (call: () => Promise<unknown>) => Promise<void>;
}) {
  const { detail, events, module, seatName, busy, lang, run } = props;
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
  const botPlayed = (seat: number) => detail.seats.some((s) => s.seat === seat && s.state !== 'active');
  const who = (seats: number[]) => names(seats.map((s) => (s === mine ? m.you : seatName(s))), m.and, lang);
  const moves = (to: number) => movesAfter(events, to, module, lang, seatName);
  // What the last event of the game said about undo, if nothing happened since: announced,
  // and shown once a request ended. An open request says itself in the panel, so its own
  // event is announced in other words and not shown a second time.
  const last = events[events.length - 1];
  const fresh = last && isUndoEvent(last.type) && last.seq === detail.version ? last : null;
  const news =
    fresh === null
      ? ''
      : fresh.type === 'kontor.undo_requested' && request
        ? m.requestedNews(seatName(request.by_seat), moves(request.to_version).length, who(request.needs))
        : (undoLine(fresh, lang, seatName) ?? '');
  const newsShown = news !== '' && !(fresh?.type === 'kontor.undo_requested' && request);

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
        <p>{request.by_seat === mine ? m.youRequested : m.requested(seatName(request.by_seat))}</p>
        <MoveList moves={moves(request.to_version)} />
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
          <button type="button" disabled={busy} onClick={() => void send(canTo)} aria-describedby="undo-hint undo-own-moves" data-testid="undo-own">
            {m.undoOwn}
          </button>
          <small id="undo-hint" class="hint">
            {m.undoOwnHint}
          </small>
          <MoveList moves={moves(canTo)} id="undo-own-moves" />
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
          <p id="undo-question">{m.askQuestion(who(others))}</p>
          <MoveList moves={moves(canTo)} />
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

  const declined = request === null && mine !== null && (undo.declined_at ?? null) !== null;
  return (
    <>
      {/* Always there while undo is possible, so that a screen reader hears each change. */}
      <p class="visually-hidden" role="status" aria-live="polite" data-testid="undo-news">
        {news}
      </p>
      {(body !== null || newsShown || declined) && (
        <section class="undo" aria-labelledby="undo-title" data-testid="undo" data-policy={undo.policy} ref={panel} tabIndex={-1}>
          <h2 id="undo-title">{m.title}</h2>
          {newsShown && <p class="muted">{news}</p>}
          {declined && (
            <p class="muted" data-testid="undo-declined">
              {m.declined}
            </p>
          )}
          {body}
        </section>
      )}
    </>
  );
}
