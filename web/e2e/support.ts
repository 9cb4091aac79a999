// Helpers for the browser tests.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { test as base, expect, type APIRequestContext, type Browser, type BrowserContext, type Page } from '@playwright/test';

/**
 * Every spec's `test`: it fails a test in whose pages a script threw and nobody caught it (an
 * uncaught exception, or a rejected promise left unhandled). Such an error can stop a page
 * half-way through an update (a control left disabled, a form never shown) without any sign
 * on the screen, so it is never ignored. Contexts made with `browser.newContext()` are
 * watched too.
 */
export const test = base.extend<{ scriptErrors: void }>({
  scriptErrors: [
    async ({ browser, context }, use) => {
      const errors: string[] = [];
      const watch = (c: BrowserContext) =>
        c.on('weberror', (e) => errors.push(`${e.page()?.url() ?? '(no page)'}: ${e.error().stack ?? e.error().message}`));
      watch(context);
      const newContext = browser.newContext.bind(browser);
      browser.newContext = async (options) => {
        const made = await newContext(options);
        watch(made);
        return made;
      };
      try {
        await use();
      } finally {
        browser.newContext = newContext;
      }
      expect(errors, 'no script error in any page').toEqual([]);
    },
    { auto: true },
  ],
});

/** A password the server's strength check accepts, different for each player. */
export function passwordOf(name: string): string {
  return `${name} rides the ghost ship at midnight 42`;
}

let counter = 0;
/** A username unique within the run (the server keeps its data for the whole run). */
export function uniqueName(base: string): string {
  counter += 1;
  return `${base}${Date.now().toString(36).slice(-4)}${counter}`;
}

export interface Player {
  name: string;
  context: BrowserContext;
  page: Page;
}

/** A new browser context whose player signs up through the page (as `name`, if given). */
export async function signUp(browser: Browser, base: string, name = uniqueName(base)): Promise<Player> {
  return signUpIn(await browser.newContext(), name);
}

/** A player who signs up as `name` through the page, in `context` (a server of its own, for one). */
export async function signUpIn(context: BrowserContext, name: string): Promise<Player> {
  const page = await context.newPage();
  await page.goto('/signup');
  await page.getByLabel(/^Username$/).fill(name);
  await page.getByLabel('Email address').fill(`${name}@example.org`);
  await page.getByLabel('Password').fill(passwordOf(name));
  await page.getByRole('button', { name: 'Sign up' }).click();
  await expect(page.getByTestId('signed-in-as')).toHaveText(name);
  return { name, context, page };
}

/** Everything the page keeps where scripts can read it: the DOM and web storage. */
export async function readableState(page: Page): Promise<string> {
  return page.evaluate(() => {
    const storage: string[] = [];
    for (const store of [localStorage, sessionStorage]) {
      for (let i = 0; i < store.length; i++) {
        const key = store.key(i)!;
        storage.push(`${key}=${store.getItem(key)}`);
      }
    }
    return `${document.documentElement.outerHTML}\n${storage.join('\n')}\n${document.cookie}`;
  });
}

/** A player registered through the API, for one the test never shows a page of; their name. */
export async function registered(request: APIRequestContext, base: string): Promise<string> {
  const name = uniqueName(base);
  const response = await request.post('/api/v1/auth/register', { data: { username: name, email: `${name}@example.org`, password: passwordOf(name) } });
  expect(response.status(), await response.text()).toBe(201);
  return name;
}

/** A player's access token, for setting up through the API what a test does not exercise. */
export async function accessToken(request: APIRequestContext, name: string): Promise<string> {
  const login = () => request.post('/api/v1/auth/login', { data: { username: name, password: passwordOf(name) } });
  let response;
  try {
    response = await login();
  } catch (error) {
    // Playwright's request context keeps idle connections, and a spec often logs in after a
    // long spell of browser work: a connection the server closed just as it was reused dies
    // with "socket hang up" (ECONNRESET) before any answer. Logging in again is harmless,
    // and only that transport failure is retried; any answer, good or bad, is checked below.
    if (!String(error).includes('ECONNRESET')) throw error;
    response = await login();
  }
  expect(response.ok()).toBe(true);
  return ((await response.json()) as { access_token: string }).access_token;
}

/**
 * On a finished game's page: the replay slider shows an earlier version's board (and the
 * step buttons move one version), "Back to now" returns to the end, and the verification
 * says the game verified.
 */
export async function checkFinishedGame(page: Page): Promise<void> {
  const slider = page.getByTestId('replay');
  const board = page.getByTestId('board-frame');
  await expect(slider).toBeVisible();
  const last = Number(await slider.getAttribute('max'));
  expect(last).toBeGreaterThan(2);
  await expect(board).toHaveAttribute('data-at-version', String(last));
  const earlier = Math.max(2, Math.floor(last / 2));
  await slider.fill(String(earlier));
  await expect(page).toHaveURL(new RegExp(`[?&]at=${earlier}(&|$)`));
  await expect(board).toHaveAttribute('data-at-version', String(earlier));
  await expect(page.getByTestId('at-version')).toHaveAttribute('data-at', String(earlier));
  await page.getByRole('button', { name: 'Step back' }).click();
  await expect(board).toHaveAttribute('data-at-version', String(earlier - 1));
  await page.getByRole('button', { name: 'Step forward' }).click();
  await expect(board).toHaveAttribute('data-at-version', String(earlier));
  await page.getByRole('button', { name: 'Back to now' }).click();
  await expect(board).toHaveAttribute('data-at-version', String(last));
  await expect(page).not.toHaveURL(/[?&]at=/);
  const verification = page.getByTestId('verification');
  await expect(verification).toHaveAttribute('data-verified', 'true');
  await expect(verification).toContainText('Verified');
}

/** Several players, each signed up through the page in a browser context of their own. */
export async function signUpPlayers(browser: Browser, bases: string[]): Promise<Player[]> {
  const players: Player[] = [];
  for (const base of bases) players.push(await signUp(browser, base));
  return players;
}

/** A finished game: a complete golden export imported as a sandbox of the player's. */
export async function importFinished(request: APIRequestContext, name: string, file: string) {
  const token = await accessToken(request, name);
  const response = await request.post('/api/v1/games/import', {
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
    data: readFileSync(`../tests/golden/${file}`),
  });
  expect(response.status()).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

/** Makes `name` an admin the operator's way (`kontor admin grant`, on the e2e server's data folder). */
export function grantAdmin(name: string): void {
  const dataDir = dirname(process.env.KONTOR_E2E_MAIL_DIR!);
  const bin = resolve(process.env.KONTOR_BIN ?? '../target/debug/kontor');
  execFileSync(bin, ['admin', 'grant', name], { env: { ...process.env, KONTOR_DATA_DIR: dataDir, RUST_LOG: 'warn' }, stdio: 'pipe' });
}

/** A game of `kind` created by the first player (`options` added), joined by the others through the API. */
export async function startedGame(request: APIRequestContext, names: string[], kind: string, options: Record<string, unknown> = {}): Promise<string> {
  const tokens = await Promise.all(names.map((n) => accessToken(request, n)));
  const created = await request.post('/api/v1/games', {
    headers: { authorization: `Bearer ${tokens[0]}` },
    data: { kind, seats: names.length, options },
  });
  expect(created.status()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  for (const token of tokens.slice(1)) {
    expect((await request.post(`/api/v1/games/${id}/join`, { headers: { authorization: `Bearer ${token}` }, data: {} })).ok()).toBe(true);
  }
  return id;
}

/** The text of a quoted-printable mail, soft line breaks joined and `=XX` decoded. */
function decoded(eml: string): string {
  const bytes = eml
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** Verifies the player's address by following the link in their sign-up mail, in the page. */
export async function verify(player: Player) {
  const dir = process.env.KONTOR_E2E_MAIL_DIR!;
  const pattern = /http:\/\/[^\s"]+\/verify-email\?token=[A-Za-z0-9_-]+/;
  let link = '';
  await expect
    .poll(
      () => {
        // The folder comes with the run's first mail, which may still be on its way.
        if (!existsSync(dir)) return '';
        const mails = readdirSync(dir, { withFileTypes: true })
          .filter((f) => f.isFile() && f.name.endsWith('-verify_email.eml'))
          .map((f) => decoded(readFileSync(join(dir, f.name), 'latin1')))
          .filter((mail) => mail.includes(`To: ${player.name} <`));
        link = mails.map((mail) => pattern.exec(mail)?.[0] ?? '').filter(Boolean).pop() ?? '';
        return link;
      },
      { timeout: 30_000, message: `the verification mail to ${player.name}` },
    )
    .not.toBe('');
  await player.page.goto(link);
  await expect(player.page.getByTestId('verified')).toBeVisible();
}
