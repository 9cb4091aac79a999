// The one way the page talks to the server: openapi-fetch over the types generated from the
// committed openapi/openapi.json (`npm run gen`), so a change of the contract that breaks the
// page fails its type check.
//
// The access token lives in this module's memory only. The refresh token is the HttpOnly
// `kontor_session` cookie, which page scripts cannot read: on load, and whenever the access
// token has expired, the session is refreshed with it.
import createClient from 'openapi-fetch';
import type { components, paths } from './schema';
import { watched } from './connection';

export type Schemas = components['schemas'];
export type Problem = Schemas['Problem'];

/** An answer other than 2xx, with the server's problem document. */
export class ApiError extends Error {
  readonly status: number;
  readonly problem: Problem;
  /** Seconds to wait, from a `Retry-After` header (429), else null. */
  readonly retryAfter: number | null;
  constructor(status: number, problem: Problem, retryAfter: number | null = null) {
    super(problem.detail);
    this.status = status;
    this.problem = problem;
    this.retryAfter = retryAfter;
  }
  get code(): string {
    return this.problem.code;
  }
}

let accessToken: string | null = null;
let refreshing: Promise<boolean> | null = null;
const listeners = new Set<(signedIn: boolean) => void>();

/** Called with `false` when the session ends (logout, or the refresh was refused). */
export function onSessionChange(listener: (signedIn: boolean) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function setToken(token: string | null) {
  const changed = (token === null) !== (accessToken === null);
  accessToken = token;
  if (changed) listeners.forEach((l) => l(token !== null));
}

export function currentToken(): string | null {
  return accessToken;
}

/** Renews the access token from the session cookie; false if there is no session. */
/** Runs `work` while no other tab of this site runs its own: a refresh spends the session
 * cookie's token, and two tabs spending the same one (opened at once) would look like a
 * stolen token's reuse, which ends the login. In turn, each sends the cookie as it is then. */
function acrossTabs<T>(work: () => Promise<T>): Promise<T> {
  const locks = (navigator as Navigator & { locks?: LockManager }).locks;
  return locks ? (locks.request('kontor-session-refresh', work) as Promise<T>) : work();
}

export function refreshSession(): Promise<boolean> {
  refreshing ??= (async () => {
    try {
      const response = await acrossTabs(() =>
        // Bounded like every request: the lock it holds would otherwise stall every later
        // refresh in the browser's tabs.
        watched(() => answered(new Request('/api/v1/auth/session/refresh', { method: 'POST' }))),
      );
      // 204: no session cookie came, nobody is signed in here (no failure, nothing logged).
      if (!response.ok || response.status === 204) {
        setToken(null);
        return false;
      }
      const body = (await response.json()) as Schemas['SessionToken'];
      setToken(body.access_token);
      return true;
    } catch {
      return false;
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

/** How long a request waits for the server's answer before it is given up as unanswered. */
const ANSWER_TIMEOUT_MS = 60_000;

/** Fetches `r`, given up after ANSWER_TIMEOUT_MS as if the server could not be reached (a
 * TypeError, as fetch says it), so no control waits for an answer that will never come. */
function answered(r: Request): Promise<Response> {
  return fetch(r, { credentials: 'same-origin', signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) }).catch((err: unknown) => {
    throw err instanceof DOMException && err.name === 'TimeoutError' ? new TypeError('the server did not answer in time') : err;
  });
}

/** Sends a request with the access token; on 401 refreshes once and sends it again. */
export async function authedFetch(request: Request): Promise<Response> {
  const retry = request.clone();
  const send = (r: Request) => {
    if (accessToken) r.headers.set('authorization', `Bearer ${accessToken}`);
    // The server writes the refusals it words itself (webhooks, push) in the page's language.
    r.headers.set('accept-language', document.documentElement.lang || 'en');
    return watched(() => answered(r));
  };
  const response = await send(request);
  if (response.status !== 401 || !accessToken) return response;
  return (await refreshSession()) ? send(retry) : response;
}

export const api = createClient<paths>({ baseUrl: '', fetch: authedFetch });

/** The data of an openapi-fetch answer, or throws its problem as an ApiError. */
export async function ok<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  const wait = Number(response.headers.get('retry-after') ?? '');
  throw new ApiError(response.status, asProblem(error, response), response.headers.has('retry-after') && Number.isFinite(wait) ? wait : null);
}

function asProblem(error: unknown, response: Response): Problem {
  if (error && typeof error === 'object' && 'code' in error && 'detail' in error) {
    return error as Problem;
  }
  return {
    type: 'about:blank',
    title: response.statusText,
    status: response.status,
    code: 'network',
    detail: `the server answered ${response.status} ${response.statusText}`,
  } as unknown as Problem;
}

export async function signIn(username: string, password: string): Promise<void> {
  const body = await ok(api.POST('/api/v1/auth/session', { body: { username, password } }));
  setToken(body.access_token);
}

export async function signOut(): Promise<void> {
  try {
    await fetch('/api/v1/auth/session/logout', { method: 'POST', credentials: 'same-origin' });
  } finally {
    setToken(null);
  }
}
