// The chat on the game page (issue 22), with real browsers against the real server: players
// talk live at the table and in a private channel, spectators among themselves, each page
// shows only the channels its reader may read; unread badges and the "new messages"
// divider; reports and a moderator's removal (more of it in chat-moderation.spec.ts); the
// creator's switch of the spectators' channel.
import { expect, type Locator, type Page } from '@playwright/test';
import { grantAdmin, readableState, signUp, signUpPlayers, startedGame, test } from './support';
import { expectNoPrivateChatLeak } from './fd-hidden';

test.use({ actionTimeout: 20_000 });

const chat = (page: Page) => page.getByTestId('chat');
const tab = (page: Page, name: string | RegExp) => chat(page).getByRole('tab', { name });
const lines = (page: Page) => chat(page).getByTestId('chat-lines');

async function say(page: Page, text: string) {
  const input = chat(page).getByTestId('chat-input');
  await input.fill(text);
  await input.press('Enter');
  await expect(input).toHaveValue('');
  await expect(lines(page).getByTestId('chat-message').filter({ hasText: text.split('\n')[0] })).toHaveCount(1);
}

async function seatOf(page: Page): Promise<number> {
  return Number(await page.getByTestId('fd-board').getAttribute('data-my-seat'));
}

function message(page: Page, text: string): Locator {
  return lines(page).getByTestId('chat-message').filter({ hasText: text });
}

test('players talk live at the table and in private; spectators among themselves; nobody reads what they may not', async ({ browser, request }) => {
  test.setTimeout(120_000);
  const [ada, ben, cy] = await signUpPlayers(browser, ['ada', 'ben', 'cy']);
  const sam = await signUp(browser, 'sam');
  const sue = await signUp(browser, 'sue');
  const id = await startedGame(request, [ada!.name, ben!.name, cy!.name], 'flying-dutchman');
  const players = [ada!, ben!, cy!];
  for (const p of [...players, sam, sue]) await p.page.goto(`/games/${id}`);
  for (const p of players) await expect(p.page.getByTestId('fd-board')).toBeVisible();

  // A seat reads the table and one private channel with each other player; a spectator,
  // while the game runs, only the spectators' channel.
  for (const p of players) {
    await expect(chat(p.page).getByRole('tab')).toHaveCount(3);
    await expect(tab(p.page, 'Table')).toHaveAttribute('aria-selected', 'true');
    for (const other of players.filter((o) => o !== p)) await expect(tab(p.page, new RegExp(`^${other.name} \\(private\\)`))).toBeVisible();
  }
  for (const w of [sam, sue]) {
    await expect(chat(w.page).getByRole('tab')).toHaveCount(1);
    await expect(tab(w.page, /^Spectators/)).toBeVisible();
  }

  // At the table, live on the other pages.
  await say(ada!.page, 'Hello table, shall we deal?');
  for (const p of [ben!, cy!]) await expect(message(p.page, 'Hello table, shall we deal?')).toContainText(ada!.name);
  // Shift+Enter starts a new line; Enter sends.
  const input = chat(ben!.page).getByTestId('chat-input');
  await input.fill('line one');
  await input.press('Shift+Enter');
  await input.pressSequentially('line two');
  await expect(input).toHaveValue('line one\nline two');
  await input.press('Enter');
  await expect(message(ada!.page, 'line one')).toContainText('line one\nline two');

  // The counter, and no sending over 500 characters.
  await input.fill('x'.repeat(501));
  await expect(chat(ben!.page).getByTestId('chat-counter')).toHaveText('501 of 500 characters 1 characters too many.');
  await expect(chat(ben!.page).getByRole('button', { name: 'Send' })).toBeDisabled();
  await input.fill('');
  await expect(chat(ben!.page).getByTestId('chat-counter')).toHaveText('0 of 500 characters');

  // In private: ben sees the unread badge on ada's tab, and the divider at the first unread.
  const secret = 'psst: I pay you 3 ducats for the island (private-7f3a)';
  const secret2 = 'and I keep quiet about it (private-9c1d)';
  await tab(ada!.page, new RegExp(`^${ben!.name} \\(private\\)`)).click();
  await say(ada!.page, secret);
  await say(ada!.page, secret2);
  const adaTab = tab(ben!.page, new RegExp(`^${ada!.name} \\(private\\)`));
  await expect(adaTab.getByTestId('chat-unread-badge')).toContainText('2');
  await expect(adaTab).toHaveAccessibleName(`${ada!.name} (private), 2 unread`);
  await adaTab.click();
  const divider = lines(ben!.page).getByTestId('chat-divider');
  await expect(divider).toHaveText('New messages');
  // The divider stands right before the first unread message.
  await expect(lines(ben!.page).locator('li').nth(0)).toHaveAttribute('data-testid', 'chat-divider');
  await expect(lines(ben!.page).locator('li').nth(1)).toContainText(secret);
  await expect(adaTab.getByTestId('chat-unread-badge')).toHaveCount(0);
  await say(ben!.page, 'Deal. (private-reply-22b0)');
  await expect(message(ada!.page, 'Deal. (private-reply-22b0)')).toBeVisible();
  // Read markers are kept by the server: after a reload, nothing is unread and no divider shows.
  await ben!.page.reload();
  await expect(tab(ben!.page, 'Table')).toBeVisible();
  await expect(chat(ben!.page).getByTestId('chat-unread-badge')).toHaveCount(0);

  // The spectators' channel, between spectators; the seats do not read it while the game runs.
  await say(sam.page, 'Watching from the harbour (spectators-41aa)');
  await expect(message(sue.page, 'Watching from the harbour (spectators-41aa)')).toContainText(`${sam.name} (spectator)`);

  // Nobody holds a message of a channel they may not read: cy and the spectators have none of
  // the private channel; the spectators none of the table's; the seats none of the spectators'.
  const seats = await Promise.all(players.map(async (p) => ({ page: p.page, seat: await seatOf(p.page) })));
  const [seatA, seatB] = [seats[0]!.seat, seats[1]!.seat].sort((a, b) => a - b);
  await expectNoPrivateChatLeak(seats, [sam.page, sue.page], [secret, secret2, 'Deal. (private-reply-22b0)'].map((text) => ({ channel: `private:${seatA}-${seatB}`, text })));
  for (const w of [sam, sue]) expect(await readableState(w.page)).not.toContain('Hello table, shall we deal?');
  for (const p of players) expect(await readableState(p.page)).not.toContain('spectators-41aa');

  // The creator closes the spectators' channel: a spectator's send is refused in words.
  await expect(chat(ada!.page).getByTestId('spectators-state')).toHaveText("The spectators' channel is open.");
  await chat(ada!.page).getByRole('button', { name: "Close the spectators' channel" }).click();
  await expect(chat(ada!.page).getByTestId('spectators-state')).toHaveText("The spectators' channel is closed.");
  const samInput = chat(sam.page).getByTestId('chat-input');
  await samInput.fill('Anyone still here?');
  await samInput.press('Enter');
  await expect(chat(sam.page).getByTestId('chat-error')).toHaveText("The spectators' channel is closed: nobody can write in it now.");
  await chat(ada!.page).getByRole('button', { name: "Reopen the spectators' channel" }).click();
  await expect(chat(ada!.page).getByTestId('spectators-state')).toHaveText("The spectators' channel is open.");
  // The same message sent again (its key kept) now goes through.
  await samInput.press('Enter');
  await expect(message(sue.page, 'Anyone still here?')).toBeVisible();
  for (const p of [...players, sam, sue]) await p.context.close();
});

test('a new message is announced politely, and on a phone the chat is a tab beside the board', async ({ browser, request }) => {
  test.setTimeout(90_000);
  const [ada, ben, cy] = await signUpPlayers(browser, ['ada', 'ben', 'cy']);
  const id = await startedGame(request, [ada!.name, ben!.name, cy!.name], 'flying-dutchman');
  await ben!.page.setViewportSize({ width: 390, height: 844 });
  for (const p of [ada!, ben!]) await p.page.goto(`/games/${id}`);
  await expect(ben!.page.getByTestId('fd-board')).toBeVisible();
  const phoneChat = ben!.page.getByTestId('phone-chat');
  await expect(phoneChat).toBeVisible();
  await expect(chat(ben!.page)).toBeHidden();
  await expect(chat(ada!.page)).toBeVisible();
  await expect(chat(ada!.page).getByTestId('chat-input')).toBeVisible();
  await say(ada!.page, 'Good luck, everyone');
  // The one polite region says it, with who and where.
  const region = ben!.page.getByTestId('chat-announcement');
  await expect(region).toHaveAttribute('aria-live', 'polite');
  await expect(region).toHaveText(`${ada!.name} in Table: Good luck, everyone`);
  await expect(phoneChat).toContainText('1');
  await phoneChat.click();
  await expect(chat(ben!.page)).toBeVisible();
  await expect(ben!.page.getByTestId('fd-board')).toBeHidden();
  await expect(message(ben!.page, 'Good luck, everyone')).toBeVisible();
  // In Japanese too.
  await ben!.page.getByLabel('Language').selectOption({ label: '日本語' });
  await expect(tab(ben!.page, 'テーブル')).toBeVisible();
  await expect(chat(ben!.page).getByTestId('chat-counter')).toHaveText('500文字中0文字');
  for (const p of [ada!, ben!, cy!]) await p.context.close();
});

test('a player reports a message, an admin hides it, and every page shows it removed by a moderator', async ({ browser, request }) => {
  test.setTimeout(90_000);
  const [ada, ben, cy] = await signUpPlayers(browser, ['ada', 'ben', 'cy']);
  const mod = await signUp(browser, 'mod');
  grantAdmin(mod.name);
  const id = await startedGame(request, [ada!.name, ben!.name, cy!.name], 'flying-dutchman');
  for (const p of [ada!, ben!, cy!]) await p.page.goto(`/games/${id}`);
  const spam = 'Cheap gold at https://spam.example/buy?now=1 and javascript:alert(1)';
  await say(ada!.page, spam);
  const onBen = message(ben!.page, 'Cheap gold');
  // The address is a link that cannot reach back into the page; the rest stays text.
  const link = onBen.getByRole('link');
  await expect(link).toHaveCount(1);
  await expect(link).toHaveAttribute('href', 'https://spam.example/buy?now=1');
  await expect(link).toHaveAttribute('rel', 'noopener noreferrer nofollow');
  await expect(link).toHaveAttribute('target', '_blank');
  // One's own message has no Report button.
  await expect(message(ada!.page, 'Cheap gold').getByRole('button', { name: /^Report/ })).toHaveCount(0);

  // Others' messages carry no Report link of their own: it waits in the message's menu.
  await expect(onBen.getByRole('button', { name: /^Report/ })).toHaveCount(0);
  await onBen.getByRole('button', { name: `Actions: message of ${ada!.name}` }).click();
  await onBen.getByRole('button', { name: `Report the message of ${ada!.name}` }).click();
  const form = onBen.getByTestId('chat-report');
  await form.getByLabel('Reason').selectOption({ label: 'Spam' });
  await form.getByLabel('Note for the moderators (optional)').fill('sells gold');
  await form.getByRole('button', { name: 'Send the report' }).click();
  await expect(onBen.getByRole('status')).toHaveText('Reported; a moderator will look at it. Thank you.');
  // After a reload the page still knows: the menu says so and offers no second report.
  await ben!.page.reload();
  await onBen.getByTestId('chat-actions').click();
  await expect(onBen).toContainText('You reported this message.');
  await expect(onBen.getByRole('button', { name: /^Report/ })).toHaveCount(0);

  // The admin, watching the game, finds the report in the moderation panel of the chat pane
  // and hides the message from there, with a reason.
  await mod.page.goto(`/games/${id}`);
  const panel = chat(mod.page).getByTestId('chat-moderation');
  await panel.getByText('Moderation: open reports').click();
  const messageId = Number(await onBen.getAttribute('data-id'));
  const item = panel.locator(`[data-message-id="${messageId}"]`);
  await expect(item).toContainText(`${ben!.name} reported ${ada!.name}'s message (spam)`);
  await expect(item).toContainText(spam);
  await expect(item).toContainText('sells gold');
  await item.getByRole('button', { name: 'Hide the message' }).click();
  await item.getByLabel('Why (one line, kept for the record)').fill('spam');
  await item.getByRole('button', { name: 'Hide the message' }).click();
  await expect(panel.getByRole('status')).toHaveText('The message is hidden; the report is resolved.');
  await expect(panel.locator(`[data-message-id="${messageId}"]`)).toHaveCount(0);
  // Live on every page, and again after a reload: removed, the text gone.
  for (const p of [ada!, ben!, cy!]) {
    const line = lines(p.page).locator(`[data-id="${messageId}"]`);
    await expect(line.getByTestId('chat-removed')).toHaveText('Removed by a moderator.');
    await expect(line).not.toContainText('Cheap gold');
  }
  await cy!.page.reload();
  await expect(lines(cy!.page).locator(`[data-id="${messageId}"]`).getByTestId('chat-removed')).toHaveText('Removed by a moderator.');
  expect(await readableState(cy!.page)).not.toContain('Cheap gold');
  for (const p of [ada!, ben!, cy!, mod]) await p.context.close();
});

test('the lobby shows the unread messages and the chat setting; a new game offers the setting with the game\'s default', async ({ browser, request }) => {
  test.setTimeout(90_000);
  const [ada, ben, cy] = await signUpPlayers(browser, ['ada', 'ben', 'cy']);
  const id = await startedGame(request, [ada!.name, ben!.name, cy!.name], 'flying-dutchman', { chat: 'table' });
  await ben!.page.goto('/');
  const row = ben!.page.locator(`[data-game-id="${id}"]`).first();
  await expect(row.getByTestId('chat-setting')).toHaveText('table chat');
  await ada!.page.goto(`/games/${id}`);
  // chat = table: no private channels.
  await expect(chat(ada!.page).getByRole('tab')).toHaveCount(1);
  await say(ada!.page, 'Anyone for a deal?');
  await expect(row.getByTestId('chat-unread')).toHaveText('1 unread in the chat');
  // Read on the game page: the read marker is saved as the message shows.
  const marked = ben!.page.waitForResponse((r) => r.request().method() === 'PUT' && r.url().endsWith(`/games/${id}/chat/table/read`));
  await ben!.page.goto(`/games/${id}`);
  await expect(message(ben!.page, 'Anyone for a deal?')).toBeVisible();
  expect((await marked).status()).toBe(204);
  await ben!.page.goto('/');
  await expect(ben!.page.locator(`[data-game-id="${id}"]`).first().getByTestId('chat-setting')).toBeVisible();
  await expect(ben!.page.locator(`[data-game-id="${id}"]`).first().getByTestId('chat-unread')).toHaveCount(0);

  await ada!.page.goto('/new');
  const chatSetting = ada!.page.getByRole('group', { name: 'Chat' });
  await expect(chatSetting.getByRole('radio', { name: /^At the table, in private/ })).toBeChecked();
  await ada!.page.getByLabel('Game').selectOption({ label: 'Steel Driver' });
  await expect(chatSetting.getByRole('radio', { name: /^At the table and among spectators/ })).toBeChecked();
  for (const p of [ada!, ben!, cy!]) await p.context.close();
});
