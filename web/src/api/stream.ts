// Follows a server-sent event stream with fetch (so the access token goes in the
// Authorization header, not the URL) and reconnects with `Last-Event-ID` after a drop,
// refreshing the session when the token has expired. A reconnection that gets no answer
// marks the server unreachable (./connection.ts).
import { currentToken, refreshSession } from './client';
import { watched } from './connection';

export interface StreamMessage {
  event: string;
  id: string | null;
  data: string;
}

export interface StreamHandlers {
  onMessage: (message: StreamMessage) => void;
  /** `true` while connected; `false` while waiting to reconnect. */
  onConnected?: (connected: boolean) => void;
  /** A refusal that retrying cannot mend (404, 400…); the stream stops. */
  onFailed?: (status: number) => void;
}

/** Starts following `url`; call the returned function to stop. */
export function follow(url: string, handlers: StreamHandlers, lastEventId?: string): () => void {
  const controller = new AbortController();
  let lastId = lastEventId ?? null;
  let stopped = false;

  const run = async () => {
    let delay = 500;
    while (!stopped) {
      try {
        const headers: Record<string, string> = { accept: 'text/event-stream' };
        const token = currentToken();
        if (token) headers.authorization = `Bearer ${token}`;
        if (lastId !== null) headers['last-event-id'] = lastId;
        // Watched like every request: a server that stopped answering shows as offline at
        // once (the banner), not only as a stream waiting to reconnect.
        const response = await watched(() => fetch(url, { headers, signal: controller.signal }));
        if (response.status === 401 && (await refreshSession())) continue;
        if (!response.ok || !response.body) {
          if (response.status >= 400 && response.status < 500 && response.status !== 429) {
            handlers.onFailed?.(response.status);
            return;
          }
          throw new Error(`stream answered ${response.status}`);
        }
        handlers.onConnected?.(true);
        delay = 500;
        await read(response.body, (message) => {
          if (message.id !== null) lastId = message.id;
          handlers.onMessage(message);
        });
      } catch (error) {
        if (stopped || (error instanceof DOMException && error.name === 'AbortError')) return;
      }
      if (stopped) return;
      handlers.onConnected?.(false);
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(delay * 2, 15_000);
    }
  };
  void run();
  return () => {
    stopped = true;
    controller.abort();
  };
}

/** Parses the text/event-stream format (WHATWG HTML, "server-sent events"). */
async function read(body: ReadableStream<Uint8Array>, emit: (m: StreamMessage) => void) {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let event = 'message';
  let id: string | null = null;
  let data: string[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let newline: number;
    while ((newline = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
      if (line === '') {
        if (data.length > 0) emit({ event, id, data: data.join('\n') });
        event = 'message';
        id = null;
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const raw = colon < 0 ? '' : line.slice(colon + 1);
      const text = raw.startsWith(' ') ? raw.slice(1) : raw;
      if (field === 'event') event = text;
      else if (field === 'data') data.push(text);
      else if (field === 'id') id = text;
    }
  }
}
