// Webhooks through the page: an endpoint added in Settings shows its secret once; a test event
// is queued and appears in the delivery log (the browser tests' server may not reach the
// address, so the line says how the attempt went, whatever it was); test sends beyond the
// hour's are refused in words, in both languages; rotating shows a new secret and how long the
// old one still signs; switching off and deleting.
import { expect } from '@playwright/test';
import { signUp, test } from './support';

test.describe.configure({ timeout: 120_000 });

test('a webhook endpoint added, tested, logged, rotated, switched off and deleted in Settings', async ({ browser }) => {
  const anna = await signUp(browser, 'anna');
  const { page } = anna;
  await page.getByRole('link', { name: 'Settings' }).click();
  const section = page.getByTestId('webhooks');
  await expect(section).toContainText('No webhook endpoints.');

  const form = section.getByTestId('new-webhook');
  await form.getByLabel('URL (https://…)').fill('https://hooks.example/kontor');
  await form.getByLabel('Description').fill('my bot');
  await form.getByRole('checkbox', { name: 'notice.game_over' }).check();
  await form.getByLabel('Body').selectOption('discord');
  await form.getByRole('button', { name: 'Add endpoint' }).click();
  await expect(section.getByTestId('webhook-secret').getByRole('textbox')).toHaveValue(/^whsec_[A-Za-z0-9+/=]+$/);
  await section.getByTestId('webhook-secret').getByRole('button', { name: 'Done' }).click();
  const hook = section.getByTestId('webhook');
  await expect(hook).toHaveCount(1);
  await expect(hook).toContainText('https://hooks.example/kontor');
  await expect(hook).toContainText('notice.game_over, notice.your_turn');
  await expect(hook).toContainText('Discord channel');

  // A plain http:// URL is refused with the server's reason, and nothing is added.
  await form.getByLabel('URL (https://…)').fill('http://hooks.example/kontor');
  await form.getByRole('button', { name: 'Add endpoint' }).click();
  await expect(section.getByRole('alert')).toBeVisible();
  await expect(hook).toHaveCount(1);

  await hook.getByRole('button', { name: 'Send a test event' }).click();
  await expect(hook.getByText('Test event queued.')).toBeVisible();
  await hook.getByRole('button', { name: 'Delivery log' }).click();
  const log = hook.getByTestId('webhook-log');
  await expect(log).toContainText('webhook.test');
  await expect(log).toContainText(/waiting to be sent|being sent|delivered|failed/);
  // The line follows the delivery without a reload: its first try is counted (the address
  // does not resolve here, so it fails and waits for the next).
  await expect(log.locator('li').first()).toContainText(/[1-9] attempts?/, { timeout: 60_000 });

  // Test sends are limited per account (10 an hour, with push tests): the 11th is refused in
  // words, and nothing is queued for it.
  for (let sent = 1; sent < 10; sent++) {
    await hook.getByRole('button', { name: 'Send a test event' }).click();
    await expect(section.getByRole('alert')).not.toContainText('test sends');
  }
  await hook.getByRole('button', { name: 'Send a test event' }).click();
  await expect(section.getByRole('alert')).toContainText('used its test sends for this hour');
  await expect(section.getByRole('alert')).toContainText('try again in');
  await page.getByRole('combobox', { name: 'Language', exact: true }).selectOption('ja');
  await page.getByTestId('webhook').getByRole('button', { name: 'テストイベントを送る' }).click();
  await expect(page.getByTestId('webhooks').getByRole('alert')).toContainText('テスト送信');
  await expect(page.getByTestId('webhooks').getByRole('alert')).toContainText('分後にもう一度お試しください');
  await page.getByRole('combobox', { name: '言語', exact: true }).selectOption('en');

  await hook.getByRole('button', { name: 'Rotate secret' }).click();
  await hook.getByRole('button', { name: 'Yes' }).click();
  await expect(hook.getByTestId('webhook-secret').getByRole('textbox')).toHaveValue(/^whsec_/);
  await expect(hook.getByTestId('webhook-secret')).toContainText('The previous secret still signs until');

  const on = hook.getByRole('checkbox', { name: 'On' });
  await expect(on).toBeChecked();
  // The reload waits for the switch's own request (the box turns at once, the PATCH after).
  const switched = page.waitForResponse((r) => r.request().method() === 'PATCH' && r.url().includes('/api/v1/me/webhooks/'));
  await on.uncheck();
  await expect(on).not.toBeChecked();
  expect((await switched).ok()).toBe(true);
  await page.reload();
  await expect(page.getByTestId('webhook').getByRole('checkbox', { name: 'On' })).not.toBeChecked();

  await page.getByTestId('webhook').getByRole('button', { name: 'Delete' }).click();
  await page.getByTestId('webhook').getByRole('button', { name: 'Yes' }).click();
  await expect(page.getByTestId('webhooks')).toContainText('No webhook endpoints.');
  await anna.context.close();
});
