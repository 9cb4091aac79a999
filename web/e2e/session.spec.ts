import { expect } from '@playwright/test';
import { accessToken, passwordOf, readableState, signUp, signUpPlayers, test } from './support';

// Short tests: a stuck one fails in two minutes, not in the whole-game timeout.
test.describe.configure({ timeout: 120_000 });

test('a player signs up, stays signed in across a reload, and signs out', async ({ browser }) => {
  const anna = await signUp(browser, 'anna');
  await anna.page.reload();
  await expect(anna.page.getByTestId('signed-in-as')).toHaveText(anna.name);
  // The refresh token is an HttpOnly cookie: no script of the page can read a token.
  const cookies = await anna.context.cookies();
  const session = cookies.find((c) => c.name === 'kontor_session');
  expect(session?.httpOnly).toBe(true);
  expect(session?.sameSite).toBe('Strict');
  const state = await readableState(anna.page);
  expect(state).not.toContain('kontor_rt_');
  expect(state).not.toMatch(/eyJ[\w-]+\.eyJ/);
  await anna.page.getByRole('button', { name: 'Sign out' }).click();
  await expect(anna.page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await anna.page.reload();
  await expect(anna.page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await anna.context.close();
});

test('several tabs opened at once all stay signed in', async ({ browser }) => {
  const anna = await signUp(browser, 'anna');
  // Each tab refreshes its session on load, with the one cookie of the browser: spent twice,
  // it would look like a stolen token's reuse and end the login.
  const tabs = [anna.page, await anna.context.newPage(), await anna.context.newPage()];
  await Promise.all(tabs.map((tab) => tab.goto('/settings')));
  for (const tab of tabs) await expect(tab.getByTestId('signed-in-as')).toHaveText(anna.name);
  await Promise.all(tabs.map((tab) => tab.reload()));
  for (const tab of tabs) await expect(tab.getByTestId('signed-in-as')).toHaveText(anna.name);
  await anna.context.close();
});

test('three players sign up in three browsers; a wrong password is refused in words; signing in again works', async ({ browser }) => {
  const players = await signUpPlayers(browser, ['anna', 'bert', 'cara']);
  expect(new Set(players.map((p) => p.name)).size).toBe(3);
  for (const p of players) await expect(p.page.getByTestId('signed-in-as')).toHaveText(p.name);

  const [anna] = players;
  await anna!.page.getByRole('button', { name: 'Sign out' }).click();
  await anna!.page.getByLabel('Username or email address').fill(anna!.name);
  await anna!.page.getByLabel('Password').fill('not the password at all');
  await anna!.page.getByRole('button', { name: 'Sign in' }).click();
  await expect(anna!.page.getByRole('alert')).not.toBeEmpty();
  // The same refusal in Japanese comes from its code.
  await anna!.page.getByLabel('Language').selectOption('ja');
  await anna!.page.getByRole('button', { name: 'ログイン' }).click();
  await expect(anna!.page.getByRole('alert')).toHaveText('ユーザー名またはパスワードが違います。');
  await anna!.page.getByLabel('言語').selectOption('en');
  await anna!.page.getByLabel('Password').fill(passwordOf(anna!.name));
  await anna!.page.getByRole('button', { name: 'Sign in' }).click();
  await expect(anna!.page.getByTestId('signed-in-as')).toHaveText(anna!.name);
  await anna!.page.reload();
  await expect(anna!.page.getByTestId('signed-in-as')).toHaveText(anna!.name);
  for (const p of players) await p.context.close();
});

test('a language chosen while the page still reads the account is kept, and becomes the account\'s', async ({ browser, request }) => {
  const anna = await signUp(browser, 'anna');
  const { page } = anna;
  // The account's answer is held back until the switch is made, so the switch always comes
  // first (the race a quick switch after a load used to lose in 3 of 8 tries).
  let release = () => {};
  const held = new Promise<void>((r) => (release = r));
  await page.route('**/api/v1/me', async (route) => {
    await held;
    await route.continue();
  });
  await page.reload();
  await page.getByLabel('Language').selectOption('ja');
  await expect(page.locator('html')).toHaveAttribute('lang', 'ja');
  release();
  await expect(page.getByTestId('signed-in-as')).toHaveText(anna.name);
  await expect(page.getByRole('button', { name: 'ログアウト' })).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'ja');
  await page.unroute('**/api/v1/me');
  // The account took the choice: its mails, and the page on a reload.
  const token = await accessToken(request, anna.name);
  const me = await request.get('/api/v1/me', { headers: { authorization: `Bearer ${token}` } });
  expect(((await me.json()) as { language: string }).language).toBe('ja');
  await page.reload();
  await expect(page.getByRole('button', { name: 'ログアウト' })).toBeVisible();
  await anna.context.close();
});

test('a username typed past its 32 characters is said to be too long, not cut silently (English and Japanese)', async ({ page }) => {
  await page.goto('/signup');
  const field = page.getByLabel(/^Username$/);
  const full = page.getByTestId('username-full');
  await field.pressSequentially('a'.repeat(20));
  await expect(page.getByTestId('username-count')).toHaveText('20 of 32 characters');
  await expect(full).toBeEmpty();
  await field.pressSequentially('b'.repeat(13));
  await expect(field).toHaveValue(`${'a'.repeat(20)}${'b'.repeat(12)}`);
  await expect(page.getByTestId('username-count')).toHaveText('32 of 32 characters');
  await expect(full).toHaveRole('status');
  await expect(full).toHaveText('A username has at most 32 characters: what you typed beyond them was not added.');
  await field.press('Backspace');
  await expect(full).toBeEmpty();
  await page.getByLabel('Language').selectOption('ja');
  await page.getByLabel(/^ユーザー名$/).pressSequentially('cc');
  await expect(page.getByTestId('username-count')).toHaveText('32文字中32文字');
  await expect(full).toHaveText('ユーザー名は32文字までです。それを超えて入力した文字は追加されていません。');
});

test('the page has a strict content security policy', async ({ request }) => {
  const response = await request.get('/');
  expect(response.status()).toBe(200);
  const csp = response.headers()['content-security-policy'] ?? '';
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toContain('unsafe-inline');
});
