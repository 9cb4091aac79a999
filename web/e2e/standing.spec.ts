// Profiles, leaderboards, "my games" and the Rated checkbox, through the page.
//
// Until the rating worker lands on this branch, no game moves a rating here: the spec seeds
// the current ratings (the `ratings` table the worker fills) with psql on the e2e server's
// own cluster, the way the operator would reach it (seedRating below, a test fixture).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { expect } from '@playwright/test';
import { signUpPlayers, startedGame, test } from './support';

test.describe.configure({ timeout: 120_000 });

/** TEST FIXTURE standing in for the rating worker: sets `name`'s current rating in `kind`. */
function seedRating(name: string, kind: string, mu: number, sigma: number, games: number) {
  const dataDir = dirname(process.env.KONTOR_E2E_MAIL_DIR!);
  const note = join(dataDir, 'postgres-location.txt');
  const cluster = existsSync(note) ? /lives in (\S.*)$/m.exec(readFileSync(note, 'utf8'))![1]! : join(dataDir, 'postgres');
  const rating = Math.round(1000 + 40 * (mu - 3 * sigma));
  const sql = `INSERT INTO ratings (user_id, kind, mu, sigma, games, rating, updated_at)
               SELECT id, '${kind}', ${mu}, ${sigma}, ${games}, ${rating}, now() FROM users WHERE username = '${name}'`;
  execFileSync('psql', ['-v', 'ON_ERROR_STOP=1', '-h', join(cluster, 'socket'), '-p', '5432', '-U', 'kontor', '-d', 'kontor', '-c', sql], { stdio: 'pipe' });
}

test('a profile shows ratings, the leaderboard ranks settled players, my games filter', async ({ browser, request }) => {
  const [rita, sven, tove] = await signUpPlayers(browser, ['rita', 'sven', 'tove']);
  // Rita settled (6 games, σ 4): 1000 + 40·(30 − 12) = 1720. Sven provisional (3 games).
  seedRating(rita!.name, 'steel-driver', 30, 4, 6);
  seedRating(sven!.name, 'steel-driver', 27, 6, 3);
  const game = await startedGame(request, [rita!.name, sven!.name, tove!.name], 'steel-driver');

  // The leaderboard, from the main navigation: Rita, not Sven.
  const page = tove!.page;
  await page.getByRole('navigation', { name: 'main' }).getByRole('link', { name: 'Leaderboards' }).click();
  await page.getByRole('link', { name: 'Steel Driver' }).click();
  await expect(page.getByRole('heading', { name: 'Leaderboard: Steel Driver' })).toBeVisible();
  const board = page.getByTestId('leaderboard');
  await expect(board.getByRole('row')).toHaveCount(2);
  await expect(board.getByRole('row').nth(1)).toContainText(`1${rita!.name}17206`);
  await expect(board).not.toContainText(sven!.name);

  // Rita's profile, from her name on the board.
  await board.getByRole('link', { name: rita!.name }).click();
  await expect(page).toHaveURL(`/players/${rita!.name}`);
  await expect(page.getByTestId('profile-name')).toHaveText(rita!.name);
  const ratings = page.getByTestId('ratings');
  await expect(ratings.locator('[data-kind="steel-driver"]')).toContainText('1720');
  await expect(ratings).not.toContainText('provisional');
  await expect(page.getByText('1 public game played, 0 finished')).toBeVisible();
  // Not her own profile: no "My games".
  await expect(page.getByTestId('my-games')).toHaveCount(0);

  // Sven's profile from the game page's seat list: provisional.
  await page.goto(`/games/${game}`);
  await page.getByRole('link', { name: sven!.name }).first().click();
  await expect(page.getByTestId('profile-name')).toHaveText(sven!.name);
  await expect(page.getByTestId('ratings')).toContainText('provisional');

  // Japanese: the same page in the other language.
  await page.getByLabel('Language').selectOption('ja');
  await expect(page.getByTestId('ratings')).toContainText('暫定');
  await page.getByLabel('言語').selectOption('en');

  // A name no one has: nothing here.
  await page.goto('/players/nobody-has-this-name');
  await expect(page.getByRole('heading', { name: 'Nothing here' })).toBeVisible();

  // Rita's own profile lists her games, with filters.
  const own = rita!.page;
  await own.goto(`/players/${rita!.name}`);
  const mine = own.getByTestId('my-games');
  await expect(mine.getByTestId('my-game')).toHaveCount(1);
  await expect(mine.getByTestId('my-game')).toHaveAttribute('data-game-id', game);
  await mine.getByLabel('Result').selectOption('won');
  await expect(mine.getByLabel('Status')).toBeDisabled();
  await expect(mine.getByText('None.')).toBeVisible();
  await mine.getByLabel('Result').selectOption('');
  await mine.getByLabel('Status').selectOption('active');
  await expect(mine.getByTestId('my-game')).toHaveCount(1);
  await mine.getByLabel('Game').selectOption({ label: 'The Flying Dutchman' });
  await expect(mine.getByText('None.')).toBeVisible();
});

test('the Rated checkbox is offered on the new-game form, not with undo by consent', async ({ browser }) => {
  const [una] = await signUpPlayers(browser, ['una']);
  const page = una!.page;
  await page.goto('/new');
  const rated = page.getByRole('checkbox', { name: 'Rated' });
  await expect(rated).toBeEnabled();
  await page.getByLabel('Also later, if every player whose moves it takes back agrees').check();
  await expect(rated).toBeDisabled();
  await expect(page.getByText('A rated game cannot allow taking moves back by consent')).toBeVisible();
});
