// A whole game of Steel Driver played by three people in three browsers, only by clicking
// the controls the page offers (the policy of steel-driver-play.ts), to the final scoring.
import { expect } from '@playwright/test';
import { mkdirSync } from 'node:fs';
import { checkFinishedGame, signUp, type Player, test } from './support';
import { MAX_ACTIONS, move, whoseMove, type Policy } from './steel-driver-play';

test('three players play a whole game of Steel Driver in their browsers', async ({ browser }) => {
  const players = [await signUp(browser, 'ada'), await signUp(browser, 'ben'), await signUp(browser, 'cy')];
  const [host, ...guests] = players as [Player, Player, Player];

  // The host creates a game for up to four through the new-game screen (the options
  // editor says what the seat count means), and starts it once the other two have joined.
  await host.page.getByRole('navigation', { name: 'main' }).getByRole('link', { name: 'New game' }).click();
  await host.page.getByLabel('Game').selectOption({ label: 'Steel Driver' });
  await host.page.getByLabel('Seats').fill('4');
  await expect(host.page.getByText('With 4 players, each receives 8 investment cubes per round')).toBeVisible();
  await expect(host.page.getByLabel('Map')).toHaveValue('usa');
  await host.page.getByRole('button', { name: 'Create the game' }).click();
  await expect(host.page).toHaveURL(/\/games\/[0-9a-f-]{36}$/);
  const id = host.page.url().split('/games/')[1]!;

  // The others find it among the open games in the lobby and join.
  for (const guest of guests) {
    await guest.page.goto('/');
    await guest.page.getByTestId('list-open').locator(`[data-game-id="${id}"]`).getByRole('link', { name: 'Steel Driver' }).click();
    await guest.page.getByRole('button', { name: 'Join' }).click();
    await expect(guest.page.getByRole('button', { name: 'Leave' })).toBeVisible();
  }
  await expect(host.page.getByText('3 of 4 seats taken')).toBeVisible();
  await host.page.getByRole('button', { name: 'Start now' }).click();
  for (const p of players) {
    await expect(p.page.getByTestId('sd-map')).toBeVisible();
    await expect(p.page.getByTestId('sd-status')).toContainText('Round 1 of 5 · Auctions');
  }

  const policy: Policy = { raised: false, builds: 0, midGameShot: false };
  let checkedLive = false;
  let actions = 0;
  for (;;) {
    const who = await whoseMove(players);
    if (who === 'end') break;
    expect(++actions, 'the game ends within a bounded number of actions').toBeLessThan(MAX_ACTIONS);
    const { page } = players[who]!;
    const board = page.getByTestId('sd-board');
    const before = await board.getAttribute('data-version');

    if (!policy.midGameShot && (await page.getByTestId('sd-status').innerText()).startsWith('Round 3 of 5 · Building')) {
      policy.midGameShot = true;
      // On a 360-pixel phone the page does not scroll sideways (the map scrolls in its box)
      // and the controls come before the map.
      await page.setViewportSize({ width: 360, height: 800 });
      await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      const controlsBox = await page.getByTestId('sd-controls').boundingBox();
      const mapBox = await page.getByTestId('sd-map').boundingBox();
      expect(controlsBox!.y + controlsBox!.height).toBeLessThanOrEqual(mapBox!.y);
      await page.setViewportSize({ width: 1280, height: 720 });
      if (process.env.KONTOR_SCREENSHOTS === '1') {
        await page.setViewportSize({ width: 1280, height: 900 });
        mkdirSync('../docs/screenshots', { recursive: true });
        // The board from its top: the round and phase, the controls beside the map.
        await board.evaluate((el) => el.scrollIntoView({ block: 'start' }));
        await page.screenshot({ path: '../docs/screenshots/steel-driver.png' });
      }
    }

    const step = await move(page, policy);
    // The move is taken: this page moves on to a new version.
    await expect(board).not.toHaveAttribute('data-version', before!);
    // …and no refusal is shown (the game page's message).
    await expect(page.getByTestId('game-message')).toHaveCount(0);

    if (!checkedLive && step === 'open_auction') {
      // One player's move shows on the others' pages without a reload.
      checkedLive = true;
      const version = await board.getAttribute('data-version');
      for (const other of players.filter((_, i) => i !== who)) {
        await expect(other.page.getByTestId('sd-board')).toHaveAttribute('data-version', version!);
        await expect(other.page.getByTestId('sd-status')).toContainText('Auction for');
      }
    }
  }
  expect(checkedLive).toBe(true);
  expect(policy.builds).toBeGreaterThan(0);

  // Everyone sees the final scoring, broken down by company and by player.
  for (const p of players) {
    const outcome = p.page.getByTestId('sd-outcome');
    await expect(outcome).toBeVisible();
    await expect(outcome.getByText(/^Winner: /)).toBeVisible();
    await expect(outcome.getByRole('table')).toHaveCount(2);
    for (const [seat, q] of players.entries()) {
      await expect(outcome.getByTestId(`sd-final-${seat}`)).toContainText(q.name);
    }
  }
  // The log tells the game in words; in Japanese too, with the final scoring.
  await expect(host.page.getByText(/opens an auction for Red with \d+ cubes\.$/).first()).toBeVisible();
  await expect(host.page.getByText(/^Final dividends \(profit × shares\): /)).toBeVisible();
  const guest = guests[0]!.page;
  await guest.getByLabel('Language').selectOption('ja');
  await expect(guest.getByTestId('sd-outcome')).toContainText('最終得点');
  await expect(guest.getByTestId('sd-outcome')).toContainText('勝者：');
  await expect(guest.getByText(/^最終配当（利益×株数）：/)).toBeVisible();

  // The replay slider and the verification of the finished game (the generic game page).
  await checkFinishedGame(host.page);
  for (const p of players) await p.context.close();
});
