// The lobby, a new game, joining, inviting, starting and cancelling, through the page in
// three (and a fourth, watching) browser contexts; the finished games, which leave out others'
// tournament games and name who played, when and in which tournament.
import { expect, type APIRequestContext, type Page } from '@playwright/test';
import { accessToken, registered, signUp, test, verify, type Player } from './support';

// Short tests: a stuck one fails in two minutes, not in the whole-game timeout.
test.describe.configure({ timeout: 120_000 });

const GAME = 'Steel Driver';

/** Creates a game through the new-game screen; returns its id (from the page's address). */
async function createGame(page: Page, opts: { private?: boolean; timed?: boolean } = {}): Promise<string> {
  await page.getByRole('navigation', { name: 'main' }).getByRole('link', { name: 'New game' }).click();
  await expect(page.getByRole('heading', { name: 'New game' })).toBeFocused();
  await page.getByLabel('Game').selectOption({ label: GAME });
  await expect(page.getByText('3 to 6 players')).toBeVisible();
  await page.getByLabel('Seats').fill('3');
  if (opts.private) await page.getByLabel('Invited players only').check();
  if (opts.timed) {
    await page.getByLabel('Limit the time for each move').check();
    await page.getByLabel('Days per move').fill('2');
  }
  await page.getByRole('button', { name: 'Create the game' }).click();
  await expect(page).toHaveURL(/\/games\/[0-9a-f-]{36}$/);
  await expect(page.getByRole('heading', { name: GAME })).toBeVisible();
  return page.url().split('/games/')[1]!;
}

function seats(page: Page) {
  return page.getByTestId('seats');
}

test('three players meet in the lobby, join, start, and see the turn pass live', async ({ browser }) => {
  const [anna, bert, cara] = [await signUp(browser, 'anna'), await signUp(browser, 'bert'), await signUp(browser, 'cara')];
  const id = await createGame(anna.page, { timed: true });
  await expect(anna.page.getByText('1 of 3 seats taken')).toBeVisible();
  await expect(seats(anna.page)).toContainText(`${anna.name} (you) (creator)`);

  // Bert finds it among the open games and joins; Anna's page shows him without a reload.
  await bert.page.goto('/');
  const row = bert.page.getByTestId('list-open').locator(`[data-game-id="${id}"]`);
  await expect(row).toContainText(anna.name);
  await expect(row).toContainText('1/3 seats');
  await row.getByRole('link', { name: GAME }).click();
  await bert.page.getByRole('button', { name: 'Join' }).click();
  await expect(seats(bert.page)).toContainText(`${bert.name} (you)`);
  await expect(seats(anna.page)).toContainText(bert.name);

  // Starting with two of three is refused, and the page says why.
  await anna.page.getByRole('button', { name: 'Start now' }).click();
  await expect(anna.page.getByTestId('game-message')).toBeVisible();
  await expect(anna.page.getByTestId('game-message')).not.toBeEmpty();

  // Anna invites Cara by name; Cara joins from the game's page; the last seat starts it.
  await anna.page.getByLabel('Username').fill(cara.name);
  await anna.page.getByRole('button', { name: 'Invite', exact: true }).click();
  await expect(anna.page.getByText(`${cara.name} is invited.`)).toBeVisible();
  await anna.page.getByLabel('Username').fill('nobody-by-this-name');
  await anna.page.getByRole('button', { name: 'Invite', exact: true }).click();
  await expect(anna.page.getByRole('alert')).toContainText(/user/i);

  await cara.page.goto(`/games/${id}`);
  await cara.page.getByRole('button', { name: 'Join' }).click();
  for (const p of [anna, bert, cara]) {
    await expect(p.page.getByTestId('turn')).toHaveText(/Your turn\.|Waiting for /);
    await expect(p.page.getByTestId('countdown')).toContainText(/1 d 23 h left|2 d 0 h left/);
  }

  // Exactly one of them is to move, and the lobby puts that game first for them.
  const players: Player[] = [anna, bert, cara];
  const turns = await Promise.all(players.map((p) => p.page.getByTestId('turn').textContent()));
  const mover = players[turns.findIndex((t) => t === 'Your turn.')]!;
  expect(turns.filter((t) => t === 'Your turn.')).toHaveLength(1);
  await mover.page.getByRole('link', { name: 'Lobby' }).click();
  const mine = mover.page.getByTestId('list-my-turn').locator(`[data-game-id="${id}"]`);
  await expect(mine).toContainText('your move');
  await expect(mine.getByTestId('countdown')).toContainText('left');
  const other = players.find((p) => p !== mover)!;
  await other.page.goto('/');
  await expect(other.page.getByTestId('list-running').locator(`[data-game-id="${id}"]`)).toContainText(`${mover.name} to move`);
  await expect(other.page.getByTestId('list-my-turn').locator(`[data-game-id="${id}"]`)).toHaveCount(0);

  // A fourth user watches: the public view, no seat, no controls of a player.
  const dora = await signUp(browser, 'dora');
  await dora.page.goto(`/games/${id}`);
  await expect(dora.page.getByText('You are watching')).toBeVisible();
  await expect(dora.page.getByTestId('board-frame')).toBeVisible();
  await expect(dora.page.getByRole('button', { name: 'Join' })).toHaveCount(0);
  await expect(dora.page.getByTestId('turn')).toHaveText(new RegExp(`Waiting for ${mover.name}`));

  // The log in words starts with who plays.
  await expect(dora.page.getByTestId('log')).toContainText(`The game starts: ${anna.name}, ${bert.name}, ${cara.name}.`);

  for (const p of [anna, bert, cara, dora]) await p.context.close();
});

test('a private game admits the invited only, and a game can be cancelled after a confirmation', async ({ browser }) => {
  const anna = await signUp(browser, 'anna');
  const eve = await signUp(browser, 'eve');
  const id = await createGame(anna.page, { private: true });
  // Marked beside the game's name, with its other marks (rated, tournament).
  await expect(anna.page.locator('.game-head').getByText('Private', { exact: true })).toBeVisible();

  // Eve has the link but no invitation: the page says so, and joining is refused in words.
  await eve.page.goto(`/games/${id}`);
  await expect(eve.page.getByText('only invited players may join')).toBeVisible();
  await eve.page.getByRole('button', { name: 'Join' }).click();
  await expect(eve.page.getByRole('alert')).toContainText('private');
  // Nor is it listed for her among the open games.
  await eve.page.goto('/');
  await expect(eve.page.getByTestId('list-open')).toHaveAttribute('data-loaded', 'true');
  await expect(eve.page.getByTestId('list-open').locator(`[data-game-id="${id}"]`)).toHaveCount(0);

  // Invited, she can join.
  await anna.page.getByLabel('Username').fill(eve.name);
  await anna.page.getByRole('button', { name: 'Invite', exact: true }).click();
  await expect(anna.page.getByText(`${eve.name} is invited.`)).toBeVisible();
  await eve.page.goto(`/games/${id}`);
  await eve.page.getByRole('button', { name: 'Join' }).click();
  await expect(seats(eve.page)).toContainText(`${eve.name} (you)`);
  await eve.page.getByRole('button', { name: 'Leave' }).click();
  await expect(eve.page.getByRole('button', { name: 'Join' })).toBeVisible();

  // Cancelling asks first; "No" keeps the game.
  await anna.page.getByRole('button', { name: 'Cancel the game' }).click();
  await expect(anna.page.getByRole('button', { name: 'No', exact: true })).toBeFocused();
  await anna.page.getByRole('button', { name: 'No', exact: true }).click();
  await expect(anna.page.getByText('1 of 3 seats taken')).toBeVisible();
  await anna.page.getByRole('button', { name: 'Cancel the game' }).click();
  await anna.page.getByRole('button', { name: 'Yes', exact: true }).click();
  await expect(anna.page.getByText('This game was cancelled before it started.')).toBeVisible();

  // A game that does not exist says so.
  await anna.page.goto('/games/00000000-0000-7000-8000-000000000000');
  await expect(anna.page.getByTestId('game-missing')).toBeVisible();
  await anna.context.close();
  await eve.context.close();
});

test('a long list pages: twenty at first, the rest on "Show more"', async ({ browser, request }) => {
  const anna = await signUp(browser, 'anna');
  const token = await accessToken(request, anna.name);
  for (let i = 0; i < 21; i++) {
    const created = await request.post('/api/v1/games', { headers: { authorization: `Bearer ${token}` }, data: { kind: 'flying-dutchman', seats: 3 } });
    expect(created.status()).toBe(201);
  }
  await anna.page.reload();
  const waiting = anna.page.getByTestId('list-waiting');
  await expect(waiting.getByTestId('game-row')).toHaveCount(20);
  await waiting.getByRole('button', { name: 'Show more' }).click();
  await expect(waiting.getByTestId('game-row')).toHaveCount(21);
  await expect(waiting.getByRole('button', { name: 'Show more' })).toHaveCount(0);
  await anna.context.close();
});

/** A one-round Steel Driver tournament of `organiser`'s with `players` at its one table, started;
 * its id and its game's. */
async function seatedTournament(request: APIRequestContext, organiser: string, name: string, players: string[]) {
  const auth = async (who: string) => ({ authorization: `Bearer ${await accessToken(request, who)}` });
  const made = await request.post('/api/v1/tournaments', {
    headers: await auth(organiser),
    data: { name, kind: 'steel-driver', format: 'swiss', seats_per_table: 3, rounds: 1, entry_closes_at: new Date(Date.now() + 86_400_000).toISOString(), max_players: 3 },
  });
  expect(made.ok(), await made.text()).toBe(true);
  const id = ((await made.json()) as { id: string }).id;
  for (const p of players) {
    const joined = await request.post(`/api/v1/tournaments/${id}/join`, { headers: await auth(p) });
    expect(joined.ok(), await joined.text()).toBe(true);
  }
  const started = await request.post(`/api/v1/tournaments/${id}/start`, { headers: await auth(organiser) });
  expect(started.ok(), await started.text()).toBe(true);
  const tournament = (await started.json()) as { rounds_played: { tables: { game_id: string }[] }[] };
  return { id, game: tournament.rounds_played[0]!.tables[0]!.game_id };
}

/** Ends a tournament game at once: every player withdraws and the server's bot plays the seats
 * out. The game's end, as `viewer` reads it. */
async function playedOut(request: APIRequestContext, tournament: { id: string; game: string }, players: string[], viewer: string): Promise<string> {
  for (const p of players) {
    const withdrawn = await request.post(`/api/v1/tournaments/${tournament.id}/withdraw`, { headers: { authorization: `Bearer ${await accessToken(request, p)}` } });
    expect(withdrawn.ok(), await withdrawn.text()).toBe(true);
  }
  const token = await accessToken(request, viewer);
  let finishedAt = '';
  await expect
    .poll(
      async () => {
        const game = (await (await request.get(`/api/v1/games/${tournament.game}`, { headers: { authorization: `Bearer ${token}` } })).json()) as { status: string; finished_at?: string | null };
        finishedAt = game.finished_at ?? '';
        return game.status;
      },
      { timeout: 60_000, message: 'the bots play the game out' },
    )
    .toBe('finished');
  return finishedAt;
}

test("my finished games: others' tournament games stay out; a row says who played, when and in which tournament", async ({ browser, request }) => {
  const me = await signUp(browser, 'fin');
  // An organiser's address is verified; the organiser of both tournaments plays in one.
  await verify(me);
  const [bo, cy, di, ed, fay] = [await registered(request, 'finB'), await registered(request, 'finC'), await registered(request, 'finD'), await registered(request, 'finE'), await registered(request, 'finF')];
  const mine = await seatedTournament(request, me.name, `Spring cup ${me.name}`, [me.name, bo!, cy!]);
  // A second game of the same players, of another tournament: its row differs by what it names.
  const alsoMine = await seatedTournament(request, me.name, `Summer cup ${me.name}`, [me.name, bo!, cy!]);
  const theirs = await seatedTournament(request, me.name, `Autumn cup ${me.name}`, [di!, ed!, fay!]);
  const ended = await playedOut(request, mine, [me.name, bo!, cy!], me.name);
  await playedOut(request, alsoMine, [me.name, bo!, cy!], me.name);
  // Theirs ends last: it would head the list if it were listed.
  await playedOut(request, theirs, [di!, ed!, fay!], di!);

  const page = me.page;
  await page.goto('/');
  const finished = page.getByTestId('list-finished');
  await expect(finished).toHaveAttribute('data-loaded', 'true');
  const row = finished.locator(`[data-game-id="${mine.game}"]`);
  await expect(row).toBeVisible();
  await expect(finished.locator(`[data-game-id="${theirs.game}"]`)).toHaveCount(0);
  // Who played (each a link to the profile), when it ended, and which tournament's round.
  for (const name of [me.name, bo!, cy!]) await expect(row.getByRole('link', { name, exact: true })).toHaveAttribute('href', `/players/${name}`);
  await expect(row.locator('time')).toHaveAttribute('datetime', ended);
  await expect(row.locator('time')).toHaveText(/^ended \S/);
  const tag = row.getByTestId('game-tournament');
  await expect(tag).toHaveText(`Spring cup ${me.name} · round 1`);
  await expect(tag).toHaveAttribute('href', `/tournaments/${mine.id}`);
  await expect(finished.locator(`[data-game-id="${alsoMine.game}"]`).getByTestId('game-tournament')).toHaveText(`Summer cup ${me.name} · round 1`);
  // In Japanese.
  await page.getByRole('banner').getByRole('combobox', { name: 'Language' }).selectOption('ja');
  await expect(tag).toHaveText(`Spring cup ${me.name}・第1ラウンド`);
  await expect(row.locator('time')).toHaveText(/\Sに終了$/);
  await expect(finished.locator(`[data-game-id="${theirs.game}"]`)).toHaveCount(0);
  await me.context.close();
});
