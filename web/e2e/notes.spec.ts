// Private notes on the game page (issue 23), with real browsers against the real server: a
// player's note saves by itself and survives a reload; the other players and a spectator
// never see it; two tabs of the same player do not overwrite each other unseen; on a phone
// the notes are a tab beside the board, in English and Japanese.
import { expect, type Page } from '@playwright/test';
import { readableState, signUp, signUpPlayers, startedGame, test } from './support';

test.use({ actionTimeout: 20_000 });

const notes = (page: Page) => page.getByTestId('notes');
const input = (page: Page) => page.getByTestId('notes-input');
const status = (page: Page) => page.getByTestId('notes-status');

test('a note survives a reload and no other player or spectator ever sees it', async ({ browser, request }) => {
  test.setTimeout(120_000);
  const [ada, ben, cy] = await signUpPlayers(browser, ['ada', 'ben', 'cy']);
  const sam = await signUp(browser, 'sam');
  const id = await startedGame(request, [ada!.name, ben!.name, cy!.name], 'flying-dutchman');
  for (const p of [ada!, ben!, sam]) await p.page.goto(`/games/${id}`);
  await expect(ada!.page.getByTestId('fd-board')).toBeVisible();

  const secret = `ben-bluffs-${Date.now().toString(36)}`;
  await expect(status(ada!.page)).toHaveAttribute('data-status', 'saved');
  await input(ada!.page).fill(`Remember:\n${secret}`);
  await expect(status(ada!.page)).toHaveAttribute('data-status', 'unsaved');
  // It saves by itself after a pause in typing.
  await expect(status(ada!.page)).toHaveAttribute('data-status', 'saved');
  await expect(status(ada!.page)).toHaveText('Saved');

  await ada!.page.reload();
  await expect(input(ada!.page)).toHaveValue(`Remember:\n${secret}`);

  // Leaving the text area saves at once.
  await input(ada!.page).fill(`Remember:\n${secret}\nand cy hoards`);
  await input(ada!.page).press('Tab');
  await expect(status(ada!.page)).toHaveAttribute('data-status', 'saved');
  await ada!.page.reload();
  await expect(input(ada!.page)).toHaveValue(`Remember:\n${secret}\nand cy hoards`);

  // Ben has a note of his own, empty; a spectator has none.
  await ben!.page.reload();
  await expect(input(ben!.page)).toHaveValue('');
  await expect(status(ben!.page)).toHaveAttribute('data-status', 'saved');
  await sam.page.reload();
  await expect(sam.page.getByTestId('fd-board')).toBeVisible();
  await expect(notes(sam.page)).toHaveCount(0);
  for (const p of [ben!, sam]) expect(await readableState(p.page)).not.toContain(secret);
  for (const p of [ada!, ben!, cy!, sam]) await p.context.close();
});

test('two tabs of one player: a save shows in the other at once, and a clash is offered as a choice', async ({ browser, request }) => {
  test.setTimeout(120_000);
  const [ada, ben, cy] = await signUpPlayers(browser, ['ada', 'ben', 'cy']);
  const id = await startedGame(request, [ada!.name, ben!.name, cy!.name], 'flying-dutchman');
  const first = ada!.page;
  // The first tab's clock is held: its save after a pause in typing waits until this test
  // moves focus, so the two tabs' typing meets deterministically.
  await first.clock.install();
  await first.goto(`/games/${id}`);
  await expect(status(first)).toHaveAttribute('data-status', 'saved');
  const second = await ada!.context.newPage();
  await second.goto(`/games/${id}`);
  await expect(status(second)).toHaveAttribute('data-status', 'saved');

  // Nothing typed in the first tab: the second tab's save shows there without a reload.
  await input(second).fill('written in the second tab');
  await input(second).press('Tab');
  await expect(status(second)).toHaveAttribute('data-status', 'saved');
  await expect(input(first)).toHaveValue('written in the second tab');
  await expect(status(first)).toHaveAttribute('data-status', 'saved');

  // Both type: the first tab's typing is not overwritten by the second's save; its own save
  // is refused, and both texts are shown.
  await input(first).fill('written in the first tab');
  await expect(status(first)).toHaveAttribute('data-status', 'unsaved');
  await input(second).fill('the second tab again');
  await input(second).press('Tab');
  await expect(status(second)).toHaveAttribute('data-status', 'saved');
  await expect(input(first)).toHaveValue('written in the first tab');
  await input(first).press('Tab');
  const conflict = first.getByTestId('notes-conflict');
  await expect(conflict).toBeVisible();
  await expect(first.getByTestId('notes-theirs')).toHaveText('the second tab again');
  await expect(input(first)).toHaveValue('written in the first tab');

  // Keeping one's own overwrites exactly the version that was shown, and the second tab,
  // untouched since its save, shows it.
  await first.getByTestId('notes-keep-mine').click();
  await expect(conflict).toBeHidden();
  await expect(status(first)).toHaveAttribute('data-status', 'saved');
  await expect(input(second)).toHaveValue('written in the first tab');

  // The other way round: taking the other version replaces the text, and saves nothing.
  await input(first).fill('first tab again');
  await input(second).fill('second tab once more');
  await input(second).press('Tab');
  await expect(status(second)).toHaveAttribute('data-status', 'saved');
  await input(first).press('Control+s');
  await expect(conflict).toBeVisible();
  await first.getByTestId('notes-take-theirs').click();
  await expect(input(first)).toHaveValue('second tab once more');
  await expect(status(first)).toHaveAttribute('data-status', 'saved');
  await first.reload();
  await expect(input(first)).toHaveValue('second tab once more');
  for (const p of [ada!, ben!, cy!]) await p.context.close();
});

test('on a phone the notes are a tab beside the board, in Japanese too', async ({ browser, request }) => {
  test.setTimeout(90_000);
  const [ada, ben, cy] = await signUpPlayers(browser, ['ada', 'ben', 'cy']);
  const id = await startedGame(request, [ada!.name, ben!.name, cy!.name], 'flying-dutchman');
  const page = ada!.page;
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/games/${id}`);
  await expect(page.getByTestId('fd-board')).toBeVisible();
  await expect(notes(page)).toBeHidden();
  await page.getByTestId('phone-notes').click();
  await expect(notes(page)).toBeVisible();
  await expect(page.getByTestId('fd-board')).toBeHidden();
  await input(page).fill('on the phone');
  await input(page).press('Tab');
  await expect(status(page)).toHaveAttribute('data-status', 'saved');
  await page.getByLabel('Language').selectOption({ label: '日本語' });
  await expect(page.getByRole('heading', { name: 'メモ' })).toBeVisible();
  await expect(status(page)).toHaveText('保存済み');
  await expect(page.getByTestId('phone-notes')).toHaveText('メモ');
  for (const p of [ada!, ben!, cy!]) await p.context.close();
});
