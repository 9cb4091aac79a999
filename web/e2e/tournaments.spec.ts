// A tournament through the page: a verified player creates one with the form, a second joins
// on its page and a third through the API, the organiser starts it early, and the second,
// whose page stays open, sees the first round's table appear live (the user stream's
// `tournament_started` / `tournament_round`, or their game's `game_started`) with a link to
// their own game, in English and Japanese, which opens it; the third withdraws on the page. No serious axe violation on the
// form or the page. The organiser's page, open during entry, follows entrants coming and going
// without a reload (`tournament_entrants`), each name a link to the player's profile.
// Bounded: one round seated, no game played.
import { AxeBuilder } from '@axe-core/playwright';
import { expect, type Page } from '@playwright/test';
import { accessToken, signUp, verify, test } from './support';

test.describe.configure({ timeout: 180_000 });

/** No serious or critical axe violation on the page as it is now. */
async function expectAccessible(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).slice(0, 4).join(' | ')}`);
  expect(bad).toEqual([]);
}

test('a tournament is created, joined and started, and a player sees their first table live', async ({ browser, request }) => {
  const anna = await signUp(browser, 'tOrg');
  const bert = await signUp(browser, 'tBert');
  const carl = await signUp(browser, 'tCarl');
  for (const p of [anna, bert, carl]) await verify(p);

  // The organiser creates it with the form on the tournaments page.
  const page = anna.page;
  await page.goto('/');
  await page.getByRole('navigation', { name: 'main' }).getByRole('link', { name: 'Tournaments' }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Tournaments' })).toBeVisible();
  await page.getByText('Create tournament', { exact: true }).first().click();
  const form = page.getByTestId('new-tournament');
  await expect(form).toBeVisible();
  await expectAccessible(page);
  const name = `Winter cup ${anna.name}`;
  await form.getByLabel(/^Name$/).fill(name);
  await form.getByLabel(/^Game/).selectOption('steel-driver');
  await form.getByLabel(/^Seats per table/).fill('3');
  await form.getByLabel(/^Rounds/).fill('1');
  await form.getByLabel(/^Most players/).fill('6');
  await form.getByRole('button', { name: 'Create tournament' }).click();
  await expect(page).toHaveURL(/\/tournaments\/[0-9a-f-]{36}$/);
  const id = page.url().split('/').pop()!;
  await expect(page.getByRole('heading', { level: 1, name })).toBeVisible();
  await expect(page.getByTestId('tournament-status')).toHaveText('entry open');
  await page.getByRole('button', { name: 'Join' }).click();
  await expect(page.getByTestId('entered')).toBeVisible();

  // It is listed as open for entry.
  await bert.page.goto('/tournaments');
  const listed = bert.page.getByTestId('tournaments-entry').locator(`[data-tournament-id="${id}"]`);
  await expect(listed).toContainText(name);
  await listed.getByRole('link', { name }).click();
  await expect(bert.page).toHaveURL(new RegExp(`/tournaments/${id}$`));

  // Bert joins on the page; Carl through the API.
  await bert.page.getByRole('button', { name: 'Join' }).click();
  await expect(bert.page.getByTestId('entered')).toBeVisible();
  const carlToken = await accessToken(request, carl.name);
  const joined = await request.post(`/api/v1/tournaments/${id}/join`, { headers: { authorization: `Bearer ${carlToken}` } });
  expect(joined.ok(), await joined.text()).toBe(true);
  await page.reload();
  await expect(page.getByTestId('tournament-players')).toContainText(carl.name);
  // Only the organiser may start it.
  await expect(bert.page.getByRole('button', { name: 'Start now' })).toHaveCount(0);
  await expect(bert.page.getByText('The first round is seated when the tournament starts.')).toBeVisible();

  // The organiser starts it early.
  await page.getByRole('button', { name: 'Start now' }).click();
  await page.getByRole('button', { name: 'Yes' }).click();
  await expect(page.getByTestId('tournament-status')).toHaveText('running');

  // Bert's page, untouched since he joined, shows the first round's table with his game.
  const table = bert.page.getByTestId('round').and(bert.page.locator('[data-round="1"]')).getByTestId('tournament-table').and(bert.page.locator('[data-mine="true"]'));
  await expect(table).toBeVisible();
  await expect(bert.page.getByTestId('tournament-status')).toHaveText('running');
  for (const p of [anna, bert, carl]) await expect(table).toContainText(p.name);
  const gameId = await table.getAttribute('data-game-id');
  expect(gameId).toMatch(/^[0-9a-f-]{36}$/);
  await expect(bert.page.getByTestId('standings')).toContainText(bert.name);
  await expectAccessible(bert.page);
  // In Japanese, the same page.
  const language = bert.page.getByRole('combobox', { name: /Language|言語/ });
  await language.selectOption('ja');
  await expect(bert.page.getByRole('heading', { name: /第1ラウンド/ })).toBeVisible();
  await expect(bert.page.getByTestId('tournament-status')).toHaveText('進行中');
  await expect(table.getByRole('link', { name: 'あなたのゲーム' })).toBeVisible();
  await expectAccessible(bert.page);
  await language.selectOption('en');
  await table.getByRole('link', { name: 'Your game' }).click();
  await expect(bert.page).toHaveURL(new RegExp(`/games/${gameId}$`));
  await expect(bert.page.getByTestId('board-frame')).toBeVisible();

  // Carl withdraws on the page (asked once more); the entrants mark him.
  await carl.page.goto(`/tournaments/${id}`);
  await carl.page.getByRole('button', { name: 'Withdraw' }).click();
  await carl.page.getByRole('button', { name: 'Yes' }).click();
  await expect(carl.page.getByText('You have withdrawn.')).toBeVisible();
  await expect(carl.page.getByRole('button', { name: 'Withdraw' })).toHaveCount(0);
  await expect(carl.page.getByTestId('tournament-players')).toContainText(`${carl.name} (withdrawn)`);

  for (const p of [anna, bert, carl]) await p.context.close();
});

test('the tournament list shows a page at a time and more on request, each tournament once', async ({ browser, request }) => {
  const organiser = await signUp(browser, 'tPager');
  await verify(organiser);
  const token = await accessToken(request, organiser.name);
  const closes = new Date(Date.now() + 86_400_000).toISOString();
  // One more than a page (20), created oldest first.
  const ids: string[] = [];
  for (let i = 0; i < 21; i++) {
    const made = await request.post('/api/v1/tournaments', {
      headers: { authorization: `Bearer ${token}` },
      data: { name: `Pager ${organiser.name} ${i}`, kind: 'steel-driver', format: 'swiss', seats_per_table: 3, rounds: 1, entry_closes_at: closes, max_players: 3 },
    });
    expect(made.ok(), await made.text()).toBe(true);
    ids.push(((await made.json()) as { id: string }).id);
  }
  const page = organiser.page;
  await page.goto('/tournaments');
  const list = page.getByTestId('tournaments-entry');
  const row = (id: string) => list.locator(`[data-tournament-id="${id}"]`);
  const [oldest, newest] = [ids[0]!, ids[20]!];
  await expect(row(newest)).toBeVisible();
  await expect(row(oldest)).toHaveCount(0);
  // "Show more" until the oldest appears (other tests may have added tournaments meanwhile).
  for (let clicks = 0; clicks < 5 && (await row(oldest).count()) === 0; clicks++) {
    await list.getByRole('button', { name: 'Show more' }).click();
    await page.waitForTimeout(300);
  }
  await expect(row(oldest)).toBeVisible();
  for (const id of ids) await expect(row(id)).toHaveCount(1);
  await organiser.context.close();
});

test('the organiser sees entrants come and go without a reload, each name a link to their profile, in English and Japanese', async ({ browser, request }) => {
  const organiser = await signUp(browser, 'tLive');
  await verify(organiser);
  const [bert, carl, dora] = [await signUp(browser, 'tBert'), await signUp(browser, 'tCarl'), await signUp(browser, 'tDora')];
  const token = await accessToken(request, organiser.name);
  const made = await request.post('/api/v1/tournaments', {
    headers: { authorization: `Bearer ${token}` },
    data: {
      name: `Live entry ${organiser.name}`,
      kind: 'steel-driver',
      format: 'swiss',
      seats_per_table: 3,
      rounds: 1,
      entry_closes_at: new Date(Date.now() + 86_400_000).toISOString(),
      max_players: 6,
    },
  });
  expect(made.ok(), await made.text()).toBe(true);
  const id = ((await made.json()) as { id: string }).id;

  // The organiser's page, open from before anyone enters; its stream connected before the first
  // entry (what happens before it is in what the page read).
  const page = organiser.page;
  const connected = page.waitForResponse((r) => r.url().endsWith('/api/v1/me/stream') && r.ok());
  await page.goto(`/tournaments/${id}`);
  await connected;
  const heading = page.getByRole('heading', { level: 2, name: /^(Players|プレイヤー)/ });
  const entrants = page.getByTestId('tournament-players');
  const link = (name: string) => entrants.getByRole('link', { name, exact: true });
  await expect(heading).toHaveText('Players 0/6 players');
  await expect(page.getByText('Nobody has entered yet.')).toBeVisible();
  // Marks this document: a reload would lose the mark.
  await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));

  // Bert enters on his own page.
  await bert.page.goto(`/tournaments/${id}`);
  await bert.page.getByRole('button', { name: 'Join' }).click();
  await expect(bert.page.getByTestId('entered')).toBeVisible();
  await expect(heading).toHaveText('Players 1/6 players');
  await expect(link(bert.name)).toHaveAttribute('href', `/players/${bert.name}`);

  // In Japanese, Carl and Dora enter through the API; Bert takes his entry back on his page.
  await page.getByRole('banner').getByRole('combobox', { name: 'Language' }).selectOption('ja');
  await expect(heading).toHaveText('プレイヤー 1/6人');
  for (const p of [carl, dora]) {
    const joined = await request.post(`/api/v1/tournaments/${id}/join`, { headers: { authorization: `Bearer ${await accessToken(request, p.name)}` } });
    expect(joined.ok(), await joined.text()).toBe(true);
  }
  await expect(heading).toHaveText('プレイヤー 3/6人');
  for (const p of [bert, carl, dora]) await expect(link(p.name)).toHaveAttribute('href', `/players/${p.name}`);
  await bert.page.getByRole('button', { name: 'Leave' }).click();
  await expect(bert.page.getByRole('button', { name: 'Join' })).toBeVisible();
  await expect(heading).toHaveText('プレイヤー 2/6人');
  await expect(entrants).not.toContainText(bert.name);
  expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);

  // A name opens that player's profile.
  await link(carl.name).click();
  await expect(page).toHaveURL(new RegExp(`/players/${carl.name}$`));
  await expect(page.getByTestId('profile-name')).toContainText(carl.name);
  for (const p of [organiser, bert, carl, dora]) await p.context.close();
});
