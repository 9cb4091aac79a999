// Idempotency keys: a fresh random one per intended request (a move, a chat message); a
// retry of the same request sends the same key, so the server acts on it once.

/** 32 hexadecimal digits from the browser's secure random source. */
export function newKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}
