// Settings through the page: notification preferences kept, a vacation started and ended,
// an API token created (shown once, working), then revoked (no longer working).
import { expect } from '@playwright/test';
import { signUp, test } from './support';

// Short tests: a stuck one fails in two minutes, not in the whole-game timeout.
test.describe.configure({ timeout: 120_000 });

test('notifications, vacation and API tokens', async ({ browser, request }) => {
  const anna = await signUp(browser, 'anna');
  const { page } = anna;
  await page.getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByRole('heading', { name: 'Settings' })).toBeFocused();

  // A preference is saved at once and still there after a reload.
  await page.getByLabel('It is my turn in a game').selectOption({ label: 'Mail in the daily digest' });
  await expect(page.getByText('Saved.')).toBeVisible();
  await page.getByLabel('Mail "your turn" even while I watch').check();
  await page.getByLabel("Someone mentioned me (@name) in a game's chat").selectOption({ label: 'Nothing' });
  await expect(page.getByText('Saved.')).toBeVisible();
  await page.reload();
  await expect(page.getByLabel("Someone mentioned me (@name) in a game's chat")).toHaveValue('off');
  await expect(page.getByLabel('It is my turn in a game')).toHaveValue('digest');
  // Untouched: mail at once and push, the defaults.
  await expect(page.getByLabel('A game I played has ended')).toHaveValue('push+immediately');
  await expect(page.getByLabel('Mail "your turn" even while I watch')).toBeChecked();

  // Vacation: three days taken from the allowance, given back when it ends early.
  const vacation = page.getByTestId('vacation');
  await expect(vacation).toContainText('30 of 30 days left this year.');
  await vacation.getByLabel('Days').fill('3');
  await vacation.getByRole('button', { name: 'Go on vacation now' }).click();
  await expect(vacation).toContainText('On vacation until');
  await expect(vacation).toContainText('27 of 30 days left');
  await vacation.getByRole('button', { name: 'End the vacation now' }).click();
  await expect(vacation).not.toContainText('On vacation until');
  await expect(vacation.getByRole('button', { name: 'Go on vacation now' })).toBeVisible();

  // A token: shown once, and it works against the API.
  await page.getByLabel('Name', { exact: true }).fill('my bot');
  await page.getByLabel('play moves (game:play)').uncheck();
  await page.getByRole('button', { name: 'Create token' }).click();
  const shown = page.getByTestId('token-value');
  await expect(shown).toHaveValue(/^kontor_pat_/);
  const token = await shown.inputValue();
  await page.getByRole('button', { name: 'Copy' }).click();
  await expect(page.getByText('Copied.')).toBeVisible();
  const row = page.getByTestId('token-row').filter({ hasText: 'my bot' });
  await expect(row).toContainText('game:read');
  await expect(row).not.toContainText('game:play');
  const prefix = token.slice(0, 15);
  await expect(row).toContainText(prefix);
  const asBot = () => request.get('/api/v1/games?view=mine', { headers: { authorization: `Bearer ${token}` } });
  expect((await asBot()).status()).toBe(200);

  // Once dismissed (or after a reload) the token itself is nowhere on the page.
  await page.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByTestId('new-token')).toHaveCount(0);
  await page.reload();
  await expect(page.getByTestId('token-row')).toHaveCount(1);
  expect(await page.content()).not.toContain(token);

  // Revoking asks first, then the token stops working at once.
  await page.getByTestId('token-row').getByRole('button', { name: 'Revoke' }).click();
  await page.getByRole('button', { name: 'Yes', exact: true }).click();
  await expect(page.getByText('No tokens.')).toBeVisible();
  expect((await asBot()).status()).toBe(401);
  await anna.context.close();
});
