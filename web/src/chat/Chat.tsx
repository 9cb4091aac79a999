// The chat pane of the game page: a tab for each channel the caller may read (the table,
// each private channel named by the other player, the spectators), unread counts, a "new
// messages" divider at the first unread message, the composer (Enter sends, Shift+Enter
// starts a new line, at most 500 characters), each message's actions behind one small
// button (report it, once: the page knows which were reported, also after a reload; for
// admins, hide it), and the creator's switch of the spectators' channel; for admins, the
// panel of open reports (./Moderation.tsx). A message written while the server cannot be
// reached is kept and sent once it is back (./useChat.ts). New messages are announced
// politely in one live region. In the table's tab, the game's own negotiation steps (The Flying Dutchman's
// formal offers) are lines among the messages, ordered by the game's version; a step taken
// back by an undo stays, struck through and labelled.
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks';
import { api, ApiError, ok, type Schemas } from '../api/client';
import { errorText, type CodeMessages } from '../api/errors';
import { defineMessages, useLang, useMessages, type Lang } from '../i18n';
import { newKey } from '../api/keys';
import type { EventOut, GameDetail, GameModule } from '../games/types';
import type { User } from '../session';
import { useWhen } from '../components/when';
import { MessageText } from './text';
import { HideForm, ReportsPanel } from './Moderation';
import { unreachableFailure, type ChatMessage, type ChatState, type Unsent } from './useChat';

export const MAX_CHARS = 500;
type Reason = Schemas['ReportReason'];
const REASONS: Reason[] = ['spam', 'abuse', 'cheating', 'other'];

const msgs = defineMessages({
  title: { en: 'Chat', ja: 'チャット' },
  table: { en: 'Table', ja: 'テーブル' },
  undone: { en: 'undone', ja: '取り消し' },
  spectators: { en: 'Spectators', ja: '観戦者' },
  privateWith: { en: (who: string) => `${who} (private)`, ja: (who: string) => `${who}（非公開）` },
  unread: { en: (n: number) => `${n} unread`, ja: (n: number) => `未読${n}件` },
  empty: { en: 'No messages yet.', ja: 'まだメッセージはありません。' },
  newMessages: { en: 'New messages', ja: '新しいメッセージ' },
  removed: { en: 'Removed by a moderator.', ja: 'モデレーターにより削除されました。' },
  removedAdmin: { en: 'Removed by a moderator; only admins see the text:', ja: 'モデレーターにより削除（本文は管理者にだけ表示）：' },
  spectator: { en: 'spectator', ja: '観戦者' },
  you: { en: 'you', ja: 'あなた' },
  messageTo: { en: (channel: string) => `Message to ${channel}`, ja: (channel: string) => `${channel}へのメッセージ` },
  send: { en: 'Send', ja: '送信' },
  sending: { en: 'Sending…', ja: '送信中…' },
  keys: {
    en: 'Enter sends; Shift+Enter starts a new line.',
    ja: 'Enterで送信、Shift+Enterで改行。',
  },
  counter: {
    en: (n: number, max: number) => `${n} of ${max} characters`,
    ja: (n: number, max: number) => `${max}文字中${n}文字`,
  },
  tooLong: {
    en: (over: number) => `${over} characters too many.`,
    ja: (over: number) => `${over}文字多すぎます。`,
  },
  readOnly: { en: 'You can read this channel but not write in it now.', ja: 'このチャンネルは読むことはできますが、今は書き込めません。' },
  closedNote: { en: "The spectators' channel is closed by the game's creator.", ja: '観戦者チャンネルはゲームの作成者により閉じられています。' },
  blockedNote: {
    en: 'One of you has blocked the other: this private channel can be read but not written.',
    ja: 'どちらかが相手をブロックしているため、この非公開チャンネルは読むだけで書き込めません。',
  },
  spectatorsOpen: { en: "The spectators' channel is open.", ja: '観戦者チャンネルは開いています。' },
  spectatorsClosed: { en: "The spectators' channel is closed.", ja: '観戦者チャンネルは閉じています。' },
  close: { en: "Close the spectators' channel", ja: '観戦者チャンネルを閉じる' },
  reopen: { en: "Reopen the spectators' channel", ja: '観戦者チャンネルを再開する' },
  report: { en: 'Report', ja: '通報' },
  reportTitle: { en: (who: string) => `Report the message of ${who}`, ja: (who: string) => `${who}のメッセージを通報` },
  actions: { en: (who: string) => `Actions: message of ${who}`, ja: (who: string) => `操作：${who}のメッセージ` },
  reportedAlready: { en: 'You reported this message.', ja: 'このメッセージは通報済みです。' },
  hide: { en: 'Hide', ja: '非表示' },
  hideTitle: { en: (who: string) => `Hide the message of ${who}`, ja: (who: string) => `${who}のメッセージを非表示にする` },
  unsent: {
    en: 'Not sent yet: the server cannot be reached. It goes by itself when the server is back.',
    ja: '未送信：サーバーに接続できません。接続が戻ると自動で送信されます。',
  },
  unsentRefused: { en: (why: string) => `Not sent: ${why}`, ja: (why: string) => `送信できませんでした：${why}` },
  kept: {
    en: 'The server cannot be reached: your message is kept and goes when the server is back.',
    ja: 'サーバーに接続できません。メッセージは保存され、接続が戻ると送信されます。',
  },
  discard: { en: 'Discard', ja: '破棄' },
  reason: { en: 'Reason', ja: '理由' },
  note: { en: 'Note for the moderators (optional)', ja: 'モデレーターへのメモ（任意）' },
  sendReport: { en: 'Send the report', ja: '通報を送信' },
  cancel: { en: 'Cancel', ja: 'キャンセル' },
  reported: { en: 'Reported; a moderator will look at it. Thank you.', ja: '通報しました。モデレーターが確認します。' },
  reasons: {
    en: (r: string) => ({ spam: 'Spam', abuse: 'Abuse or insults', cheating: 'Cheating', other: 'Something else' })[r] ?? r,
    ja: (r: string) => ({ spam: 'スパム', abuse: '暴言・嫌がらせ', cheating: '不正行為', other: 'その他' })[r] ?? r,
  },
  announce: {
    en: (who: string, channel: string, text: string) => `${who} in ${channel}: ${text}`,
    ja: (who: string, channel: string, text: string) => `${channel}で${who}：${text}`,
  },
  tabsLabel: { en: 'Chat channels', ja: 'チャットのチャンネル' },
  messagesOf: { en: (channel: string) => `Messages: ${channel}`, ja: (channel: string) => `メッセージ：${channel}` },
});

/** The chat's refusals, in words in both languages (the server's detail is added where it says more). */
const CHAT_CODES: CodeMessages = {
  chat_channel_closed: {
    en: "The spectators' channel is closed: nobody can write in it now.",
    ja: '観戦者チャンネルは閉じられているため、今は書き込めません。',
  },
  chat_read_only: { en: 'This channel can be read but not written now.', ja: 'このチャンネルは今は読むだけで、書き込めません。' },
  chat_blocked: {
    en: 'One of you has blocked the other, so this private channel cannot be written.',
    ja: 'どちらかが相手をブロックしているため、この非公開チャンネルには書き込めません。',
  },
  chat_daily_limit: {
    en: 'You sent as many messages in this game as a day allows; try again later.',
    ja: 'このゲームで1日に送れるメッセージの上限に達しました。時間をおいてお試しください。',
  },
  chat_channel_not_found: { en: 'There is no such channel for you.', ja: 'そのチャンネルはありません。' },
  chat_message_not_found: { en: 'There is no such message.', ja: 'そのメッセージはありません。' },
};

/** How long until `until`, in words ("12 minutes", "3 hours"). */
function timeLeft(until: Date, lang: Lang): string {
  const minutes = Math.max(1, Math.ceil((until.getTime() - Date.now()) / 60_000));
  const unit: [number, Intl.RelativeTimeFormatUnit] =
    minutes < 120 ? [minutes, 'minute'] : minutes < 48 * 60 ? [Math.ceil(minutes / 60), 'hour'] : [Math.ceil(minutes / 1440), 'day'];
  return new Intl.NumberFormat(lang, { style: 'unit', unit: unit[1], unitDisplay: 'long' }).format(unit[0]);
}

/** A refusal of the chat in words: muted with the time left, waits, closed channels… */
export function chatErrorText(err: unknown, lang: Lang): string {
  if (!(err instanceof ApiError)) return errorText(err, lang);
  const ja = lang === 'ja';
  const extra: Record<string, unknown> = { ...err.problem };
  if (err.code === 'chat_muted') {
    const until = typeof extra.muted_until === 'string' ? new Date(extra.muted_until) : null;
    if (until && !Number.isNaN(until.getTime()))
      return ja
        ? `モデレーターによりチャットを制限されています（残り${timeLeft(until, lang)}）。`
        : `A moderator has muted you in the chat for ${timeLeft(until, lang)} more.`;
    return ja ? 'モデレーターによりチャットを制限されています。' : 'A moderator has muted you in the chat.';
  }
  if (err.code === 'chat_rate_limited') {
    const wait = err.retryAfter !== null ? Math.max(1, Math.ceil(err.retryAfter)) : null;
    if (wait !== null)
      return ja ? `送信が速すぎます。${wait}秒待ってから送ってください。` : `You are sending too fast; wait ${wait} second${wait === 1 ? '' : 's'} and send again.`;
    return ja ? '送信が速すぎます。少し待ってから送ってください。' : 'You are sending too fast; wait a moment and send again.';
  }
  if (err.code === 'invalid_chat_message') {
    return ja ? `このメッセージは送れません（${err.message}）。` : `This message cannot be sent: ${err.message}`;
  }
  const words = CHAT_CODES[err.code];
  return words ? words[lang] : errorText(err, lang);
}

/** Characters as the server counts them (Unicode scalar values). */
export function charCount(text: string): number {
  return [...text.trim()].length;
}

interface ChatProps {
  chat: ChatState;
  detail: GameDetail;
  user: User;
  events: EventOut[];
  module: GameModule<never, never, never, never, never> | undefined;
  seatName: (seat: number) => string;
  /** False while the pane is not on the screen (a phone showing the board). */
  visible: boolean;
}

/** The tab's name of a channel, as the caller sees it. */
function useChannelName(mySeat: number | null, seatName: (s: number) => string) {
  const m = useMessages(msgs);
  return (channel: string): string => {
    if (channel === 'table') return m.table;
    if (channel === 'spectators') return m.spectators;
    const pair = /^private:(\d+)-(\d+)$/.exec(channel);
    if (pair) {
      const a = Number(pair[1]);
      const b = Number(pair[2]);
      const other = mySeat === a ? b : mySeat === b ? a : null;
      return m.privateWith(other === null ? `${seatName(a)}, ${seatName(b)}` : seatName(other));
    }
    return channel;
  };
}

type Line =
  | { kind: 'message'; message: ChatMessage; version: number }
  | { kind: 'system'; seq: number; text: string; version: number; undone: boolean };

export function ChatPane({ chat, detail, user, events, module, seatName, visible }: ChatProps) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const mySeat = detail.your_seat ?? null;
  const channelName = useChannelName(mySeat, seatName);
  const channels = chat.overview?.channels ?? [];
  const [active, setActive] = useState('table');
  const current = channels.find((c) => c.channel === active) ?? channels[0];
  const channel = current?.channel ?? 'table';
  // Where the divider stands: the read marker as it was when the tab was opened (or when
  // a message came in unseen), kept while the tab stays in view.
  const [divider, setDivider] = useState<Record<string, number>>({});
  const list = chat.messages[channel] ?? [];
  const lastId = list.length > 0 ? list[list.length - 1]!.id : 0;
  const marker = chat.readUpTo[channel] ?? 0;
  const [pageVisible, setPageVisible] = useState(document.visibilityState === 'visible');
  useEffect(() => {
    const on = () => setPageVisible(document.visibilityState === 'visible');
    document.addEventListener('visibilitychange', on);
    return () => document.removeEventListener('visibilitychange', on);
  }, []);
  const seen = visible && pageVisible && current !== undefined;
  useEffect(() => {
    if (!seen) return;
    setDivider((old) => (old[channel] === undefined ? { ...old, [channel]: marker } : old));
    if (lastId > marker) chat.markRead(channel, lastId);
  }, [seen, channel, lastId, marker]);
  const switchTo = (next: string) => {
    // Leaving a tab forgets its divider: next time it stands at the first message unread then.
    setDivider((old) => {
      const out = { ...old };
      delete out[channel];
      delete out[next];
      return out;
    });
    setActive(next);
  };
  useEffect(() => {
    // Unseen (another tab of the browser, the board on a phone): the divider moves on.
    if (!seen) setDivider({});
  }, [seen]);

  if (!chat.overview || chat.overview.chat === 'none' || channels.length === 0) {
    return null;
  }
  const isCreator = user.id === detail.created_by;
  return (
    <section class="chat" aria-labelledby="chat-title" data-testid="chat">
      <h2 id="chat-title">{m.title}</h2>
      <Tabs
        channels={channels.map((c) => c.channel)}
        active={channel}
        onSelect={switchTo}
        name={channelName}
        unread={chat.unread}
        label={m.tabsLabel}
      />
      <div role="tabpanel" id="chat-panel" aria-labelledby={`chat-tab-${tabId(channel)}`} class="chat-panel">
        <Messages
          key={channel}
          channel={channel}
          label={m.messagesOf(channelName(channel))}
          lines={linesOf(channel, list, events, module, lang, seatName)}
          divider={divider[channel]}
          user={user}
          seatName={seatName}
          unsent={chat.outbox.filter((u) => u.channel === channel)}
          onDiscard={chat.drop}
          onHidden={(hidden) => chat.add([hidden])}
        />
        {current?.can_write ? (
          <Composer key={channel} chat={chat} gameId={detail.id} channel={channel} channelName={channelName(channel)} />
        ) : (
          <p class="muted" data-testid="chat-read-only">
            {current?.write_refused === 'closed' || (channel === 'spectators' && chat.overview.spectators_open === false)
              ? m.closedNote
              : current?.write_refused === 'blocked'
                ? m.blockedNote
                : m.readOnly}
          </p>
        )}
      </div>
      {isCreator && detail.status !== 'cancelled' && <SpectatorsSwitch chat={chat} gameId={detail.id} />}
      {user.admin && <ReportsPanel onHidden={(hidden) => hidden.game_id === detail.id && chat.add([hidden])} />}
    </section>
  );
}

/**
 * The page's one polite live region for the chat: the last message that came in live, with
 * who wrote it and where. Outside the pane, so that it speaks while a phone shows the board.
 */
export function ChatAnnouncement({ chat, mySeat, seatName }: { chat: ChatState; mySeat: number | null; seatName: (s: number) => string }) {
  const m = useMessages(msgs);
  const channelName = useChannelName(mySeat, seatName);
  const arrival = chat.arrival;
  const text = arrival
    ? m.announce(authorName(arrival.message, seatName, m), channelName(arrival.message.channel), arrival.message.text ?? m.removed)
    : '';
  return (
    <div class="visually-hidden" aria-live="polite" data-testid="chat-announcement">
      {text}
    </div>
  );
}

function authorName(message: ChatMessage, seatName: (s: number) => string, m: { spectator: string }): string {
  const seat = message.author.seat;
  if (seat !== null && seat !== undefined) return seatName(seat);
  const display = message.author.display_name?.trim();
  const name = display && display !== message.author.username ? `${display} (${message.author.username})` : message.author.username;
  return `${name} (${m.spectator})`;
}

function tabId(channel: string): string {
  return channel.replace(/[^a-z0-9]/gi, '-');
}

/** The messages of a channel, and for the table the game's own chat lines, by version. */
function linesOf(
  channel: string,
  messages: ChatMessage[],
  events: EventOut[],
  module: ChatProps['module'],
  lang: Lang,
  seatName: (s: number) => string,
): Line[] {
  const lines: Line[] = messages.map((message) => ({ kind: 'message', message, version: message.at_version }));
  if (channel === 'table' && module?.chatLine) {
    for (const e of events) {
      if (e.type.startsWith('kontor.')) continue;
      let text: string | null = null;
      try {
        text = module.chatLine(e.data as never, lang, seatName);
      } catch {
        text = null;
      }
      if (text !== null) lines.push({ kind: 'system', seq: e.seq, text, version: e.seq, undone: e.undone === true });
    }
  }
  // A message written at version v follows the event that made v, and comes before v + 1.
  const rank = (l: Line) => (l.kind === 'system' ? 0 : 1);
  const id = (l: Line) => (l.kind === 'message' ? l.message.id : l.seq);
  return lines.sort((a, b) => a.version - b.version || rank(a) - rank(b) || id(a) - id(b));
}

function Tabs(props: {
  channels: string[];
  active: string;
  onSelect: (channel: string) => void;
  name: (channel: string) => string;
  unread: (channel: string) => number;
  label: string;
}) {
  const m = useMessages(msgs);
  const refs = useRef<Record<string, HTMLButtonElement | null>>({});
  const onKeyDown = (e: KeyboardEvent) => {
    const at = props.channels.indexOf(props.active);
    let next: number | null = null;
    if (e.key === 'ArrowRight') next = (at + 1) % props.channels.length;
    else if (e.key === 'ArrowLeft') next = (at - 1 + props.channels.length) % props.channels.length;
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = props.channels.length - 1;
    if (next === null) return;
    e.preventDefault();
    const channel = props.channels[next]!;
    props.onSelect(channel);
    refs.current[channel]?.focus();
  };
  return (
    <div role="tablist" aria-label={props.label} class="chat-tabs" onKeyDown={onKeyDown}>
      {props.channels.map((channel) => {
        const unread = channel === props.active ? 0 : props.unread(channel);
        const selected = channel === props.active;
        return (
          <button
            key={channel}
            type="button"
            role="tab"
            id={`chat-tab-${tabId(channel)}`}
            aria-selected={selected}
            aria-controls="chat-panel"
            tabIndex={selected ? 0 : -1}
            class="chat-tab secondary"
            data-channel={channel}
            aria-label={unread > 0 ? `${props.name(channel)}, ${m.unread(unread)}` : undefined}
            ref={(el) => {
              refs.current[channel] = el;
            }}
            onClick={() => props.onSelect(channel)}
          >
            {props.name(channel)}
            {unread > 0 && (
              <span class="badge" aria-hidden="true" data-testid="chat-unread-badge">
                {unread}
              </span>
            )}
          </button>
        );
      })}
    </div>
  );
}

/**
 * The actions on one message, behind one small button so the chat reads as talk: report it
 * (another's message; once reported it says so, also after a reload), and for admins, hide
 * it. A disclosure: Escape or a click elsewhere closes it, and the focus goes back.
 */
function MessageActions(props: {
  who: string;
  canReport: boolean;
  reported: boolean;
  canHide: boolean;
  onReport: () => void;
  onHide: () => void;
}) {
  const m = useMessages(msgs);
  const [open, setOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const id = useRef(`chat-actions-${Math.random().toString(36).slice(2)}`).current;
  // The menu's first item takes the focus as the menu is drawn, before the browser handles
  // the next key: a later effect could move it there after the player had gone on to another
  // item (Tab, or a click), and Enter would then choose the wrong one.
  useLayoutEffect(() => {
    if (open) menu.current?.querySelector<HTMLElement>('button')?.focus();
  }, [open]);
  useEffect(() => {
    if (!open) return;
    const away = (e: Event) => {
      const target = e.target as Node | null;
      if (target && !menu.current?.contains(target) && !toggle.current?.contains(target)) setOpen(false);
    };
    document.addEventListener('click', away);
    return () => document.removeEventListener('click', away);
  }, [open]);
  const close = () => {
    setOpen(false);
    toggle.current?.focus();
  };
  const choose = (what: () => void) => () => {
    setOpen(false);
    what();
  };
  return (
    <span class="chat-actions">
      <button
        type="button"
        ref={toggle}
        class="chat-actions-toggle secondary"
        aria-expanded={open}
        aria-controls={id}
        data-testid="chat-actions"
        onClick={() => setOpen(!open)}
      >
        <span aria-hidden="true">⋯</span>
        <span class="visually-hidden">{m.actions(props.who)}</span>
      </button>
      {open && (
        <div
          id={id}
          ref={menu}
          class="chat-actions-menu"
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.preventDefault();
              close();
            }
          }}
        >
          {props.canReport &&
            (props.reported ? (
              <p class="muted">{m.reportedAlready}</p>
            ) : (
              <button type="button" class="link-button" onClick={choose(props.onReport)} aria-label={m.reportTitle(props.who)}>
                {m.report}
              </button>
            ))}
          {props.canHide && (
            <button type="button" class="link-button" onClick={choose(props.onHide)} aria-label={m.hideTitle(props.who)}>
              {m.hide}
            </button>
          )}
        </div>
      )}
    </span>
  );
}

function Messages(props: {
  channel: string;
  label: string;
  lines: Line[];
  divider: number | undefined;
  user: User;
  seatName: (s: number) => string;
  /** Messages of this channel written while the server could not be reached. */
  unsent: Unsent[];
  onDiscard: (key: string) => void;
  /** A moderator hid a message from this page (the message as admins see it). */
  onHidden: (hidden: ChatMessage) => void;
}) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const when = useWhen();
  const box = useRef<HTMLOListElement>(null);
  const atEnd = useRef(true);
  const [acting, setActing] = useState<{ id: number; what: 'report' | 'hide' } | null>(null);
  // Reported from this page (the pages say which were reported before).
  const [reported, setReported] = useState<Set<number>>(new Set());
  // The newest line stays in sight as lines come in, unless the reader scrolled up.
  useLayoutEffect(() => {
    const el = box.current;
    if (el && atEnd.current) el.scrollTop = el.scrollHeight;
  }, [props.lines.length, props.unsent.length]);
  const onScroll = () => {
    const el = box.current;
    if (el) atEnd.current = el.scrollHeight - el.scrollTop - el.clientHeight < 8;
  };
  const firstUnread =
    props.divider === undefined
      ? undefined
      : props.lines.find((l) => l.kind === 'message' && l.message.id > props.divider! && l.message.author.user_id !== props.user.id);
  if (props.lines.length === 0 && props.unsent.length === 0) return <p class="muted chat-empty">{m.empty}</p>;
  return (
    <ol class="chat-lines" ref={box} onScroll={onScroll} tabIndex={0} aria-label={props.label} data-testid="chat-lines">
      {props.lines.map((line) => {
        if (line.kind === 'system')
          return (
            <li
              key={`e${line.seq}`}
              class={`chat-system${line.undone ? ' undone' : ''}`}
              data-testid="chat-system"
              data-version={line.version}
              data-undone={line.undone ? 'true' : undefined}
            >
              {line.undone ? (
                // A step taken back stays where it was said, struck through and labelled.
                <>
                  <span class="tag">{m.undone}</span> <del>{line.text}</del>
                </>
              ) : (
                line.text
              )}
            </li>
          );
        const message = line.message;
        const mine = message.author.user_id === props.user.id;
        const who = mine ? `${authorName(message, props.seatName, m)} (${m.you})` : authorName(message, props.seatName, m);
        return [
          line === firstUnread && (
            <li key="divider" class="chat-divider" data-testid="chat-divider">
              <span>{m.newMessages}</span>
            </li>
          ),
          <li
            key={message.id}
            class={`chat-message${mine ? ' mine' : ''}${message.hidden ? ' hidden-message' : ''}`}
            data-testid="chat-message"
            data-id={message.id}
            data-version={message.at_version}
          >
            <div class="chat-meta">
              <strong>{who}</strong>{' '}
              <time class="muted" dateTime={message.created_at}>
                {when(message.created_at)}
              </time>
              {!message.hidden && (!mine || props.user.admin) && (
                <MessageActions
                  who={who}
                  canReport={!mine}
                  reported={message.reported_by_you === true || reported.has(message.id)}
                  canHide={props.user.admin === true}
                  onReport={() => setActing({ id: message.id, what: 'report' })}
                  onHide={() => setActing({ id: message.id, what: 'hide' })}
                />
              )}
            </div>
            {message.hidden ? (
              <p class="chat-text removed" data-testid="chat-removed">
                <em>{message.text ? m.removedAdmin : m.removed}</em>
                {message.text ? <span> {message.text}</span> : null}
              </p>
            ) : (
              <p class="chat-text">
                <MessageText text={message.text ?? ''} />
              </p>
            )}
            {reported.has(message.id) && (
              <p class="ok" role="status">
                {m.reported}
              </p>
            )}
            {acting?.id === message.id && acting.what === 'report' && !message.hidden && (
              <ReportForm
                message={message}
                who={who}
                onDone={() => {
                  setActing(null);
                  setReported((old) => new Set(old).add(message.id));
                }}
                onCancel={() => setActing(null)}
              />
            )}
            {acting?.id === message.id && acting.what === 'hide' && !message.hidden && (
              <HideForm
                message={message}
                who={who}
                onDone={(hidden) => {
                  setActing(null);
                  props.onHidden(hidden);
                }}
                onCancel={() => setActing(null)}
              />
            )}
          </li>,
        ];
      })}
      {props.unsent.map((u) => (
        <li key={u.key} class="chat-message mine chat-unsent" data-testid="chat-unsent" data-refused={u.refused !== undefined ? 'true' : undefined}>
          <p class="chat-text">
            <MessageText text={u.text} />
          </p>
          {u.refused === undefined ? (
            <p class="muted">{m.unsent}</p>
          ) : (
            <p class="error">
              {m.unsentRefused(chatErrorText(u.refused, lang))}{' '}
              <button type="button" class="link-button" onClick={() => props.onDiscard(u.key)}>
                {m.discard}
              </button>
            </p>
          )}
        </li>
      ))}
    </ol>
  );
}

function ReportForm(props: { message: ChatMessage; who: string; onDone: () => void; onCancel: () => void }) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const [reason, setReason] = useState<Reason>('spam');
  const [note, setNote] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLSelectElement>(null);
  // Focused as it is drawn, so what is typed at once goes into it.
  useLayoutEffect(() => first.current?.focus(), []);
  const id = `report-${props.message.id}`;
  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await ok(
        api.POST('/api/v1/chat/messages/{message_id}/report', {
          params: { path: { message_id: props.message.id } },
          body: { reason, note: note.trim() === '' ? null : note.trim() },
        }),
      );
      props.onDone();
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="chat-report" onSubmit={submit} aria-label={m.reportTitle(props.who)} data-testid="chat-report">
      <label for={`${id}-reason`}>{m.reason}</label>
      <select id={`${id}-reason`} ref={first} value={reason} onChange={(e) => setReason(REASONS.find((r) => r === e.currentTarget.value) ?? 'other')}>
        {REASONS.map((r) => (
          <option key={r} value={r}>
            {m.reasons(r)}
          </option>
        ))}
      </select>
      <label for={`${id}-note`}>{m.note}</label>
      <textarea id={`${id}-note`} rows={2} maxLength={MAX_CHARS} value={note} onInput={(e) => setNote(e.currentTarget.value)} />
      {error !== null && (
        <p class="error" role="alert">
          {chatErrorText(error, lang)}
        </p>
      )}
      <div class="chat-report-buttons">
        <button type="submit" disabled={busy}>
          {m.sendReport}
        </button>{' '}
        <button type="button" class="secondary" onClick={props.onCancel}>
          {m.cancel}
        </button>
      </div>
    </form>
  );
}

function Composer(props: { chat: ChatState; gameId: string; channel: string; channelName: string }) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const [text, setText] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [kept, setKept] = useState(false);
  // The key of the message being sent: a retry of the same text sends the same key, so a
  // send whose answer was lost is not posted twice.
  const pending = useRef<{ text: string; key: string } | null>(null);
  const n = charCount(text);
  const over = n - MAX_CHARS;
  const id = `chat-input-${tabId(props.channel)}`;
  const send = async () => {
    if (busy || n === 0 || over > 0) return;
    const key = pending.current?.text === text ? pending.current.key : newKey();
    pending.current = { text, key };
    setBusy(true);
    setError(null);
    try {
      const message = await ok(
        api.POST('/api/v1/games/{game_id}/chat/{channel}/messages', {
          params: { path: { game_id: props.gameId, channel: props.channel }, header: { 'Idempotency-Key': key } },
          body: { text },
        }),
      );
      pending.current = null;
      setText('');
      setKept(false);
      props.chat.add([message]);
    } catch (err) {
      if (unreachableFailure(err)) {
        // Kept, and sent with this key once the server answers: never lost, never twice.
        props.chat.keep({ channel: props.channel, text, key });
        pending.current = null;
        setText('');
        setKept(true);
      } else {
        setError(err);
      }
    } finally {
      setBusy(false);
    }
  };
  const onKeyDown = (e: KeyboardEvent) => {
    // Not while an input method composes (Japanese): its Enter confirms the conversion.
    if (e.key !== 'Enter' || e.shiftKey || e.isComposing || e.keyCode === 229) return;
    e.preventDefault();
    void send();
  };
  return (
    <form
      class="chat-compose"
      onSubmit={(e) => {
        e.preventDefault();
        void send();
      }}
    >
      <label for={id}>{m.messageTo(props.channelName)}</label>
      <textarea
        id={id}
        rows={2}
        value={text}
        onInput={(e) => setText(e.currentTarget.value)}
        onKeyDown={onKeyDown}
        aria-describedby={`${id}-keys ${id}-count`}
        aria-invalid={over > 0}
        data-testid="chat-input"
      />
      <div class="chat-compose-foot">
        <small id={`${id}-keys`} class="hint">
          {m.keys}
        </small>
        <small id={`${id}-count`} class={over > 0 ? 'error' : 'hint'} data-testid="chat-counter">
          {m.counter(n, MAX_CHARS)}
          {over > 0 ? ` ${m.tooLong(over)}` : ''}
        </small>
        <button type="submit" disabled={busy || n === 0 || over > 0}>
          {busy ? m.sending : m.send}
        </button>
      </div>
      {error !== null && (
        <p class="error" role="alert" data-testid="chat-error">
          {chatErrorText(error, lang)}
        </p>
      )}
      <p class="notice chat-kept" role="status" data-testid="chat-kept" hidden={!kept || props.chat.outbox.length === 0}>
        {kept && props.chat.outbox.length > 0 ? m.kept : ''}
      </p>
    </form>
  );
}

function SpectatorsSwitch({ chat, gameId }: { chat: ChatState; gameId: string }) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const open = chat.overview?.spectators_open !== false;
  const toggle = async () => {
    setBusy(true);
    setError(null);
    try {
      chat.setOverview(
        await ok(api.PUT('/api/v1/games/{game_id}/chat/spectators', { params: { path: { game_id: gameId } }, body: { open: !open } })),
      );
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <p class="chat-spectators-switch">
      <span data-testid="spectators-state">{open ? m.spectatorsOpen : m.spectatorsClosed}</span>{' '}
      <button type="button" class="secondary" disabled={busy} onClick={() => void toggle()}>
        {open ? m.close : m.reopen}
      </button>
      {error !== null && (
        <span class="error" role="alert">
          {' '}
          {chatErrorText(error, lang)}
        </span>
      )}
    </p>
  );
}

/** The caller's unread messages over every channel (for the phone's Chat tab). */
export function useTotalUnread(chat: ChatState): number {
  const channels = chat.overview?.channels ?? [];
  return useMemo(() => channels.reduce((sum, c) => sum + chat.unread(c.channel), 0), [channels, chat.messages, chat.readUpTo]);
}
