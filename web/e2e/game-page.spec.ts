// The generic game page: a finished game's replay and verification, a move appearing on
// the other pages live (log and turn), the page in Japanese, and at 360 pixels wide.
import { readFileSync } from 'node:fs';
import { expect, test, type Page } from '@playwright/test';
import { accessToken, checkFinishedGame, signUp } from './support';

/** A finished game: a complete golden export imported as a sandbox of the player's. */
async function importFinished(request: import('@playwright/test').APIRequestContext, name: string, file: string) {
  const token = await accessToken(request, name);
  const response = await request.post('/api/v1/games/import', {
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/x-ndjson' },
    data: readFileSync(`../tests/golden/${file}`),
  });
  expect(response.status()).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

async function noSidewaysScroll(page: Page) {
  const widths = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  expect(widths[0]).toBeLessThanOrEqual(widths[1]!);
}

test('a finished game: result, seed, replay slider and verification', async ({ browser, request }) => {
  const anna = await signUp(browser, 'anna');
  const id = await importFinished(request, anna.name, 'steel-driver-3p.ndjson');
  await anna.page.goto(`/games/${id}`);
  await expect(anna.page.getByTestId('turn')).toHaveText('The game is over.');
  await expect(anna.page.getByRole('heading', { name: 'Result' })).toBeVisible();
  await expect(anna.page.getByTestId('seed')).toHaveText(/^[0-9a-f]{64}$/);
  await expect(anna.page.getByTestId('log')).toContainText('The game is over; the seed is revealed.');
  await checkFinishedGame(anna.page);

  // The log downloads as ndjson.
  const download = anna.page.waitForEvent('download');
  await anna.page.getByRole('button', { name: 'Download the log (ndjson)' }).click();
  expect((await download).suggestedFilename()).toBe(`kontor-${id}.ndjson`);

  // In Japanese, and on a phone.
  await anna.page.getByLabel('Language').selectOption('ja');
  await expect(anna.page.getByTestId('turn')).toHaveText('ゲームは終了しました。');
  await expect(anna.page.getByTestId('verification')).toContainText('検証済み');
  await expect(anna.page.locator('html')).toHaveAttribute('lang', 'ja');
  await anna.page.setViewportSize({ width: 360, height: 740 });
  await noSidewaysScroll(anna.page);
  await anna.page.screenshot({ path: 'test-results/finished-game-360.png' });
  await anna.context.close();
});

test('a move shows on the other players\' pages without a reload', async ({ browser, request }) => {
  const players = [await signUp(browser, 'anna'), await signUp(browser, 'bert'), await signUp(browser, 'cara')];
  const [anna, bert, cara] = players as [(typeof players)[0], (typeof players)[0], (typeof players)[0]];
  const annaToken = await accessToken(request, anna.name);
  const created = await request.post('/api/v1/games', {
    headers: { authorization: `Bearer ${annaToken}` },
    data: { kind: 'steel-driver', seats: 3 },
  });
  const { id } = (await created.json()) as { id: string };
  for (const p of [bert, cara]) {
    const token = await accessToken(request, p.name);
    expect((await request.post(`/api/v1/games/${id}/join`, { headers: { authorization: `Bearer ${token}` }, data: {} })).ok()).toBe(true);
  }
  for (const p of players) await p.page.goto(`/games/${id}`);
  for (const p of players) await expect(p.page.getByTestId('connection')).toContainText('Live');

  // Whoever is to move passes the pawn (a tool's move through the API: the board's own
  // controls are the game modules' and are tested with them).
  const detail = (await (await request.get(`/api/v1/games/${id}`, { headers: { authorization: `Bearer ${annaToken}` } })).json()) as {
    pending: number[];
    version: number;
    seats: { seat: number; username: string }[];
  };
  const moverName = detail.seats.find((s) => s.seat === detail.pending[0])!.username;
  const mover = players.find((p) => p.name === moverName)!;
  const watchers = players.filter((p) => p !== mover);
  const lines = await watchers[0]!.page.getByTestId('log').locator('li').count();
  await expect(mover.page.getByTestId('turn')).toHaveText('Your turn.');
  const token = await accessToken(request, mover.name);
  const moved = await request.post(`/api/v1/games/${id}/actions`, {
    headers: { authorization: `Bearer ${token}`, 'idempotency-key': `pass-${id}` },
    data: { action: { type: 'pass_pawn' }, version: detail.version },
  });
  expect(moved.ok()).toBe(true);
  await expect(mover.page.getByTestId('turn')).toHaveText(/^Waiting for /);
  for (const w of watchers) {
    await expect(w.page.getByTestId('turn')).not.toHaveText(`Waiting for ${mover.name}.`);
    await expect(w.page.getByTestId('log').locator('li')).toHaveCount(lines + 1);
    await expect(w.page.getByTestId('replay')).toHaveAttribute('max', String(detail.version + 1));
  }
  // The lobby on a phone: nothing sideways.
  await anna.page.setViewportSize({ width: 360, height: 740 });
  await anna.page.goto('/');
  await expect(anna.page.getByTestId('list-running')).toContainText('Steel Driver');
  await noSidewaysScroll(anna.page);
  for (const p of players) await p.context.close();
});
