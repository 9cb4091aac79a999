// Taking moves back in the page (issue 23), with real browsers against the real server, in
// Steel Driver (whose auctions are open: passing the pawn or bidding reveals nothing and
// draws nothing, so no barrier stands in the way): a misclick taken back at once without
// asking, by keyboard; a consented undo in a three-seat game, where the two players asked
// see the request live and accept (one in Japanese), and the game goes back for all; and a
// request declined, then one withdrawn, each ending live on every page with the game as it was.
import { AxeBuilder } from '@axe-core/playwright';
import { expect, type APIRequestContext, type Browser, type Page } from '@playwright/test';
import { accessToken, signUpPlayers, startedGame, type Player, test } from './support';

test.describe.configure({ timeout: 120_000 });

type Detail = {
  version: number;
  pending: number[];
  your_seat?: number | null;
  seats: { seat: number; username: string }[];
  view: unknown;
  legal: { step: string; companies?: string[]; min_bid?: number } | null;
  undo?: { policy: string; can_undo_to?: number | null; request?: { seq: number; needs: number[] } | null };
};

async function game(request: APIRequestContext, id: string, token: string): Promise<Detail> {
  const answer = await request.get(`/api/v1/games/${id}`, { headers: { authorization: `Bearer ${token}` } });
  expect(answer.ok()).toBe(true);
  return (await answer.json()) as Detail;
}

async function act(request: APIRequestContext, id: string, token: string, version: number, action: unknown) {
  const answer = await request.post(`/api/v1/games/${id}/actions`, {
    headers: { authorization: `Bearer ${token}`, 'idempotency-key': `undo-e2e-${Math.random()}` },
    data: { version, action },
  });
  expect(answer.status(), await answer.text()).toBe(200);
}

/** The players in seat order, each with a token; the pages open on the game, live. */
async function seated(request: APIRequestContext, players: Player[], id: string) {
  const tokens = new Map<string, string>();
  for (const p of players) tokens.set(p.name, await accessToken(request, p.name));
  const seats = (await game(request, id, tokens.get(players[0]!.name)!)).seats;
  const bySeat = seats.map((s) => {
    const player = players.find((p) => p.name === s.username)!;
    return { ...player, seat: s.seat, token: tokens.get(player.name)! };
  });
  for (const p of bySeat) {
    await p.page.goto(`/games/${id}`);
    await expect(p.page.getByTestId('connection')).toContainText('Live');
    await openHistory(p.page);
  }
  return bySeat;
}

/** Opens the History section (the log and the replay, folded during play). */
async function openHistory(page: Page) {
  const history = page.getByTestId('history');
  await expect(history).not.toHaveAttribute('open');
  await history.locator('summary').click();
  await expect(history).toHaveAttribute('open', '');
}

/** No serious or critical axe violation on the page as it is now. */
async function expectAccessible(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).slice(0, 4).join(' | ')}`);
  expect(bad).toEqual([]);
}

const logLine = (page: Page, seq: number) => page.getByTestId('log').locator(`li[value="${seq}"]`);

test('a misclick taken back at once, without asking anyone', async ({ browser, request }) => {
  const players = await signUpPlayers(browser, ['ada', 'ben', 'cy']);
  const id = await startedGame(
    request,
    players.map((p) => p.name),
    'steel-driver',
    { undo: 'own' },
  );
  const seats = await seated(request, players, id);
  const first = await game(request, id, seats[0]!.token);
  const holder = seats[first.pending[0]!]!;
  const next = seats[(holder.seat + 1) % seats.length]!;
  const before = await game(request, id, holder.token);
  expect(before.undo?.policy).toBe('own');
  expect(before.undo?.can_undo_to ?? null).toBeNull();

  // The misclick: the pawn holder passes the pawn instead of opening an auction.
  const controls = holder.page.getByTestId('sd-controls');
  await expect(controls).toHaveAttribute('data-step', 'open_auction');
  await controls.getByRole('button', { name: 'Pass the pawn' }).click();
  await expect(next.page.getByTestId('sd-controls')).toHaveAttribute('data-step', 'open_auction');
  const passed = (await game(request, id, holder.token)).version;
  await expect(logLine(holder.page, passed)).toBeVisible();

  // One click (here by keyboard), no question: the move is taken back for everyone.
  const undo = holder.page.getByRole('button', { name: 'Undo my move' });
  await expect(undo).toBeVisible();
  // The panel names the moves that would go back, in words (not a line of the log).
  await expect(holder.page.getByTestId('undo')).toContainText('Nobody else has moved since; it takes back:');
  await expect(holder.page.getByTestId('undo')).toContainText(`${holder.name} passes the pawn`);
  await expect(next.page.getByRole('button', { name: 'Undo my move' })).toHaveCount(0);
  // Disabled while the page still reads the game after the pass (a disabled button takes no
  // focus, and Enter would go nowhere).
  await expect(undo).toBeEnabled();
  await undo.focus();
  await expect(undo).toBeFocused();
  await holder.page.keyboard.press('Enter');
  await expect(controls).toHaveAttribute('data-step', 'open_auction');
  await expect(undo).toHaveCount(0);
  // The focus went back to the board's controls, ready for the move meant.
  await expect(controls).toBeFocused();
  await expect(next.page.getByTestId('sd-controls')).toHaveCount(0);

  // The board is as it was; the log keeps the move, struck through and labelled "undone",
  // on the page that took it back and live on the others'.
  const after = await game(request, id, holder.token);
  expect(after.view).toEqual(before.view);
  expect(after.pending).toEqual(before.pending);
  for (const p of seats) {
    const line = logLine(p.page, passed);
    await expect(line).toHaveAttribute('data-undone', 'true');
    await expect(line.locator('del')).toBeVisible();
    await expect(line).toContainText('undone');
    await expect(logLine(p.page, passed + 1)).toContainText(`${holder.name} took back their move`);
  }
  await expectAccessible(holder.page);
  await holder.page.getByTestId('log').screenshot({ path: 'test-results/undo-log.png' });
  // After a reload, from the server's log pages.
  await next.page.reload();
  await openHistory(next.page);
  await expect(logLine(next.page, passed)).toHaveAttribute('data-undone', 'true');
  for (const p of seats) await p.context.close();
});

/**
 * A three-seat Steel Driver table with undo by consent, each page open and live: the pawn's
 * holder opens an auction and `raises` of the next seats bid on it (tools' moves, through the
 * API). `before` is each seat's game before the auction, `start` its version.
 */
async function auctionAtConsentTable(browser: Browser, request: APIRequestContext, raises: 1 | 2) {
  const players = await signUpPlayers(browser, ['ada', 'ben', 'cy']);
  const id = await startedGame(
    request,
    players.map((p) => p.name),
    'steel-driver',
    { undo: 'consent' },
  );
  const seats = await seated(request, players, id);
  const holder = seats[(await game(request, id, seats[0]!.token)).pending[0]!]!;
  const [second, third] = [seats[(holder.seat + 1) % 3]!, seats[(holder.seat + 2) % 3]!];
  const before = await Promise.all(seats.map((p) => game(request, id, p.token)));
  const start = before[0]!.version;
  const legal = before[holder.seat]!.legal!;
  await act(request, id, holder.token, start, { type: 'open_auction', company: legal.companies![0], bid: 1 });
  for (const [i, bidder] of [second, third].slice(0, raises).entries()) {
    await act(request, id, bidder.token, (await game(request, id, bidder.token)).version, { type: 'bid', bid: 2 + i });
  }
  return { id, seats, holder, second, third, before, start };
}

test('a consented undo in a three-seat game: both asked accept live, and the game goes back for all', async ({ browser, request }) => {
  // The holder opens an auction; the two others raise it.
  const { id, seats, holder, second, third, before, start } = await auctionAtConsentTable(browser, request, 2);
  const bid = await game(request, id, holder.token);
  expect(bid.undo?.can_undo_to).toBe(start);

  // The holder asks: the page says who must agree, and Esc takes the question back.
  const page = holder.page;
  const ask = page.getByRole('button', { name: 'Ask to undo…' });
  await expect(ask).toBeVisible();
  const asked = [second, third].sort((a, b) => a.seat - b.seat);
  await expect(page.getByTestId('undo')).toContainText(`${asked[0]!.name} and ${asked[1]!.name} must agree`);
  await ask.click();
  const question = page.getByTestId('undo-ask');
  await expect(question.getByRole('button', { name: 'Send the request' })).toBeFocused();
  await page.keyboard.press('Escape');
  await expect(question).toHaveCount(0);
  await expect(ask).toBeFocused();
  await ask.click();
  await question.getByRole('button', { name: 'Send the request' }).click();
  const open = page.getByTestId('undo-request');
  // Said once, with the moves that would go back (the holder's auction and both bids).
  await expect(open).toContainText('You asked to take these moves back:');
  await expect(open).toContainText(`${holder.name} opens an auction`);
  await expect(open).not.toContainText('of the log');
  await expect(open.getByTestId('undo-answers').locator('li')).toHaveCount(2);
  await expect(page.getByRole('button', { name: 'Withdraw the request' })).toBeVisible();

  // Both asked see the prompt without reloading; the second accepts by keyboard.
  for (const p of [second, third]) {
    await expect(p.page.getByTestId('undo-prompt')).toBeVisible();
    await expect(p.page.getByTestId('undo-request')).toContainText(`${holder.name} asks to take these moves back:`);
    await expect(p.page.getByTestId('undo-request')).toContainText(`${holder.name} opens an auction`);
  }
  await expectAccessible(second.page);
  const accept = second.page.getByTestId('undo-prompt').getByRole('button', { name: 'Accept' });
  await expect(accept).toBeEnabled();
  await accept.focus();
  await expect(accept).toBeFocused();
  await second.page.keyboard.press('Enter');
  await expect(second.page.getByTestId('undo-prompt')).toHaveCount(0);
  await expect(second.page.getByTestId('undo-request')).toContainText('You agreed; waiting for the others.');
  for (const p of [holder, third]) {
    await expect(p.page.getByTestId('undo-answers').locator(`[data-seat="${second.seat}"]`)).toHaveAttribute('data-accepted', 'true');
  }
  // The third answers in Japanese, on a phone.
  await third.page.getByLabel('Language').selectOption('ja');
  await third.page.setViewportSize({ width: 360, height: 740 });
  await expect(third.page.getByRole('heading', { name: '手の取り消し' })).toBeVisible();
  const widths = await third.page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
  expect(widths[0]).toBeLessThanOrEqual(widths[1]!);
  await third.page.getByTestId('undo').screenshot({ path: 'test-results/undo-prompt-360-ja.png' });
  await holder.page.getByTestId('undo').screenshot({ path: 'test-results/undo-request.png' });
  await third.page.getByTestId('undo-prompt').getByRole('button', { name: '同意する' }).click();

  // The game is back where the holder opened the auction, for all three.
  await expect(page.getByTestId('sd-controls')).toHaveAttribute('data-step', 'open_auction');
  for (const [i, p] of seats.entries()) {
    await expect(p.page.getByTestId('undo-request')).toHaveCount(0);
    for (let seq = start + 1; seq <= bid.version; seq++) await expect(logLine(p.page, seq)).toHaveAttribute('data-undone', 'true');
    const now = await game(request, id, p.token);
    expect(now.view).toEqual(before[i]!.view);
    expect(now.pending).toEqual(before[i]!.pending);
  }
  await expect(third.page.getByTestId('log')).toContainText('全員が同意しました');
  await expect(logLine(holder.page, bid.version)).toContainText('undone');
  for (const p of seats) await p.context.close();
});

test('a declined request and a withdrawn one each end live on every page, and the game stays as it was', async ({ browser, request }) => {
  // The holder opens an auction and the next seat raises it; the third has not moved.
  const { id, seats, holder, second, third } = await auctionAtConsentTable(browser, request, 1);
  const bid = await Promise.all(seats.map((p) => game(request, id, p.token)));
  const page = holder.page;
  const askAndSend = async () => {
    await page.getByRole('button', { name: 'Ask to undo…' }).click();
    await page.getByTestId('undo-ask').getByRole('button', { name: 'Send the request' }).click();
    await expect(page.getByTestId('undo-request')).toContainText('You asked to take these moves back:');
    // Only the bidder's move would be taken back with the holder's: only they are asked.
    await expect(second.page.getByTestId('undo-prompt')).toBeVisible();
    await expect(third.page.getByTestId('undo-prompt')).toHaveCount(0);
  };
  const ended = async (line: string) => {
    for (const p of seats) {
      await expect(p.page.getByTestId('undo-request')).toHaveCount(0);
      await expect(p.page.getByTestId('undo-prompt')).toHaveCount(0);
      await expect(p.page.getByTestId('log')).toContainText(line);
    }
    // Nothing was taken back: the board and whose turn it is are as after the bid.
    for (const [i, p] of seats.entries()) {
      const now = await game(request, id, p.token);
      expect(now.view).toEqual(bid[i]!.view);
      expect(now.pending).toEqual(bid[i]!.pending);
    }
  };

  // Asked, then withdrawn by the asker before anyone answers: the asker may ask again.
  await askAndSend();
  await page.getByRole('button', { name: 'Withdraw the request' }).click();
  await ended(`${holder.name} withdraws the undo request.`);
  await expect(page.getByRole('button', { name: 'Ask to undo…' })).toBeVisible();

  // Asked again, and the one asked says no: the request is over for everyone at once, and
  // the asker is not offered to ask again before the next move (one "no" per position).
  await askAndSend();
  await second.page.getByTestId('undo-prompt').getByRole('button', { name: 'Decline' }).click();
  await ended(`${second.name} declines the undo; the request is over.`);
  await expect(page.getByTestId('undo-declined')).toContainText('Your request was declined. You can ask again after the next move.');
  await expect(page.getByRole('button', { name: 'Ask to undo…' })).toHaveCount(0);
  await expectAccessible(second.page);
  for (const p of seats) await p.context.close();
});
