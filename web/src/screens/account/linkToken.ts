// The token of a mailed link (`/verify-email?token=…`, `/reset-password?token=…`), read once
// and then taken out of the address bar, so it stays neither in the history nor on screen.
// (Every answer of the server says `Referrer-Policy: no-referrer`, so it never leaks to
// another site either; the server's log masks it.)
export function takeLinkToken(): string | null {
  const url = new URL(window.location.href);
  const token = url.searchParams.get('token');
  if (token !== null) {
    url.searchParams.delete('token');
    window.history.replaceState(window.history.state, '', url.pathname + url.search + url.hash);
  }
  return token;
}
