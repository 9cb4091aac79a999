// The table as players see it (issue 38): the game page laid out for play (board, turn line,
// controls and chat in sight together on a laptop's screen; history folded away until asked
// for), rated games marked before joining and during play, the leaderboard's and profiles'
// pages open to a visitor signed out without a failed request, and the main navigation
// named in the page's language. With KONTOR_SCREENSHOTS=1 it also writes the game page's
// screenshots at 1366×768, 1920×1080 and 360 px in both languages into docs/screenshots/.
import { expect, type Page } from '@playwright/test';
import { accessToken, signUp, signUpPlayers, startedGame, verify, test } from './support';

test.describe.configure({ timeout: 180_000 });

async function shoot(page: Page, name: string) {
  if (process.env.KONTOR_SCREENSHOTS === '1') await page.screenshot({ path: `../docs/screenshots/table-${name}.png` });
}

test('the game page at 1366×768 and 1920×1080: board, turn line, controls and chat together; history folded', async ({ browser, request }) => {
  const [anna, bert, cleo] = await signUpPlayers(browser, ['anna', 'bert', 'cleo']);
  const id = await startedGame(request, [anna!.name, bert!.name, cleo!.name], 'flying-dutchman');
  const token = await accessToken(request, bert!.name);
  for (let i = 0; i < 8; i++) {
    const send = () =>
      request.post(`/api/v1/games/${id}/chat/table/messages`, {
        headers: { authorization: `Bearer ${token}`, 'idempotency-key': `table-spec-${id}-${i}` },
        data: { text: `Shall we sail north, round ${i}?` },
      });
    let sent = await send();
    // The chat's own pace: wait as long as it says, then again (the same key).
    while (sent.status() === 429) {
      const wait = 1000 * Number(((await sent.json()) as { retry_after?: number }).retry_after ?? 1);
      await new Promise((r) => setTimeout(r, wait));
      sent = await send();
    }
    expect(sent.ok(), await sent.text()).toBe(true);
  }
  const page = anna!.page;
  for (const lang of ['en', 'ja'] as const) {
    for (const size of [
      { width: 1366, height: 768 },
      { width: 1920, height: 1080 },
    ]) {
      await page.setViewportSize(size);
      await page.goto(`/games/${id}`);
      if (lang === 'ja') await page.getByLabel(/Language|言語/).selectOption('ja');
      await expect(page.getByTestId('board-frame')).toBeVisible();
      await expect(page.getByTestId('chat-message')).toHaveCount(8);
      // At the top of the screen, without scrolling: the turn line, the board, the chat's
      // newest message and its input.
      await expect(page.getByTestId('turn')).toBeInViewport();
      await expect(page.getByTestId('board-frame')).toBeInViewport();
      await expect(page.getByTestId('chat-input')).toBeInViewport();
      await expect(page.getByTestId('chat-message').last()).toBeInViewport();
      // The chat stands beside the board, not under it.
      const board = (await page.getByTestId('board-frame').boundingBox())!;
      const chat = (await page.getByTestId('chat').boundingBox())!;
      expect(chat.x).toBeGreaterThanOrEqual(board.x + board.width - 1);
      // History and replay are folded during play until asked for.
      const history = page.getByTestId('history');
      await expect(history).not.toHaveAttribute('open');
      await expect(page.getByTestId('replay')).toBeHidden();
      await shoot(page, `game-${size.width}-${lang}`);
      await history.locator('summary').click();
      await expect(page.getByTestId('replay')).toBeVisible();
    }
    // A phone keeps its tabs: board first, the chat one tap away.
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(`/games/${id}`);
    await expect(page.getByTestId('board-frame')).toBeVisible();
    await expect(page.getByTestId('phone-chat')).toBeVisible();
    await expect(page.getByTestId('chat-input')).toBeHidden();
    await shoot(page, `game-360-${lang}`);
    await page.getByTestId('phone-chat').click();
    await expect(page.getByTestId('chat-input')).toBeVisible();
    await shoot(page, `game-360-chat-${lang}`);
    await page.setViewportSize({ width: 1366, height: 768 });
    // Back to English for the next page (the choice is kept).
    if (lang === 'ja') await page.getByLabel(/Language|言語/).selectOption('en');
  }
});

test('a rated game is marked in the lobby, before joining and during play', async ({ browser, request }) => {
  const [host, third, guest] = await signUpPlayers(browser, ['host', 'third', 'guest']);
  // Rated play needs a verified address.
  for (const p of [host!, third!, guest!]) await verify(p);
  const token = await accessToken(request, host!.name);
  const created = await request.post('/api/v1/games', {
    headers: { authorization: `Bearer ${token}` },
    data: { kind: 'steel-driver', seats: 3, options: { rated: true } },
  });
  expect(created.status(), await created.text()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const joined = await request.post(`/api/v1/games/${id}/join`, { headers: { authorization: `Bearer ${await accessToken(request, third!.name)}` }, data: {} });
  expect(joined.ok()).toBe(true);
  const page = guest!.page;
  await page.goto('/');
  const row = page.getByTestId('list-open').locator(`[data-game-id="${id}"]`);
  await expect(row.getByTestId('rated')).toHaveText('Rated');
  await row.getByRole('link').first().click();
  await expect(page.getByTestId('rated')).toBeVisible();
  await expect(page.getByTestId('rated-hint')).toContainText('A rated game');
  await page.getByRole('button', { name: /^Join/ }).first().click();
  await expect(page.getByTestId('turn')).toBeVisible();
  await expect(page.getByTestId('rated')).toBeVisible();
});

test('a visitor signed out reads leaderboards and profiles, and the first load fails no request', async ({ browser }) => {
  const anna = await signUp(browser, 'anna');
  const context = await browser.newContext();
  const page = await context.newPage();
  const failed: string[] = [];
  page.on('response', (r) => {
    if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`);
  });
  await page.goto('/leaderboards');
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Leaderboard');
  // The game switcher's links stand apart, not glued into one word.
  const links = page.getByRole('navigation', { name: 'Game', exact: true }).getByRole('link');
  await expect(links).toHaveCount(2);
  const [first, second] = [(await links.nth(0).boundingBox())!, (await links.nth(1).boundingBox())!];
  expect(second.x - (first.x + first.width)).toBeGreaterThanOrEqual(8);
  await page.goto(`/players/${anna.name}`);
  await expect(page.getByTestId('profile-name')).toHaveText(anna.name);
  expect(failed).toEqual([]);
  await context.close();
});

test('the main navigation is named in the page\'s language', async ({ browser }) => {
  const anna = await signUp(browser, 'anna');
  await anna.page.getByLabel('Language').selectOption('ja');
  await expect(anna.page.getByRole('navigation', { name: 'メイン', exact: true })).toBeVisible();
  await expect(anna.page.locator('nav[aria-label="main"]')).toHaveCount(0);
});

test('long pages: settings jump between sections; a phone\'s top bar is one row with a Menu', async ({ browser }) => {
  const anna = await signUp(browser, 'anna');
  const page = anna.page;
  await page.setViewportSize({ width: 1366, height: 768 });
  await page.goto('/settings');
  const contents = page.getByTestId('settings-toc');
  await expect(contents).toBeVisible();
  await contents.locator('a[href="#webhooks-title"]').click();
  await expect(page.locator('#webhooks-title')).toBeFocused();
  await expect(page.locator('#webhooks-title')).toBeInViewport();
  await contents.locator('a[href="#profile-title"]').click();
  await expect(page.locator('#profile-title')).toBeInViewport();

  // A phone: the top bar is one short row; its links wait behind Menu.
  await page.setViewportSize({ width: 360, height: 740 });
  await page.goto('/');
  const bar = (await page.locator('header.top').boundingBox())!;
  expect(bar.height).toBeLessThan(80);
  const nav = page.getByRole('navigation', { name: 'Main', exact: true });
  await expect(nav).toBeHidden();
  await page.getByTestId('menu').click();
  await expect(page.getByTestId('menu')).toHaveAttribute('aria-expanded', 'true');
  await nav.getByRole('link', { name: 'Settings' }).click();
  await expect(page).toHaveURL(/\/settings$/);
  await expect(nav).toBeHidden();
  await anna.context.close();
});
