import { expect, test } from '@playwright/test';
import { readableState, signUp } from './support';

test('a player signs up, stays signed in across a reload, and signs out', async ({ browser }) => {
  const anna = await signUp(browser, 'anna');
  await anna.page.reload();
  await expect(anna.page.getByTestId('signed-in-as')).toHaveText(anna.name);
  // The refresh token is an HttpOnly cookie: no script of the page can read a token.
  const cookies = await anna.context.cookies();
  const session = cookies.find((c) => c.name === 'kontor_session');
  expect(session?.httpOnly).toBe(true);
  expect(session?.sameSite).toBe('Strict');
  const state = await readableState(anna.page);
  expect(state).not.toContain('kontor_rt_');
  expect(state).not.toMatch(/eyJ[\w-]+\.eyJ/);
  await anna.page.getByRole('button', { name: 'Sign out' }).click();
  await expect(anna.page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await anna.page.reload();
  await expect(anna.page.getByRole('heading', { name: 'Sign in' })).toBeVisible();
  await anna.context.close();
});

test('the page has a strict content security policy', async ({ request }) => {
  const response = await request.get('/');
  expect(response.status()).toBe(200);
  const csp = response.headers()['content-security-policy'] ?? '';
  expect(csp).toContain("script-src 'self'");
  expect(csp).not.toContain('unsafe-inline');
});
