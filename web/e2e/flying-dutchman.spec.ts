// A whole game of The Flying Dutchman by three players in three browser contexts, played
// only by clicking the controls their pages offer. The policy is simple and keeps the game
// short (pass when allowed, else a Kontor exchange once, else bid horseshoes away), and on
// the way it steers into two ties so that the tie protocol is played through the page: one
// ends in an agreement (offer with a payment, reject, withdraw, accept), the other in "no
// agreement" and an extra round (bid again, drop out). In the first, the offer follows a word
// at the table and shows as a line of the table's chat. A fourth person watches as a spectator.
import { expect, type Page } from '@playwright/test';
import { accessToken, checkFinishedGame, signUp, signUpPlayers, type Player, test } from './support';
import { expectNoHiddenLeak, ownHand } from './fd-hidden';

test.use({ actionTimeout: 20_000 });

const board = (page: Page) => page.getByTestId('fd-board');

async function attr(page: Page, name: string): Promise<string> {
  return (await board(page).getAttribute(name)) ?? '';
}

/** Waits until every page shows the same version of the game (no reloads: the stream does it). */
async function synced(pages: Page[], after = -1): Promise<number> {
  let versions: string[] = [];
  const same = async () => {
    versions = await Promise.all(pages.map((p) => attr(p, 'data-version')));
    return new Set(versions).size === 1 && Number(versions[0]) > after;
  };
  try {
    await expect.poll(same, { timeout: 20_000 }).toBe(true);
  } catch (err) {
    throw new Error(`the pages did not come to one version after ${after}: ${versions.join(', ')}`, { cause: err });
  }
  return Number(versions[0]);
}

async function decision(page: Page): Promise<string | null> {
  const controls = page.getByTestId('fd-controls');
  return (await controls.count()) ? controls.getAttribute('data-decision') : null;
}

/** Horseshoe faces offered by the bid composer. */
async function composerFaces(page: Page): Promise<number[]> {
  return page
    .getByTestId('fd-composer')
    .locator('li[data-face]')
    .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-face'))));
}

interface Pick {
  face: number;
  minus: boolean;
}

/** Clicks the horseshoes (and signs) into the composer, checks the value shown, places the bid. */
async function composeAndBid(page: Page, picks: Pick[], lucky: number) {
  const composer = page.getByTestId('fd-composer');
  const chosen = new Map<number, number>();
  for (const pick of picks) {
    const k = chosen.get(pick.face) ?? 0;
    chosen.set(pick.face, k + 1);
    const item = composer.locator(`li[data-face="${pick.face}"]`).nth(k);
    await item.locator('button[data-face]').click();
    await expect(item.locator('button[data-face]')).toHaveAttribute('aria-pressed', 'true');
    if (pick.minus) {
      await item.locator('button[data-sign-of]').click();
      await expect(item.locator('button[data-sign-of]')).toHaveText('−');
    }
  }
  const value = picks.reduce((sum, p) => sum + (p.minus ? -p.face : p.face), 0);
  const shown = composer.getByTestId('fd-bid-value');
  await expect(shown).toHaveAttribute('data-value', String(value));
  await expect(shown).toContainText(value <= lucky ? 'valid (not over the lucky number)' : 'this bid would be invalid');
  await composer.getByTestId('fd-place-bid').click();
}

const isGold = (face: number) => face >= 21;

/** Bids enough horseshoes away to be allowed to pass next time (at most one gold). */
function shedding(faces: number[]): Pick[] {
  const surplus = Math.max(1, faces.length - 4);
  const silver = faces.filter((f) => !isGold(f));
  const gold = faces.filter(isGold);
  const picks: Pick[] = silver.slice(0, surplus).map((face, i) => ({ face, minus: i === 1 }));
  if (picks.length < surplus && gold.length) picks.push({ face: gold[0]!, minus: false });
  if (picks.length === 0) picks.push({ face: faces[0]!, minus: false });
  return picks;
}

/** Every bid (as picks) of at most two silver and at most one gold, by value, fewest first. */
function bidsByValue(faces: number[]): Map<number, Pick[]> {
  const out = new Map<number, Pick[]>();
  const silver = faces.filter((f) => !isGold(f));
  const gold = [...new Set(faces.filter(isGold))];
  const add = (picks: Pick[]) => {
    const v = picks.reduce((s, p) => s + (p.minus ? -p.face : p.face), 0);
    const known = out.get(v);
    if (!known || known.length > picks.length) out.set(v, picks);
  };
  const silverSets: Pick[][] = [[]];
  silver.forEach((a, i) => {
    silverSets.push([{ face: a, minus: false }], [{ face: a, minus: true }]);
    silver.slice(i + 1).forEach((b) => {
      for (const ma of [false, true]) for (const mb of [false, true]) silverSets.push([{ face: a, minus: ma }, { face: b, minus: mb }]);
    });
  });
  for (const s of silverSets) {
    if (s.length) add(s);
    for (const g of gold) add([{ face: g, minus: false }, ...s]);
  }
  return out;
}

test('three players play The Flying Dutchman to the end through their pages', async ({ browser }) => {
  const started = Date.now();
  const players: Player[] = [];
  for (const name of ['ada', 'bert', 'cleo']) players.push(await signUp(browser, name));
  const [host, ...guests] = players as [Player, Player, Player];

  // The host creates the game on the new-game screen, with a short negotiation deadline; the
  // others find it among the lobby's open games and join. It starts when the seats are full.
  await host.page.getByRole('navigation', { name: 'main' }).getByRole('link', { name: 'New game' }).click();
  await host.page.getByLabel('Game').selectOption({ label: 'The Flying Dutchman' });
  await host.page.getByLabel('Seats').fill('3');
  await expect(host.page.getByTestId('fd-options')).toContainText('35 ducats each');
  await host.page.getByLabel('Negotiation deadline (minutes)').fill('30');
  await host.page.getByRole('button', { name: 'Create the game' }).click();
  await expect(host.page).toHaveURL(/\/games\/[0-9a-f-]+$/);
  const id = host.page.url().split('/').pop()!;
  for (const guest of guests) {
    await guest.page.goto('/');
    await guest.page.getByTestId('list-open').locator(`[data-game-id="${id}"]`).getByRole('link', { name: 'The Flying Dutchman' }).click();
    await guest.page.getByRole('button', { name: 'Join' }).click();
  }

  const pages = players.map((p) => p.page);
  // A fourth person watches the public game.
  const watcher = await signUp(browser, 'dora');
  await watcher.page.goto(`/games/${id}`);
  await expect(watcher.page.getByText('You are watching')).toBeVisible();
  for (const page of pages) await expect(board(page)).toBeVisible();
  // A mark in each page's memory: a reload would lose it, so it shows at the end that every
  // update came over the stream.
  for (const page of pages) await page.evaluate(() => ((window as unknown as { fdNoReload: boolean }).fdNoReload = true));

  let version = await synced(pages);
  await expectNoHiddenLeak(pages);

  const kontorDone = new Set<Page>();
  const ties = { wanted: ['agreement', 'no_agreement'] as string[], plannedRound: -1, pair: [] as Page[], value: 0 };
  let extraBidPlaced = false;
  let firstMoveChecked = false;
  let screenshot = process.env.KONTOR_SCREENSHOTS === '1';
  let mapPickUsed = false;
  let phoneChecked = false;
  let steps = 0;

  while ((await attr(pages[0]!, 'data-step')) !== 'finished') {
    steps += 1;
    expect(steps, 'the game ends').toBeLessThan(400);
    const deciders: Page[] = [];
    for (const page of pages) if (await decision(page)) deciders.push(page);
    expect(deciders.length, 'someone has a decision to make').toBeGreaterThan(0);
    const page = deciders[0]!;
    const kind = (await decision(page))!;
    const round = Number(await attr(page, 'data-round'));
    const lucky = Number(await page.getByTestId('fd-lucky').locator('strong').textContent());

    if (!phoneChecked && round >= 2) {
      // On a 360-pixel phone the page does not scroll sideways and the controls come first.
      phoneChecked = true;
      await page.setViewportSize({ width: 360, height: 800 });
      await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
      const controlsTop = (await page.getByTestId('fd-controls').boundingBox())!.y;
      const mapTop = (await page.getByTestId('fd-map').boundingBox())!.y;
      expect(controlsTop).toBeLessThan(mapTop);
      await page.setViewportSize({ width: 1280, height: 720 });
    }

    if (kind === 'action') {
      // At a round's first action, perhaps plan a tie: the first two to act bid the same value;
      // the third may not outbid them, so it takes a card action (or passes).
      if (ties.plannedRound !== round && ties.wanted.length && round <= 8 && (await actionsTaken(page)) === 0) {
        const [a, b, c] = await orderOfRound(pages, page);
        if (a && b && c && (await mayAvoidBidding(page, Number(await attr(c, 'data-my-seat'))))) {
          const va = bidsByValue((await ownHand(a)).horseshoes);
          const vb = bidsByValue((await ownHand(b)).horseshoes);
          const common = [...va.keys()].filter((v) => vb.has(v) && v <= lucky && v >= 1).sort((x, y) => y - x);
          if (common.length) {
            ties.plannedRound = round;
            ties.pair = [a, b];
            ties.value = common[0]!;
          }
        }
      }
      const inTie = ties.plannedRound === round && ties.pair.includes(page);
      if (inTie) {
        const picks = bidsByValue(await composerFaces(page)).get(ties.value)!;
        await composeAndBid(page, picks, lucky);
      } else if (ties.plannedRound === round && (await cardActionAvailable(page))) {
        await clickCardAction(page, kontorDone);
      } else if (await button(page, 'Pass').isVisible()) {
        await button(page, 'Pass').click();
      } else if (!kontorDone.has(page) && (await button(page, 'Kontor exchange').isVisible())) {
        kontorDone.add(page);
        await button(page, 'Kontor exchange').click();
      } else {
        const faces = await composerFaces(page);
        // A half-made bid survives an update of the game at the same step: pick one horseshoe,
        // let the screenshot (or nothing) happen, and the choice is still there.
        await composeAndBid(page, shedding(faces), lucky);
      }
      if (!firstMoveChecked) {
        // The move shows on the other pages without a reload.
        firstMoveChecked = true;
        const seat = await attr(page, 'data-my-seat');
        for (const other of pages.filter((p) => p !== page)) {
          await expect(board(other).locator(`.fd-players tr[data-seat="${seat}"] [data-field="action"]`)).not.toHaveText('—');
        }
      }
    } else if (kind === 'return_shares') {
      const cards = page.getByTestId('fd-controls').locator('button[data-colour]');
      await expect(cards).toHaveCount(5);
      await cards.nth(0).click();
      await cards.nth(3).click();
      await expect(cards.nth(0)).toContainText('#1');
      await expect(cards.nth(3)).toContainText('#2');
      await button(page, 'Put these two back').click();
    } else if (kind === 'move') {
      if (screenshot && round >= 3) {
        screenshot = false;
        await page.setViewportSize({ width: 1280, height: 900 });
        await board(page).evaluate((el) => el.scrollIntoView());
        await page.screenshot({ path: '../docs/screenshots/flying-dutchman.png' });
      }
      const destinations = page.getByTestId('fd-controls').locator('button[data-destination]');
      if (!mapPickUsed) {
        // Once through the map itself (keyboard), the other times by the buttons.
        mapPickUsed = true;
        const to = await destinations.first().getAttribute('data-destination');
        const space = page.getByTestId('fd-map').locator(`[data-space="${to}"][role="button"]`);
        await space.focus();
        await page.keyboard.press('Enter');
      } else {
        await destinations.first().click();
      }
    } else if (kind === 'declare') {
      // The first tied player names one space, the others another: they must negotiate.
      const destinations = page.getByTestId('fd-controls').locator('button[data-destination]');
      const first = (await page.getByTestId('fd-controls').textContent())?.includes('Declared so far') ?? false;
      // (With a single way on, they all name it and move together; the tie is tried again later.)
      await destinations.nth(first && (await destinations.count()) > 1 ? 1 : 0).click();
    } else if (kind === 'negotiate') {
      version = await negotiate(deciders, ties.wanted[0] ?? 'no_agreement', pages, version);
      ties.wanted.shift();
    } else if (kind === 'extra_round') {
      const faces = (await page.getByTestId('fd-composer').count()) ? await composerFaces(page) : [];
      const other = deciders[1];
      if (!extraBidPlaced && faces.length && other) {
        // The bidder starts composing; another tied player's choice arrives meanwhile (an
        // update at the same step), and the half-made bid is still there to be placed.
        extraBidPlaced = true;
        const chip = page.getByTestId('fd-composer').locator('li[data-face]').first().locator('button[data-face]');
        await chip.click();
        await expect(chip).toHaveAttribute('aria-pressed', 'true');
        await button(other, 'Drop out').click();
        version = await synced(pages, version);
        await expect(chip).toHaveAttribute('aria-pressed', 'true');
        await expect(page.getByTestId('fd-bid-value')).toHaveAttribute('data-value', String(faces[0]));
        await page.getByTestId('fd-place-bid').click();
      } else {
        await button(page, 'Drop out').click();
      }
    } else if (kind === 'island_income') {
      const take = page.getByTestId('fd-controls').locator('button[data-colour]');
      if (await take.count()) await take.first().click();
      else await button(page, 'Take nothing').click();
    } else {
      throw new Error(`unexpected decision ${kind}`);
    }
    // The move lands on every page. (A refusal would be a bug of the controls, which offer
    // only legal choices: the page's message is then part of the failure.)
    try {
      version = await synced(pages, version);
    } catch (err) {
      const message = page.getByTestId('game-message');
      const said = (await message.count()) ? ` The page says: ${await message.textContent()}` : '';
      throw new Error(`${(err as Error).message} (after ${kind}).${said}`, { cause: err });
    }
    await expect(page.getByTestId('game-message')).toHaveCount(0);
    await expectNoHiddenLeak(pages, [watcher.page]);
    await expect(watcher.page.getByTestId('fd-controls')).toHaveCount(0);
  }

  expect(ties.wanted, 'both ties were played through').toEqual([]);
  expect(extraBidPlaced, 'a bid was made again in the extra round').toBe(true);
  for (const page of pages) {
    await expect(page.getByTestId('fd-outcome')).toBeVisible();
    await expect(page.getByTestId('fd-winners')).toContainText(/Winner|Shared win/);
    expect(await page.evaluate(() => (window as unknown as { fdNoReload?: boolean }).fdNoReload)).toBe(true);
  }
  // The replay slider and the verification of the finished game.
  await checkFinishedGame(host.page);
  // In Japanese the board, the result and the log speak Japanese.
  const guest = guests[0].page;
  await guest.getByLabel('Language').selectOption({ label: '日本語' });
  await expect(guest.getByTestId('fd-outcome')).toContainText('最終結果');
  await expect(guest.getByTestId('fd-step')).toHaveText('ゲームは終了しました。');
  await expect(guest.getByTestId('log')).toContainText('ゲーム終了：');
  console.warn(`Flying Dutchman: ${steps} decisions in ${Math.round((Date.now() - started) / 1000)} s`);
  await expect(watcher.page.getByTestId('fd-outcome')).toBeVisible();
  for (const p of [...players, watcher]) await p.context.close();
});

function button(page: Page, name: string) {
  return page.getByTestId('fd-controls').getByRole('button', { name, exact: true });
}

/** How many players have acted this round, from the deciding page's players table. */
async function actionsTaken(page: Page): Promise<number> {
  const cells = await board(page).locator('.fd-players [data-field="action"]').allTextContents();
  return cells.filter((t) => t.trim() !== '—').length;
}

/** Whether a seat can act without bidding (a card left, or few enough horseshoes to pass). */
async function mayAvoidBidding(page: Page, seat: number): Promise<boolean> {
  const row = board(page).locator(`.fd-players tr[data-seat="${seat}"]`);
  const count = async (field: string) => Number(await row.locator(`[data-field="${field}"]`).textContent());
  return (await count('kontor')) > 0 || (await count('smith')) > 0 || (await count('horseshoes')) <= 4;
}

async function cardActionAvailable(page: Page): Promise<boolean> {
  return (await button(page, 'Kontor exchange').count()) + (await button(page, 'Smith').count()) + (await button(page, 'Pass').count()) > 0;
}

async function clickCardAction(page: Page, kontorDone: Set<Page>) {
  if (await button(page, 'Pass').count()) return button(page, 'Pass').click();
  if (await button(page, 'Kontor exchange').count()) {
    kontorDone.add(page);
    return button(page, 'Kontor exchange').click();
  }
  return button(page, 'Smith').click();
}

/** The pages in the order they act this round, starting with the one deciding now. */
async function orderOfRound(pages: Page[], first: Page): Promise<Page[]> {
  const seats = await Promise.all(pages.map((p) => attr(p, 'data-my-seat').then(Number)));
  const start = seats[pages.indexOf(first)]!;
  return [...pages].sort((a, b) => ((seats[pages.indexOf(a)]! - start + 3) % 3) - ((seats[pages.indexOf(b)]! - start + 3) % 3));
}

/**
 * Plays a negotiation between the tied pages. `agreement`: the first makes an offer with a
 * payment, the second rejects it, makes and withdraws its own offer, and accepts the first.
 * Otherwise the first declares "no agreement". Returns the version the pages were last seen at
 * together (the last click's answer is still to come).
 */
async function negotiate(tied: Page[], outcome: string, pages: Page[], version: number): Promise<number> {
  const [a, b] = tied as [Page, Page];
  if (outcome !== 'agreement') {
    await button(a, 'No agreement').click();
    return version;
  }
  const nameOfA = await a.getByTestId('signed-in-as').textContent();
  const nameOfB = await b.getByTestId('signed-in-as').textContent();
  // A word at the table first (chat never changes the game's version)…
  const pitch = `Come along, ${nameOfB}, and 2 ducats are yours (fd-pitch)`;
  const chatInput = a.getByTestId('chat').getByTestId('chat-input');
  await chatInput.fill(pitch);
  await chatInput.press('Enter');
  await expect(chatInput).toHaveValue('');
  const form = a.getByTestId('fd-controls').locator('form');
  await form.getByLabel(`Pay ${nameOfB} (ducats)`).fill('2');
  await form.getByRole('button', { name: 'Make this offer' }).click();
  version = await synced(pages, version);
  const offerA = b.getByTestId('fd-controls').locator('li[data-offer]').first();
  const idA = await offerA.getAttribute('data-offer');
  await expect(offerA).toContainText(`pays ${nameOfB} 2`);
  // …then the formal offer, inline in the table's chat as a system line right after it, on
  // every seat's page: the talk and the deal read as one conversation.
  for (const page of pages) {
    const said = page.getByTestId('chat').getByTestId('chat-lines').getByTestId('chat-message').filter({ hasText: pitch });
    await expect(said).toHaveCount(1);
    const next = said.locator('xpath=following-sibling::li[1]');
    await expect(next).toHaveAttribute('data-testid', 'chat-system');
    await expect(next).toHaveText(new RegExp(`^${nameOfA} offers ${nameOfB} 2 ducats to go to .+ \\(offer ${idA}\\)\\.$`));
  }
  await button(b, `Reject offer ${idA}`).click();
  version = await synced(pages, version);
  await expect(a.getByTestId('fd-controls').locator(`li[data-offer="${idA}"]`)).toContainText('rejected by');
  // B's own offer names another destination (one for the same one would already be an agreement).
  const formB = b.getByTestId('fd-controls').locator('form');
  const destinationA = await a.getByTestId('fd-controls').locator('form select').inputValue();
  const others = await formB.locator('select option').evaluateAll((os, d) => os.map((o) => (o as HTMLOptionElement).value).filter((v) => v !== d), destinationA);
  await formB.getByLabel('Destination').selectOption(others[0]!);
  await formB.getByRole('button', { name: 'Make this offer' }).click();
  version = await synced(pages, version);
  const offerB = b.getByTestId('fd-controls').locator('li[data-offer]').nth(1);
  const idB = await offerB.getAttribute('data-offer');
  await button(b, `Withdraw offer ${idB}`).click();
  version = await synced(pages, version);
  await expect(b.getByTestId('fd-controls').locator('li[data-offer]')).toHaveCount(1);
  await button(b, `Accept offer ${idA}`).click();
  return version;
}

test('a half-made bid survives a reload of the tab, and is gone from the tab once placed', async ({ browser, request }) => {
  test.setTimeout(120_000);
  const players = await signUpPlayers(browser, ['ada', 'ben', 'cy']);
  const tokens = await Promise.all(players.map((p) => accessToken(request, p.name)));
  const created = await request.post('/api/v1/games', {
    headers: { authorization: `Bearer ${tokens[0]}` },
    data: { kind: 'flying-dutchman', seats: 3 },
  });
  const { id } = (await created.json()) as { id: string };
  for (const token of tokens.slice(1)) {
    expect((await request.post(`/api/v1/games/${id}/join`, { headers: { authorization: `Bearer ${token}` }, data: {} })).ok()).toBe(true);
  }
  const pages = players.map((p) => p.page);
  for (const page of pages) await page.goto(`/games/${id}`);
  await synced(pages);
  const decisions = await Promise.all(pages.map(decision));
  const page = pages[decisions.indexOf('action')]!;
  const composer = page.getByTestId('fd-composer');
  const shown = composer.getByTestId('fd-bid-value');
  // Two horseshoes, the first silver one counted minus.
  const faces = await composerFaces(page);
  const silver = faces.find((f) => !isGold(f))!;
  const other = faces.find((_, i) => i !== faces.indexOf(silver))!;
  for (const face of [silver, other]) await composer.locator(`li[data-face="${face}"]`).last().locator('button[data-face]').click();
  // (A hand may hold two silver horseshoes of one face: the first is the one chosen.)
  await composer.locator(`button[data-sign-of="${silver}"]`).first().click();
  const value = String(other - silver);
  await expect(shown).toHaveAttribute('data-value', value);
  await expectNoHiddenLeak(pages);

  await page.reload();
  await expect(shown).toHaveAttribute('data-value', value);
  await expect(composer.locator('button[data-face][aria-pressed="true"]')).toHaveCount(2);
  await expect(composer.locator(`button[data-sign-of="${silver}"]`).first()).toHaveText('−');
  await expectNoHiddenLeak(pages);

  const before = await synced(pages);
  await composer.getByTestId('fd-place-bid').click();
  await synced(pages, before);
  const drafts = () => page.evaluate(() => Object.keys(sessionStorage).filter((k) => k.startsWith('kontor.bid-draft:')));
  // The draft goes once the page's own action has finished (its answer and its read of the
  // game), which may come after the stream showed the bid on every page.
  await expect.poll(drafts).toEqual([]);
  await expectNoHiddenLeak(pages);
  for (const p of players) await p.context.close();
});
