// The deadline calendar through the page: a feed made in Settings (its URL shown once, with a
// copy button) serves, as iCalendar, the games where it is my move; replacing it ends the old
// URL, revoking ends the new one.
import { expect } from '@playwright/test';
import { accessToken, signUp, startedGame, test } from './support';

test.describe.configure({ timeout: 120_000 });

test('a calendar feed made, read, replaced and revoked in Settings', async ({ browser, request }) => {
  const anna = await signUp(browser, 'anna');
  const others = [await signUp(browser, 'bert'), await signUp(browser, 'cleo')];
  for (const other of others) await other.context.close();
  const game = await startedGame(request, [anna.name, ...others.map((o) => o.name)], 'flying-dutchman');
  const { page } = anna;
  await page.getByRole('link', { name: 'Settings' }).click();
  const section = page.getByTestId('calendar');
  await expect(section).toContainText('You have no calendar feed.');

  // Made: the URL is shown once, with a copy button.
  await section.getByRole('button', { name: 'Make a calendar feed' }).click();
  const shown = section.getByTestId('calendar-url');
  await expect(shown).toHaveValue(/\/api\/v1\/calendar\/kontor_cal_[A-Za-z0-9_-]{43}\.ics$/);
  const url = await shown.inputValue();
  await section.getByRole('button', { name: 'Copy' }).click();
  await expect(section.getByText('Copied.')).toBeVisible();
  await expect(section.getByTestId('calendar-exists')).toContainText('You have a calendar feed');

  // The feed: this game exactly when it is Anna's move (she sits in seat 0).
  const feed = await request.get(url);
  expect(feed.status()).toBe(200);
  expect(feed.headers()['content-type']).toBe('text/calendar; charset=utf-8');
  const text = await feed.text();
  expect(text).toContain('BEGIN:VCALENDAR');
  expect(text).toContain('X-WR-CALNAME:Kontor — your moves');
  const token = await accessToken(request, anna.name);
  const detail = await request.get(`/api/v1/games/${game}`, { headers: { authorization: `Bearer ${token}` } });
  const { pending } = (await detail.json()) as { pending: number[] };
  const unfolded = text.replace(/\r\n /g, '');
  if (pending.includes(0)) {
    expect(unfolded).toContain(`UID:${game}-0@kontor`);
    expect(unfolded).toContain('SUMMARY:Your move: The Flying Dutchman vs ');
  } else {
    expect(unfolded).not.toContain('BEGIN:VEVENT');
  }

  // Once dismissed (or after a reload) the URL is nowhere on the page.
  await section.getByRole('button', { name: 'Done' }).click();
  await page.reload();
  await expect(page.getByTestId('calendar-exists')).toBeVisible();
  expect(await page.content()).not.toContain(url);

  // Replaced: a new URL, the old one answers 404.
  await page.getByTestId('calendar').getByRole('button', { name: 'Replace with a new URL' }).click();
  await page.getByRole('button', { name: 'Yes', exact: true }).click();
  const replaced = page.getByTestId('calendar-url');
  await expect(replaced).toHaveValue(/kontor_cal_/);
  const second = await replaced.inputValue();
  expect(second).not.toBe(url);
  expect((await request.get(url)).status()).toBe(404);
  expect((await request.get(second)).status()).toBe(200);

  // Revoked: the new one answers 404 too.
  await page.getByTestId('calendar').getByRole('button', { name: 'Revoke' }).click();
  await page.getByRole('button', { name: 'Yes', exact: true }).click();
  await expect(page.getByTestId('calendar')).toContainText('You have no calendar feed.');
  expect((await request.get(second)).status()).toBe(404);
  await anna.context.close();
});
