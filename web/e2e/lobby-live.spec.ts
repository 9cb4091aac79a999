// The live lobby: what others do arrives in an open lobby without a reload (a new public
// game, a seat taken, the start), clicking Lobby refreshes it, and a players-only table
// keeps others from watching.
import { expect, type APIRequestContext, type Page } from '@playwright/test';
import { accessToken, signUp, test } from './support';

test.describe.configure({ timeout: 120_000 });

const GAME = 'Steel Driver';

/** Creates a three-seat game through the new-game screen; returns its id. */
async function createGame(page: Page, opts: { playersOnly?: boolean } = {}): Promise<string> {
  await page.getByRole('navigation', { name: 'main' }).getByRole('link', { name: 'New game' }).click();
  await page.getByLabel('Game').selectOption({ label: GAME });
  await page.getByLabel('Seats').fill('3');
  if (opts.playersOnly) await page.getByLabel('Only the players at the table').check();
  await page.getByRole('button', { name: 'Create the game' }).click();
  await expect(page).toHaveURL(/\/games\/[0-9a-f-]{36}$/);
  return page.url().split('/games/')[1]!;
}

/** Seats `name` in the game through the API (what this test does not exercise). */
async function join(request: APIRequestContext, name: string, id: string) {
  const token = await accessToken(request, name);
  const joined = await request.post(`/api/v1/games/${id}/join`, { headers: { authorization: `Bearer ${token}` } });
  expect(joined.ok()).toBe(true);
}

test('a lobby shows a new public game, its seats and its start without a reload', async ({ browser }) => {
  const [anna, bert, cara, dave] = [
    await signUp(browser, 'anna'),
    await signUp(browser, 'bert'),
    await signUp(browser, 'cara'),
    await signUp(browser, 'dave'),
  ];
  // Anna's lobby is open (other specs' games may be listed in it on this shared server).
  await anna.page.goto('/');
  const open = anna.page.getByTestId('list-open');
  await expect(open).toHaveAttribute('data-loaded', 'true');
  // Bert creates a public game in his browser: it appears in Anna's lobby.
  const id = await createGame(bert.page);
  const row = open.locator(`[data-game-id="${id}"]`);
  await expect(row).toContainText(bert.name);
  await expect(row).toContainText('1/3 seats');
  // Cara takes a seat: Anna's row says so.
  await join(anna.page.request, cara.name, id);
  await expect(row).toContainText('2/3 seats');
  await expect(row).toContainText(cara.name);
  // Bert waits in his lobby; Dave takes the last seat and the game starts: it leaves Anna's
  // open games and shows among Bert's running games.
  await bert.page.getByRole('link', { name: 'Lobby' }).click();
  const waiting = bert.page.getByTestId('list-waiting').locator(`[data-game-id="${id}"]`);
  await expect(waiting).toBeVisible();
  await join(anna.page.request, dave.name, id);
  await expect(row).toHaveCount(0);
  await expect(bert.page.getByTestId('list-running').locator(`[data-game-id="${id}"]`)).toContainText(/to move|your move/);
  await expect(waiting).toHaveCount(0);
  // Clicking Lobby while on it reads the lists again.
  const reload = anna.page.waitForRequest((r) => r.url().includes('/api/v1/games?') && r.url().includes('view=open'));
  await anna.page.getByRole('link', { name: 'Lobby' }).click();
  await reload;
  for (const p of [anna, bert, cara, dave]) await p.context.close();
});

test('a players-only table is offered in both languages, marked in the lobby, and others cannot watch it', async ({ browser }) => {
  const [anna, bert, cara, dave] = [
    await signUp(browser, 'anna'),
    await signUp(browser, 'bert'),
    await signUp(browser, 'cara'),
    await signUp(browser, 'dave'),
  ];
  // The setting in Japanese, then back in English.
  await bert.page.goto('/new');
  // Once the page has read the account (a switch before that may be undone: issue 21).
  await bert.page.waitForLoadState('networkidle');
  await bert.page.getByLabel('Language').selectOption('ja');
  await expect(bert.page.locator('html')).toHaveAttribute('lang', 'ja');
  await expect(bert.page.getByRole('group', { name: '観戦できる人' })).toBeVisible();
  await expect(bert.page.getByLabel('参加しているプレイヤーのみ')).toBeVisible();
  await bert.page.getByLabel('言語').selectOption('en');
  await expect(bert.page.locator('html')).toHaveAttribute('lang', 'en');
  await expect(bert.page.getByRole('group', { name: 'Who may watch' })).toBeVisible();
  const id = await createGame(bert.page, { playersOnly: true });
  // Anna's lobby lists it (she may join it) and says only players watch.
  await anna.page.goto('/');
  const row = anna.page.getByTestId('list-open').locator(`[data-game-id="${id}"]`);
  await expect(row).toContainText('only players watch');
  await join(anna.page.request, cara.name, id);
  await join(anna.page.request, dave.name, id);
  await expect(row).toHaveCount(0);
  // Started, it is its players' alone: Anna's page finds no such game, Cara's shows it.
  await anna.page.goto(`/games/${id}`);
  await expect(anna.page.getByTestId('game-missing')).toBeVisible();
  await cara.page.goto(`/games/${id}`);
  await expect(cara.page.getByTestId('turn')).toHaveText(/Your turn\.|Waiting for /);
  for (const p of [anna, bert, cara, dave]) await p.context.close();
});
