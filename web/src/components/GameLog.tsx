// The log in words: every event the viewer may see, one line each. Loaded page by page
// from `GET /games/{id}/events` and kept live by the events of the game's stream.
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { api, ok } from '../api/client';
import { defineMessages, useLang, useMessages, type Lang } from '../i18n';
import type { EventOut, GameModule } from '../games/types';
import { useWhen } from './when';
import { markUndone } from '../undo/log';
import { undoLine } from '../undo/lines';
import { reasonText } from '../orders/words';

const msgs = defineMessages({
  title: { en: 'Log', ja: 'ログ' },
  empty: { en: 'Nothing has happened yet.', ja: 'まだ何も起きていません。' },
  started: { en: (n: string) => `The game starts: ${n}.`, ja: (n: string) => `ゲーム開始：${n}。` },
  ended: { en: 'The game is over; the seed is revealed.', ja: 'ゲーム終了。シードが公開されました。' },
  timedOut: {
    en: (s: string, how: string) => `${s}'s time ran out (${how === 'bot' ? 'the bot moved' : 'passed'}).`,
    ja: (s: string, how: string) => `${s}の持ち時間が切れました（${how === 'bot' ? 'ボットが手番を実行' : 'パス'}）。`,
  },
  abandoned: {
    en: (s: string) => `${s} timed out too often; the bot plays the seat.`,
    ja: (s: string) => `${s}は時間切れが続いたため、ボットが席を操作します。`,
  },
  returned: { en: (s: string) => `${s} is back at the table.`, ja: (s: string) => `${s}が席に戻りました。` },
  undone: { en: 'undone', ja: '取り消し' },
  byOrder: { en: 'played by your order', ja: 'あなたの指示で指した手' },
  forced: {
    en: (reason: string) => `the only move: ${reason}`,
    ja: (reason: string) => `これしか指せない手：${reason}`,
  },
  youHadTo: {
    en: (reason: string) => `you had to: ${reason}`,
    ja: (reason: string) => `これしか指せませんでした：${reason}`,
  },
  left: {
    en: (s: string, forfeit: boolean) =>
      forfeit
        ? `${s} deleted their account and left; the seat is forfeited and ranked last.`
        : `${s} deleted their account and left; the bot plays the seat from now on.`,
    ja: (s: string, forfeit: boolean) =>
      forfeit
        ? `${s}がアカウントを削除して退出しました。この席は失格となり、最下位になります。`
        : `${s}がアカウントを削除して退出しました。これからはボットがこの席をプレイします。`,
  },
});

type Messages = { [K in keyof typeof msgs]: (typeof msgs)[K]['en'] };

/** The events of a game: the log's pages, merged with what the stream brings; a rewind
 * from the stream marks the events it undid as the server's pages would (`undone`). */
export function useEventLog(id: string, enabled: boolean) {
  const [events, setEvents] = useState<EventOut[]>([]);
  const add = useCallback((more: EventOut[]) => {
    setEvents((old) => {
      const bySeq = new Map(old.map((e) => [e.seq, e]));
      for (const e of more) bySeq.set(e.seq, e);
      return markUndone([...bySeq.values()].sort((a, b) => a.seq - b.seq));
    });
  }, []);
  useEffect(() => {
    setEvents([]);
    if (!enabled) return;
    let stopped = false;
    void (async () => {
      let after: number | null = 0;
      while (after !== null && !stopped) {
        const page: { items: EventOut[]; next_after?: number | null } = await ok(
          api.GET('/api/v1/games/{game_id}/events', {
            params: { path: { game_id: id }, query: { after, limit: 200 } },
          }),
        );
        if (stopped) return;
        add(page.items);
        after = page.next_after ?? null;
      }
    })().catch(() => {});
    return () => {
      stopped = true;
    };
  }, [id, enabled, add]);
  return { events, add };
}

function platformLine(event: EventOut, m: Messages, lang: Lang, seatName: (s: number) => string): string | null {
  const undo = undoLine(event, lang, seatName);
  if (undo !== null) return undo;
  const data = event.data as {
    type: string;
    seat?: number;
    played?: string;
    policy?: string;
    seats?: { username: string }[];
  };
  switch (event.type) {
    case 'kontor.game_started':
      // The seats as the table names them now (display names; a deleted account's placeholder).
      return m.started((data.seats ?? []).map((_, seat) => seatName(seat)).join(', '));
    case 'kontor.game_ended':
      return m.ended;
    case 'kontor.turn_timed_out':
      return m.timedOut(seatName(data.seat ?? 0), data.played ?? 'pass');
    case 'kontor.seat_abandoned':
      return m.abandoned(seatName(data.seat ?? 0));
    case 'kontor.seat_returned':
      return m.returned(seatName(data.seat ?? 0));
    case 'kontor.seat_left':
      return m.left(seatName(data.seat ?? 0), data.policy === 'forfeit');
    default:
      return null;
  }
}

/** One line for an event: the platform's own, else the game module's. */
export function describeEvent(
  event: EventOut,
  module: GameModule<never, never, never, never, never> | undefined,
  lang: Lang,
  m: Messages,
  seatName: (s: number) => string,
): string {
  const own = platformLine(event, m, lang, seatName);
  if (own !== null) return own;
  try {
    return module ? module.describe(event.data as never, lang, seatName) : event.type;
  } catch {
    return event.type;
  }
}

export function GameLog(props: {
  events: EventOut[];
  module: GameModule<never, never, never, never, never> | undefined;
  seatName: (s: number) => string;
  /** The reader's seat: a forced move of its own is told as "you had to". */
  mySeat?: number | null;
}) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const when = useWhen();
  // The newest line stays in sight as lines come in, unless the reader scrolled up.
  const list = useRef<HTMLOListElement>(null);
  const atEnd = useRef(true);
  useLayoutEffect(() => {
    const el = list.current;
    if (el && atEnd.current) el.scrollTop = el.scrollHeight;
  }, [props.events.length]);
  const onScroll = () => {
    const el = list.current;
    if (el) atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight < 8;
  };
  return (
    <section class="log" aria-labelledby="log-title">
      <h2 id="log-title">{m.title}</h2>
      {props.events.length === 0 ? (
        <p>{m.empty}</p>
      ) : (
        <ol data-testid="log" tabIndex={0} aria-labelledby="log-title" ref={list} onScroll={onScroll}>
          {props.events.map((e) => (
            // An undone move stays in the log, struck through and labelled so in words.
            <li key={e.seq} value={e.seq} title={when(e.at)} class={e.undone ? 'undone' : undefined} data-undone={e.undone ? 'true' : undefined}>
              {e.undone ? (
                <>
                  <span class="tag">{m.undone}</span> <del>{describeEvent(e, props.module, lang, m, props.seatName)}</del>
                </>
              ) : (
                describeEvent(e, props.module, lang, m, props.seatName)
              )}
              {/* A move the server played on its own: forced (for everyone), or by the reader's own order. */}
              {e.auto === 'order' && (
                <span class="tag auto" data-auto="order">
                  {m.byOrder}
                </span>
              )}
              {e.auto === 'forced' && (
                <span class="tag auto" data-auto="forced">
                  {e.actor === props.mySeat ? m.youHadTo(reasonText(e.reason, lang)) : m.forced(reasonText(e.reason, lang, false))}
                </span>
              )}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
