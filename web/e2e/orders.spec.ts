// Standing orders and forced moves on the game page (issue 37), with real browsers against
// the real server: a player sets an order from the page with the keyboard; when it plays,
// their log says "played by your order" and their orders pane says what it did, while the
// other players' pages show the move as a click; a forced pass reads as "the only move" with
// its reason on every page; an order is cancelled and a proxy bid's limit changed; on a
// phone the orders are a tab beside the board, in Japanese too.
import { expect, type APIRequestContext, type Page } from '@playwright/test';
import { accessToken, signUpPlayers, startedGame, type Player, test } from './support';

test.use({ actionTimeout: 20_000 });

const pane = (page: Page) => page.getByTestId('orders');

interface Seat {
  seat: number;
  player: Player;
  token: string;
}

/** The table of a started Steel Driver game, in the order the pawn goes round from its holder. */
async function byTurn(request: APIRequestContext, id: string, players: Player[]): Promise<Seat[]> {
  const seats: Seat[] = [];
  for (const player of players) {
    const token = await accessToken(request, player.name);
    const detail = (await (await request.get(`/api/v1/games/${id}`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
      your_seat: number;
      pending: number[];
    };
    seats.push({ seat: detail.your_seat, player, token });
    if (seats.length === players.length) {
      const holder = detail.pending[0]!;
      seats.sort((a, b) => ((a.seat - holder + 3) % 3) - ((b.seat - holder + 3) % 3));
    }
  }
  return seats;
}

/** Plays `action` for a seat through the API at the game's current version. */
async function act(request: APIRequestContext, id: string, seat: Seat, action: Record<string, unknown>) {
  const detail = (await (await request.get(`/api/v1/games/${id}`, { headers: { authorization: `Bearer ${seat.token}` } })).json()) as {
    version: number;
    legal: { max_bid?: number };
  };
  const answer = await request.post(`/api/v1/games/${id}/actions`, {
    headers: { authorization: `Bearer ${seat.token}`, 'Idempotency-Key': `${Date.now()}-${Math.random()}` },
    data: { version: detail.version, action },
  });
  expect(answer.ok(), await answer.text()).toBe(true);
  return detail;
}

test('an order set with the keyboard plays as a click for the others and is told to its player alone', async ({ browser, request }) => {
  test.setTimeout(180_000);
  const players = await signUpPlayers(browser, ['ada', 'ben', 'cy']);
  const id = await startedGame(request, players.map((p) => p.name), 'steel-driver');
  const [holder, owner, third] = await byTurn(request, id, players);
  for (const p of players) await p.page.goto(`/games/${id}`);
  const page = owner!.player.page;
  await expect(page.getByTestId('sd-map')).toBeVisible();
  await expect(pane(page)).toBeVisible();
  await expect(page.getByTestId('orders-none')).toBeVisible();
  // The seat not to act may answer the round's auctions ahead.
  await expect(page.getByTestId('orders-occasion')).toContainText("Round 1's auctions");

  // A proxy bid, its limit changed, then cancelled: all with the keyboard.
  await page.getByTestId('sd-order-limit').fill('3');
  await page.getByRole('button', { name: 'Proxy bid', exact: true }).focus();
  await page.keyboard.press('Enter');
  const item = page.getByTestId('order-item');
  await expect(item).toHaveCount(1);
  await expect(item).toHaveAttribute('data-order-type', 'proxy_bid');
  await expect(item).toContainText('up to 3 cubes');
  await item.getByLabel('Limit (cubes)').fill('4');
  await item.getByRole('button', { name: /^Change the limit of/ }).focus();
  await page.keyboard.press('Enter');
  await expect(item).toContainText('up to 4 cubes');
  await item.getByRole('button', { name: /^Cancel the order/ }).focus();
  await page.keyboard.press('Enter');
  await expect(page.getByTestId('orders-none')).toBeVisible();

  // Pass the pawn this round.
  await page.getByRole('button', { name: 'Pass the pawn this round' }).focus();
  await page.keyboard.press('Enter');
  await expect(item).toHaveAttribute('data-order-type', 'pass_pawn');
  await expect(item).toHaveText(/Pass the pawn in round 1/);
  // Nobody else's page shows it.
  for (const other of [holder!, third!]) {
    await expect(other.player.page.getByTestId('orders-none')).toBeVisible();
  }

  // The holder passes; the order passes the pawn on at once.
  await act(request, id, holder!, { type: 'pass_pawn' });
  const mine = page.getByTestId('log').locator('[data-auto="order"]');
  await expect(mine).toHaveCount(1);
  await expect(mine).toHaveText('played by your order');
  await expect(page.getByTestId('orders-news')).toContainText('Played by your order: pass the pawn.');
  for (const other of [holder!, third!]) {
    const log = other.player.page.getByTestId('log');
    await expect(log).toContainText('passes the pawn to');
    await expect(log.locator('[data-auto="order"]')).toHaveCount(0);
  }

  // The third seat opens an auction with every cube it holds: nobody can outbid it, and
  // both others pass at once, for all to see.
  const legal = (await (await request.get(`/api/v1/games/${id}`, { headers: { authorization: `Bearer ${third!.token}` } })).json()) as {
    legal: { companies: string[]; max_bid: number };
  };
  await act(request, id, third!, { type: 'open_auction', company: legal.legal.companies[0], bid: legal.legal.max_bid });
  for (const p of players) {
    const forced = p.page.getByTestId('log').locator('[data-auto="forced"]');
    await expect(forced).toHaveCount(2);
  }
  // Its own forced pass, to the seat; another's, to the others.
  const ownForced = page.getByTestId('log').locator('[data-auto="forced"]', { hasText: 'you had to: you cannot outbid' });
  await expect(ownForced).toHaveCount(1);
  await expect(third!.player.page.getByTestId('log').locator('[data-auto="forced"]').first()).toContainText('the only move: cannot outbid');
  await expect(page.getByTestId('orders-news')).toContainText('You had to pass in the auction: you cannot outbid');
  for (const p of players) await p.context.close();
});

test('on a phone the orders are a tab beside the board, in Japanese too', async ({ browser, request }) => {
  test.setTimeout(120_000);
  const players = await signUpPlayers(browser, ['ada', 'ben', 'cy']);
  const id = await startedGame(request, players.map((p) => p.name), 'flying-dutchman');
  const page = players[0]!.page;
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/games/${id}`);
  await expect(page.getByTestId('fd-board')).toBeVisible();
  await expect(pane(page)).toBeHidden();
  await page.getByTestId('phone-orders').click();
  await expect(pane(page)).toBeVisible();
  await expect(page.getByTestId('fd-board')).toBeHidden();
  await page.getByLabel('Language').selectOption({ label: '日本語' });
  await expect(page.getByTestId('phone-orders')).toHaveText('指示');
  await expect(page.getByRole('heading', { name: '事前指示' })).toBeVisible();
  await page.getByRole('button', { name: '最も価値の高いカードを見せる' }).click();
  const item = page.getByTestId('order-item');
  await expect(item).toHaveAttribute('data-order-type', 'income');
  await expect(item).toContainText('島での収入：最も価値の高いカード');
  // It does not scroll sideways on a phone.
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
  await item.getByRole('button', { name: /^指示を取り消す/ }).click();
  await expect(page.getByTestId('orders-none')).toHaveText('事前指示はありません。');
  for (const p of players) await p.context.close();
});
