// Moderating the chat in the page (issue 22), with real browsers against the real server: an
// admin hides a message from the message itself and the other pages show it removed live
// while the admin still reads it marked hidden; a report dismissed from the admin's panel
// leaves the open list and the message stays; a muted author is told so with the time left;
// one who sends too fast is told how long to wait. (The report → hide through the panel is in
// chat.spec.ts; a formal offer of The Flying Dutchman as a line of the table's chat is in
// flying-dutchman.spec.ts, which plays a tie through the pages.)
import { AxeBuilder } from '@axe-core/playwright';
import { expect, type Locator, type Page } from '@playwright/test';
import { accessToken, grantAdmin, readableState, signUp, signUpPlayers, startedGame, test } from './support';

test.use({ actionTimeout: 20_000 });

const chat = (page: Page) => page.getByTestId('chat');
const lines = (page: Page) => chat(page).getByTestId('chat-lines');

function message(page: Page, text: string): Locator {
  return lines(page).getByTestId('chat-message').filter({ hasText: text });
}

async function say(page: Page, text: string) {
  const input = chat(page).getByTestId('chat-input');
  await input.fill(text);
  await input.press('Enter');
  await expect(input).toHaveValue('');
  await expect(message(page, text)).toHaveCount(1);
}

test('an admin hides a message from the message itself, and dismisses a report from the panel', async ({ browser, request }) => {
  test.setTimeout(120_000);
  const [ada, ben, cy] = await signUpPlayers(browser, ['ada', 'ben', 'cy']);
  const sam = await signUp(browser, 'sam');
  const sue = await signUp(browser, 'sue');
  const mod = await signUp(browser, 'mod');
  grantAdmin(mod.name);
  const id = await startedGame(request, [ada!.name, ben!.name, cy!.name], 'flying-dutchman');
  // The admin's page learns the role from /me when it loads.
  for (const w of [sam, sue, mod]) await w.page.goto(`/games/${id}`);
  await expect(chat(mod.page).getByRole('tab', { name: /^Spectators/ })).toBeVisible();

  const rude = 'Boo, you slow sailors (spectators-hide-5e1)';
  await say(sam.page, rude);
  const onMod = message(mod.page, rude);
  await expect(onMod).toBeVisible();
  // Only an admin is offered Hide; and only an admin has the moderation panel.
  await expect(message(sue.page, rude).getByRole('button', { name: /^Hide/ })).toHaveCount(0);
  await expect(chat(sue.page).getByTestId('chat-moderation')).toHaveCount(0);
  await expect(chat(sam.page).getByTestId('chat-moderation')).toHaveCount(0);

  // By keyboard: the message's actions button, Hide in its menu, a reason (required), Enter.
  await onMod.getByRole('button', { name: `Actions: message of ${sam.name} (spectator)` }).focus();
  await mod.page.keyboard.press('Enter');
  const hide = onMod.getByRole('button', { name: `Hide the message of ${sam.name} (spectator)` });
  await hide.focus();
  await mod.page.keyboard.press('Enter');
  const form = onMod.getByTestId('chat-hide');
  const reason = form.getByLabel('Why (one line, kept for the record)');
  await expect(reason).toBeFocused();
  await expect(form.getByRole('button', { name: 'Hide the message' })).toBeDisabled();
  await mod.page.keyboard.type('insults the players');
  await mod.page.keyboard.press('Enter');
  const messageId = await onMod.getAttribute('data-id');

  // Live on the others' pages (the author's too): removed, without the text.
  for (const w of [sam, sue]) {
    const line = lines(w.page).locator(`[data-id="${messageId}"]`);
    await expect(line.getByTestId('chat-removed')).toHaveText('Removed by a moderator.');
    await expect(line).not.toContainText('slow sailors');
    expect(await readableState(w.page)).not.toContain('slow sailors');
  }
  // The admin still reads it, marked as hidden, and is offered Hide no more.
  const removedForMod = lines(mod.page).locator(`[data-id="${messageId}"]`);
  await expect(removedForMod.getByTestId('chat-removed')).toContainText('Removed by a moderator; only admins see the text:');
  await expect(removedForMod.getByTestId('chat-removed')).toContainText(rude);
  await expect(removedForMod.getByRole('button', { name: /^Hide/ })).toHaveCount(0);
  // After a reload too.
  await mod.page.reload();
  await expect(lines(mod.page).locator(`[data-id="${messageId}"]`).getByTestId('chat-removed')).toContainText(rude);

  // A report the admin dismisses: it leaves the open list; the message stays for everyone.
  const banter = 'Ha, the Dutchman will get you all (spectators-dismiss-8c2)';
  await say(sue.page, banter);
  const onSam = message(sam.page, banter);
  await onSam.getByTestId('chat-actions').click();
  await onSam.getByRole('button', { name: `Report the message of ${sue.name} (spectator)` }).click();
  await onSam.getByTestId('chat-report').getByLabel('Reason').selectOption({ label: 'Something else' });
  await onSam.getByTestId('chat-report').getByRole('button', { name: 'Send the report' }).click();
  await expect(onSam.getByRole('status')).toHaveText('Reported; a moderator will look at it. Thank you.');
  const banterId = await onSam.getAttribute('data-id');
  const panel = chat(mod.page).getByTestId('chat-moderation');
  await panel.getByText('Moderation: open reports').click();
  const item = panel.locator(`[data-message-id="${banterId}"]`);
  await expect(item).toContainText(`${sam.name} reported ${sue.name}'s message (something else)`);
  await expect(item).toContainText(banter);
  // The admin's pane, with the panel open, passes axe (no serious or critical violation).
  const axe = await new AxeBuilder({ page: mod.page }).include('[data-testid="chat"]').analyze();
  expect(axe.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).toEqual([]);
  await item.getByLabel('Why dismissed (optional)').fill('a joke about the game');
  await item.getByRole('button', { name: 'Dismiss the report' }).click();
  await expect(panel.getByRole('status')).toHaveText('The report is dismissed.');
  await expect(panel.locator(`[data-message-id="${banterId}"]`)).toHaveCount(0);
  // Recorded on the server: no longer open, dismissed by the admin with the reason.
  const token = await accessToken(request, mod.name);
  const all = await request.get('/api/v1/admin/chat/reports?status=all&limit=1000', { headers: { authorization: `Bearer ${token}` } });
  const report = ((await all.json()) as { items: { message: { id: number }; resolution: string; resolution_note: string }[] }).items.find(
    (r) => r.message.id === Number(banterId),
  );
  expect(report?.resolution).toBe('dismissed');
  expect(report?.resolution_note).toBe('a joke about the game');
  await expect(message(sam.page, banter).getByTestId('chat-removed')).toHaveCount(0);
  await expect(message(sue.page, banter)).toBeVisible();

  // In Japanese too.
  await mod.page.getByLabel('Language').selectOption({ label: '日本語' });
  await expect(panel.getByText('モデレーション：未対応の通報')).toBeVisible();
  await mod.page.getByLabel('言語').selectOption({ label: 'English' });
  for (const p of [ada!, ben!, cy!, sam, sue, mod]) await p.context.close();
});

test('a muted author is told so with the time left; one who sends too fast is told how long to wait', async ({ browser, request }) => {
  test.setTimeout(90_000);
  const [ada, ben, cy] = await signUpPlayers(browser, ['ada', 'ben', 'cy']);
  const mod = await signUp(browser, 'mod');
  grantAdmin(mod.name);
  const id = await startedGame(request, [ada!.name, ben!.name, cy!.name], 'flying-dutchman');
  for (const p of [ada!, ben!]) await p.page.goto(`/games/${id}`);
  await expect(chat(ben!.page).getByTestId('chat-input')).toBeVisible();

  // Muted for an hour (the admin's way through the API; the page has no mute form).
  const admin = { authorization: `Bearer ${await accessToken(request, mod.name)}` };
  const muted = await request.post('/api/v1/admin/chat/mutes', { headers: admin, data: { username: ben!.name, minutes: 60, reason: 'insults' } });
  expect(muted.status()).toBe(201);
  const input = chat(ben!.page).getByTestId('chat-input');
  await input.fill('let me talk');
  await input.press('Enter');
  const error = chat(ben!.page).getByTestId('chat-error');
  await expect(error).toHaveText(/^A moderator has muted you in the chat for (59|60) minutes more\.$/);
  await expect(error).toHaveAttribute('role', 'alert');
  await ben!.page.getByLabel('Language').selectOption({ label: '日本語' });
  await expect(error).toHaveText(/^モデレーターによりチャットを制限されています（残り.*(59|60).*）。$/);
  await ben!.page.getByLabel('言語').selectOption({ label: 'English' });
  // Lifted: the same message (its key kept) goes through.
  const userId = ((await muted.json()) as { user_id: string }).user_id;
  expect((await request.delete(`/api/v1/admin/chat/mutes/${userId}`, { headers: admin })).status()).toBe(204);
  await input.press('Enter');
  await expect(input).toHaveValue('');
  await expect(message(ada!.page, 'let me talk')).toBeVisible();

  // Too fast: ada's burst (3 at once, through the API) leaves no room for a fourth in 2 s.
  const adaAuth = { authorization: `Bearer ${await accessToken(request, ada!.name)}` };
  const burst = await Promise.all(
    [1, 2, 3, 4].map((n) =>
      request.post(`/api/v1/games/${id}/chat/table/messages`, {
        headers: { ...adaAuth, 'Idempotency-Key': `burst-${id}-${n}` },
        data: { text: `burst ${n}` },
      }),
    ),
  );
  expect(burst.map((r) => r.status())).toContain(429);
  const adaInput = chat(ada!.page).getByTestId('chat-input');
  await adaInput.fill('one more');
  await adaInput.press('Enter');
  const adaError = chat(ada!.page).getByTestId('chat-error');
  await expect(adaError).toHaveText(/^You are sending too fast; wait [12] seconds? and send again\.$/);
  const wait = Number(/wait (\d+)/.exec((await adaError.textContent()) ?? '')![1]);
  await ada!.page.getByLabel('Language').selectOption({ label: '日本語' });
  await expect(adaError).toHaveText(/^送信が速すぎます。[12]秒待ってから送ってください。$/);
  await ada!.page.getByLabel('言語').selectOption({ label: 'English' });
  // Waiting as told, it goes through.
  await ada!.page.waitForTimeout(wait * 1000 + 100);
  await adaInput.press('Enter');
  await expect(adaInput).toHaveValue('');
  await expect(message(ben!.page, 'one more')).toBeVisible();
  for (const p of [ada!, ben!, cy!, mod]) await p.context.close();
});
