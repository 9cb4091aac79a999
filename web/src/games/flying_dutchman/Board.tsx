// The Flying Dutchman's game page body, from the caller's view and legal choices only: what
// is happening now, the sea, the value track, the caller's hand and controls, everyone's
// public information. (The game page around it shows the result at the end, with `Outcome`.)
import { useEffect } from 'preact/hooks';
import { defineMessages, useLang, useMessages } from '../../i18n';
import type { BoardProps, EventOut } from '../types';
import { describeEvent } from './describe';
import { BoardMap } from './BoardMap';
import { Controls } from './Controls';
import { MyHand, Players, Reveal, RoundInfo, ValueTrack } from './Tableau';
import { type Command, type Legal, type MoveReason, type View } from './common';
import { rememberBoard } from './names';
import { draftKey, forgetStaleDraft } from './BidComposer';
import './fd.css';

const msgs = defineMessages({
  notStarted: { en: 'The table is being set.', ja: '準備中です。' },
  resolving: { en: 'Resolving…', ja: '処理中…' },
  action: { en: (who: string) => `${who}: choose an action.`, ja: (who: string) => `${who}が行動を選ぶ番です。` },
  kontor: { en: (who: string) => `${who} is exchanging share cards.`, ja: (who: string) => `${who}が商館で株を交換中です。` },
  move: {
    en: (who: string, why: string) => `${who} moves the ghost ship (${why}).`,
    ja: (who: string, why: string) => `${who}が幽霊船を動かします（${why}）。`,
  },
  declaration: {
    en: (tie: string, next: string) => `Tie between ${tie}: ${next} declares a destination.`,
    ja: (tie: string, next: string) => `${tie}が同点：${next}が行き先を宣言する番です。`,
  },
  negotiation: { en: (tie: string) => `${tie} negotiate where the ghost ship goes.`, ja: (tie: string) => `${tie}が幽霊船の行き先を交渉中です。` },
  extra: {
    en: (tie: string, done: string) => `Extra round: ${tie} choose in secret${done ? ` (chosen: ${done})` : ''}.`,
    ja: (tie: string, done: string) => `追加ラウンド：${tie}が秘密に選びます${done ? `（選択済み：${done}）` : ''}。`,
  },
  income: {
    en: (who: string) => `On the island: ${who} may take income.`,
    ja: (who: string) => `島：${who}は収入を得られます。`,
  },
  finished: { en: 'The game is over.', ja: 'ゲームは終了しました。' },
  you: { en: 'you', ja: 'あなた' },
  sole_bid: { en: 'best bid', ja: '最高の入札' },
  dice_off: { en: 'won the dice-off', ja: 'サイコロ勝負に勝利' },
  declaration_reason: { en: 'all declared the same', ja: '全員が同じ宣言' },
  agreement: { en: 'agreed', ja: '合意' },
  sea: { en: 'The sea', ja: '海' },
  justNow: { en: 'What just happened', ja: '直前の出来事' },
});

/** Where the ghost ship may go by the rules, from the public view (adjacent, not back). */
export function publicDestinations(view: View): string[] {
  const here = view.ghost_ship ?? view.board.start;
  return view.board.lines
    .filter((line) => line.includes(here))
    .map((line) => (line[0] === here ? line[1]! : line[0]!))
    .filter((to) => to !== view.previous_space);
}

function StepLine({ view, mySeat, seatName }: { view: View; mySeat: number | null; seatName: (s: number) => string }) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const who = (s: number) => (s === mySeat ? `${seatName(s)} (${m.you})` : seatName(s));
  const list = (seats: number[]) => seats.map(who).join(lang === 'ja' ? '、' : ', ');
  const reason = (r: MoveReason) => (r === 'declaration' ? m.declaration_reason : m[r]);
  const step = view.step;
  const text = (() => {
    switch (step.step) {
      case 'not_started':
        return m.notStarted;
      case 'resolving':
        return m.resolving;
      case 'action':
        return m.action(who(step.seat));
      case 'kontor_exchange':
        return m.kontor(who(step.seat));
      case 'move':
        return m.move(who(step.seat), reason(step.reason));
      case 'declaration':
        return m.declaration(list(step.tie), who(step.next));
      case 'negotiation':
        return m.negotiation(list(step.tie));
      case 'extra_round':
        return m.extra(list(step.tie), list(step.chosen));
      case 'island_income':
        return m.income(list(step.movers.filter((s) => !step.decided.includes(s))));
      case 'finished':
        return m.finished;
    }
  })();
  return (
    <p class="fd-step" aria-live="polite" data-testid="fd-step">
      {text}
    </p>
  );
}

/** The events of the latest command (they share one time), in words: what just happened. */
function JustNow({ events, view, seatName }: { events: EventOut[]; view: View; seatName: (s: number) => string }) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const last = events[events.length - 1];
  if (!last) return null;
  const latest = events.filter((e) => e.at === last.at && !e.type.startsWith('kontor.')).slice(-5);
  if (latest.length === 0) return null;
  return (
    <section class="fd-justnow" aria-label={m.justNow} data-testid="fd-just-now">
      <ul>
        {latest.map((e) => (
          <li key={e.seq}>{describeEvent(e.data as never, lang, seatName, view.board)}</li>
        ))}
      </ul>
    </section>
  );
}

/** A key for the step the caller decides in: the controls keep their state while it holds. */
function decisionKey(view: View, legal: Legal): string {
  return `${view.round}:${view.step.step}:${legal.decision}`;
}

export function Board({ detail, view, legal, mySeat, act, busy, past, seatName, events }: BoardProps<View, Legal, Command>) {
  const m = useMessages(msgs);
  rememberBoard(view.board);
  const me = mySeat === null ? undefined : view.players.find((p) => p.seat === mySeat);
  const deciding = !past && mySeat !== null && legal !== null && legal.decision !== 'none';
  const picking = deciding && (legal.decision === 'move' || legal.decision === 'declare');
  const finished = view.step.step === 'finished';
  const allowed = picking ? legal.destinations : finished ? [] : publicDestinations(view);
  const pick = picking
    ? (to: string) => {
        const command: Command = legal.decision === 'declare' ? { type: 'declare', to } : { type: 'move', to };
        act(command).catch(() => {});
      }
    : undefined;
  const pending = finished ? [] : detail.pending;
  // A half-made bid is kept for the decision it was made in; once the game is past it, it goes.
  const draft = mySeat === null ? null : { key: draftKey(detail.id, mySeat), step: deciding ? decisionKey(view, legal) : '' };
  useEffect(() => {
    if (draft && !past) forgetStaleDraft(draft.key, draft.step);
  }, [draft?.key, draft?.step, past]);
  return (
    <div
      class="fd"
      data-testid="fd-board"
      data-version={detail.at_version}
      data-step={view.step.step}
      data-round={view.round}
      data-my-seat={mySeat ?? undefined}
    >
      <StepLine view={view} mySeat={mySeat} seatName={seatName} />
      <RoundInfo view={view} />
      {events && <JustNow events={events} view={view} seatName={seatName} />}
      <div class="fd-layout">
        {deciding && draft && (
          <div class="fd-act">
            <Controls
              key={decisionKey(view, legal)}
              view={view}
              legal={legal}
              mySeat={mySeat}
              busy={busy}
              act={act}
              seatName={seatName}
              draft={draft}
            />
          </div>
        )}
        <div class="fd-sea" aria-label={m.sea}>
          <BoardMap
            board={view.board}
            ghost={view.ghost_ship ?? null}
            previous={view.previous_space ?? null}
            allowed={allowed}
            onPick={busy ? undefined : pick}
          />
          <ValueTrack view={view} />
        </div>
        <div class="fd-side">
          {me && !finished && <MyHand view={view} me={me} />}
          <Reveal view={view} seatName={seatName} />
          <Players view={view} mySeat={mySeat} seatName={seatName} pending={pending} />
        </div>
      </div>
    </div>
  );
}
