// Whether the server can be reached: the browser says it is offline, or a request to the
// server failed without an answer (the server stopped, the network gone). Any answer from the
// server, even a refusal, means it is back. While unreachable the page asks `/healthz` now and
// then, so the "offline" banner goes by itself when the server returns.
import { useEffect, useState } from 'preact/hooks';

let unreachable = false;
const listeners = new Set<() => void>();
let probe: ReturnType<typeof setInterval> | null = null;

const PROBE_EVERY_MS = 5_000;

function set(next: boolean) {
  if (next === unreachable) return;
  unreachable = next;
  if (unreachable && probe === null) {
    probe = setInterval(() => {
      void fetch('/healthz', { cache: 'no-store' }).then(
        () => set(false),
        () => {},
      );
    }, PROBE_EVERY_MS);
  } else if (!unreachable && probe !== null) {
    clearInterval(probe);
    probe = null;
  }
  listeners.forEach((l) => l());
}

/** True while the last request to the server got no answer. */
export function isUnreachable(): boolean {
  return unreachable;
}

/** Calls `listener` when the server becomes unreachable or answers again. */
export function onConnectionChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** Wraps `fetch` to the server: a failure without an answer marks it unreachable, an answer
 * marks it reachable. */
export async function watched(send: () => Promise<Response>): Promise<Response> {
  try {
    const response = await send();
    // A proxy in front of a stopped server answers for it.
    set(response.status >= 502 && response.status <= 504);
    return response;
  } catch (error) {
    if (error instanceof TypeError) set(true);
    throw error;
  }
}

/** True while the browser is offline or the server did not answer the last request. */
export function useOffline(): boolean {
  const [, render] = useState(0);
  useEffect(() => {
    const update = () => render((n) => n + 1);
    listeners.add(update);
    window.addEventListener('online', update);
    window.addEventListener('offline', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('online', update);
      window.removeEventListener('offline', update);
    };
  }, []);
  return unreachable || !navigator.onLine;
}
