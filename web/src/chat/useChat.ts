// The chat of one game, as the caller may read it: the overview (`GET /games/{id}/chat`:
// which channels, whether each may be written, the read markers), every readable channel's
// messages, and what the game's stream brings (`chat`, `chat_hidden` events). Read markers
// only move forward, here as on the server.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, ok, type Schemas } from '../api/client';
import { isUnreachable, onConnectionChange } from '../api/connection';

export type ChatMessage = Schemas['ChatMessage'];
export type ChatOverview = Schemas['ChatOverview'];
export type ChatChannel = ChatOverview['channels'][number];

/** A message that came in live (not loaded), for the one polite announcement. */
export interface Arrival {
  message: ChatMessage;
  /** Counts up, so two equal texts in a row are still announced. */
  n: number;
}

/**
 * A message written while the server could not be reached: kept (in this tab, beside the
 * game, so a reload keeps it too) and sent once the server answers again, with the
 * `Idempotency-Key` it was first sent with, so it is never posted twice.
 */
export interface Unsent {
  channel: string;
  text: string;
  key: string;
  /** Why it can no longer go (a refusal once the server answered), if so. */
  refused?: unknown;
}

/** Where a game's unsent messages wait in the tab. */
export function outboxKey(gameId: string): string {
  return `kontor.chat-outbox:${gameId}`;
}

function readOutbox(gameId: string): Unsent[] {
  try {
    const list = JSON.parse(sessionStorage.getItem(outboxKey(gameId)) ?? '[]') as Unsent[];
    return Array.isArray(list) ? list.filter((u) => typeof u.text === 'string' && typeof u.key === 'string' && typeof u.channel === 'string') : [];
  } catch {
    return [];
  }
}

function writeOutbox(gameId: string, list: Unsent[]) {
  const waiting = list.filter((u) => u.refused === undefined).map(({ channel, text, key }) => ({ channel, text, key }));
  if (waiting.length === 0) sessionStorage.removeItem(outboxKey(gameId));
  else sessionStorage.setItem(outboxKey(gameId), JSON.stringify(waiting));
}

/** Whether a failed send is the server out of reach (to keep and send later), not a refusal. */
export function unreachableFailure(err: unknown): boolean {
  if (err instanceof TypeError) return true;
  if (err instanceof ApiError) return err.status >= 502 && err.status <= 504;
  return false;
}

function merge(old: Record<string, ChatMessage[]>, more: ChatMessage[]): Record<string, ChatMessage[]> {
  const next = { ...old };
  const touched = new Set<string>();
  for (const message of more) {
    const list = touched.has(message.channel) ? next[message.channel]! : [...(next[message.channel] ?? [])];
    touched.add(message.channel);
    const at = list.findIndex((m) => m.id === message.id);
    if (at >= 0) list[at] = message;
    else list.push(message);
    next[message.channel] = list;
  }
  for (const channel of touched) next[channel]!.sort((a, b) => a.id - b.id);
  return next;
}

export function useChat(gameId: string, enabled: boolean, reloadKey: string, myUserId: string | undefined, admin = false) {
  const [overview, setOverview] = useState<ChatOverview | null>(null);
  const [messages, setMessages] = useState<Record<string, ChatMessage[]>>({});
  const [readUpTo, setReadUpTo] = useState<Record<string, number>>({});
  const [arrival, setArrival] = useState<Arrival | null>(null);
  const loaded = useRef(new Set<string>());
  const known = useRef(new Set<string>());
  // The markers sent, so each is sent once.
  const sent = useRef<Record<string, number>>({});
  const me = useRef(myUserId);
  me.current = myUserId;
  const isAdmin = useRef(admin);
  isAdmin.current = admin;

  const add = useCallback((more: ChatMessage[]) => {
    if (more.length > 0) setMessages((old) => merge(old, more));
  }, []);

  // Messages waiting for the server, in the order they were written.
  const [outbox, setOutboxState] = useState<Unsent[]>(() => readOutbox(gameId));
  const outboxNow = useRef(outbox);
  const setOutbox = useCallback(
    (next: Unsent[]) => {
      outboxNow.current = next;
      setOutboxState(next);
      writeOutbox(gameId, next);
    },
    [gameId],
  );
  const flushing = useRef(false);
  /** Sends what waits, oldest first, each with its own key; stops at the first that cannot
   * reach the server (it stays, the rest after it too). */
  const flush = useCallback(async () => {
    if (flushing.current) return;
    flushing.current = true;
    try {
      for (;;) {
        const next = outboxNow.current.find((u) => u.refused === undefined);
        if (!next) return;
        try {
          const message = await ok(
            api.POST('/api/v1/games/{game_id}/chat/{channel}/messages', {
              params: { path: { game_id: gameId, channel: next.channel }, header: { 'Idempotency-Key': next.key } },
              body: { text: next.text },
            }),
          );
          add([message]);
          setOutbox(outboxNow.current.filter((u) => u.key !== next.key));
        } catch (err) {
          if (unreachableFailure(err)) return;
          setOutbox(outboxNow.current.map((u) => (u.key === next.key ? { ...u, refused: err } : u)));
        }
      }
    } finally {
      flushing.current = false;
    }
  }, [gameId, add, setOutbox]);
  /** Keeps a message the server could not be reached for; it goes when the server is back. */
  const keep = useCallback(
    (item: Unsent) => {
      if (outboxNow.current.some((u) => u.key === item.key)) return;
      setOutbox([...outboxNow.current, item]);
    },
    [setOutbox],
  );
  /** Forgets an unsent message (its author gave it up, or copied it after a refusal). */
  const drop = useCallback((key: string) => setOutbox(outboxNow.current.filter((u) => u.key !== key)), [setOutbox]);
  useEffect(() => {
    if (!enabled) return;
    // A reload in the meantime: what waited is sent now, if the server answers.
    if (!isUnreachable()) void flush();
    return onConnectionChange(() => {
      if (!isUnreachable()) void flush();
    });
  }, [enabled, flush]);

  const loadChannel = useCallback(
    async (channel: string) => {
      let after = 0;
      for (;;) {
        const page = await ok(
          api.GET('/api/v1/games/{game_id}/chat/{channel}/messages', {
            params: { path: { game_id: gameId, channel }, query: { after, limit: 200 } },
          }),
        );
        add(page.items);
        if (page.next_after === null || page.next_after === undefined) return;
        after = page.next_after;
      }
    },
    [gameId, add],
  );

  const loadOverview = useCallback(async () => {
    try {
      const next = await ok(api.GET('/api/v1/games/{game_id}/chat', { params: { path: { game_id: gameId } } }));
      setOverview(next);
      known.current = new Set(next.channels.map((c) => c.channel));
      setReadUpTo((old) => {
        const out = { ...old };
        for (const c of next.channels) out[c.channel] = Math.max(out[c.channel] ?? 0, c.read_up_to ?? 0);
        return out;
      });
      for (const c of next.channels) {
        if (loaded.current.has(c.channel)) continue;
        loaded.current.add(c.channel);
        void loadChannel(c.channel).catch(() => loaded.current.delete(c.channel));
      }
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) setOverview(null);
    }
  }, [gameId, loadChannel]);

  useEffect(() => {
    setOverview(null);
    setMessages({});
    setReadUpTo({});
    loaded.current = new Set();
    known.current = new Set();
    sent.current = {};
  }, [gameId]);

  useEffect(() => {
    if (enabled) void loadOverview();
  }, [enabled, loadOverview, reloadKey]);

  /** An event of the game's stream; true if it was the chat's. */
  const receive = useCallback(
    (event: string, data: string): boolean => {
      if (event === 'chat') {
        const message = JSON.parse(data) as ChatMessage;
        add([message]);
        if (message.author.user_id !== me.current) setArrival((old) => ({ message, n: (old?.n ?? 0) + 1 }));
        // A channel not listed yet (a private channel's first message): its list, and its
        // unread count, come with the overview.
        if (!known.current.has(message.channel)) void loadOverview();
        return true;
      }
      if (event === 'chat_hidden') {
        const { id } = JSON.parse(data) as { id: number };
        // Admins keep the text (the API gives it to them), marked as hidden.
        const keep = isAdmin.current;
        setMessages((old) => {
          const next: Record<string, ChatMessage[]> = {};
          for (const [channel, list] of Object.entries(old)) {
            next[channel] = list.map((m) => (m.id === id ? { ...m, hidden: true, text: keep ? m.text : null } : m));
          }
          return next;
        });
        // Nor does the live region keep the text of a message removed since it was said.
        if (!keep) setArrival((old) => (old?.message.id === id ? null : old));
        return true;
      }
      return false;
    },
    [add, loadOverview],
  );

  /** Marks the channel read up to `upTo` (ignored unless it moves the marker forward). */
  const markRead = useCallback(
    (channel: string, upTo: number) => {
      if ((sent.current[channel] ?? 0) >= upTo) return;
      sent.current[channel] = upTo;
      setReadUpTo((old) => ((old[channel] ?? 0) >= upTo ? old : { ...old, [channel]: upTo }));
      void ok(
        api.PUT('/api/v1/games/{game_id}/chat/{channel}/read', {
          params: { path: { game_id: gameId, channel } },
          body: { up_to: upTo },
          // A player who reads and leaves at once (the lobby, another game) has read it all
          // the same: the marker goes even as the page is left.
          keepalive: true,
        }),
      ).catch(() => {
        sent.current[channel] = 0;
      });
    },
    [gameId],
  );

  /** The caller's unread messages of a channel (their own never count). */
  const unread = (channel: string): number => {
    const list = messages[channel];
    const marker = readUpTo[channel] ?? 0;
    if (!list) return overview?.channels.find((c) => c.channel === channel)?.unread ?? 0;
    return list.filter((m) => m.id > marker && m.author.user_id !== myUserId).length;
  };

  return { overview, setOverview, messages, readUpTo, arrival, add, receive, markRead, unread, reload: loadOverview, outbox, keep, drop };
}

export type ChatState = ReturnType<typeof useChat>;
