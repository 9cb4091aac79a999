// An account through the page and its mail: the verification link from the sign-up mail
// verifies the address; the profile's language switches the page; a forgotten password is
// reset by the mailed link (and the old one stops working); the sign-ins are listed and the
// others ended, and the password changed; an account is deleted after its password and a
// confirmation, and signs in no more. Mail arrives as .eml files (the test
// server has no SMTP), read as a mail client would.
import { expect, type APIRequestContext } from '@playwright/test';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { passwordOf, signUp, test } from './support';

test.describe.configure({ timeout: 120_000 });

/** The text of a quoted-printable mail, soft line breaks joined and `=XX` decoded. */
function decoded(eml: string): string {
  const bytes = eml
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** The link of the newest mail of `kind` to `name` that holds one to `path`, once it is there. */
async function mailedLink(name: string, kind: string, path: string): Promise<string> {
  const dir = process.env.KONTOR_E2E_MAIL_DIR!;
  const link = new RegExp(`http://[^\\s"]+/${path}\\?token=[A-Za-z0-9_-]+`);
  let found = '';
  await expect
    .poll(
      () => {
        const files = readdirSync(dir, { withFileTypes: true })
          .filter((f) => f.isFile() && f.name.endsWith(`-${kind}.eml`))
          .map((f) => decoded(readFileSync(join(dir, f.name), 'latin1')))
          .filter((mail) => mail.includes(`To: ${name} <`));
        found = files.map((mail) => link.exec(mail)?.[0] ?? '').filter(Boolean).pop() ?? '';
        return found;
      },
      { timeout: 30_000, message: `a ${kind} mail to ${name}` },
    )
    .not.toBe('');
  return found;
}

async function logsIn(request: APIRequestContext, name: string, password: string): Promise<number> {
  const response = await request.post('/api/v1/auth/login', { data: { username: name, password } });
  return response.status();
}

test('the sign-up mail verifies the address, and the profile language switches the page', async ({ browser }) => {
  const anna = await signUp(browser, 'anna');
  const { page } = anna;
  const link = await mailedLink(anna.name, 'verify_email', 'verify-email');
  await page.goto(link);
  await expect(page.getByTestId('verified')).toHaveText(`Thank you: ${anna.name}@example.org is verified.`);
  // The token is gone from the address bar once sent.
  expect(page.url()).not.toContain('token=');
  // The same link again is refused in words.
  const second = await browser.newPage();
  await second.goto(link);
  await expect(second.getByRole('alert')).toBeVisible();
  await second.close();

  await page.goto('/settings');
  // Times are shown in the profile's time zone (UTC for a new account), named.
  const signIn = page.getByTestId('sessions').getByTestId('session-row');
  await expect(signIn).toContainText('UTC');
  const profile = page.getByTestId('profile');
  await profile.getByTestId('display-name').fill('Anna K.');
  await profile.getByLabel('Language of mails and of this page').selectOption('ja');
  await profile.getByLabel('Time zone').fill('Asia/Tokyo');
  await profile.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('heading', { name: '設定' })).toBeVisible();
  // ...and in the new zone as soon as it is saved, whatever the browser's own zone.
  await expect(signIn).toContainText(/JST|GMT\+9/);
  await expect(signIn).not.toContainText('UTC');
  await page.reload();
  await expect(page.getByTestId('display-name')).toHaveValue('Anna K.');
  // Signed in from another browser, in English, the page is in the account's language.
  const other = await browser.newContext({ locale: 'en-US' });
  const elsewhere = await other.newPage();
  await elsewhere.goto('/signin');
  await elsewhere.getByLabel('Username').fill(anna.name);
  await elsewhere.getByLabel('Password').fill(passwordOf(anna.name));
  await elsewhere.getByRole('button', { name: 'Sign in' }).click();
  await expect(elsewhere.locator('html')).toHaveAttribute('lang', 'ja');
  await expect(elsewhere.getByRole('link', { name: '設定' })).toBeVisible();
  await other.close();
  await anna.context.close();
});

test('a forgotten password is reset by the mailed link, which works once', async ({ browser, request }) => {
  const bert = await signUp(browser, 'bert');
  await bert.context.close();
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto('/signin');
  await page.getByRole('link', { name: 'Forgot password?' }).click();
  await page.getByLabel('Username or email address').fill(bert.name);
  await page.getByRole('button', { name: 'Mail me a link' }).click();
  await expect(page.getByText('a link to choose a new password is on its way')).toBeVisible();

  const link = await mailedLink(bert.name, 'password_reset', 'reset-password');
  await page.goto(link);
  const fresh = `${passwordOf(bert.name)} and a new moon`;
  await page.getByLabel('New password').fill(fresh);
  await page.getByRole('button', { name: 'Set the password' }).click();
  await expect(page.getByTestId('reset-done')).toContainText('Your password is set.');
  expect(await logsIn(request, bert.name, passwordOf(bert.name))).toBe(401);
  expect(await logsIn(request, bert.name, fresh)).toBe(200);
  // Used once, the link is refused.
  await page.goto(link);
  await page.getByLabel('New password').fill(`${fresh} again`);
  await page.getByRole('button', { name: 'Set the password' }).click();
  await expect(page.getByRole('alert')).toBeVisible();
  await context.close();
});

test('an account is deleted after its password and a confirmation', async ({ browser, request }) => {
  const cleo = await signUp(browser, 'cleo');
  const { page } = cleo;
  await page.goto('/settings');
  const section = page.getByTestId('delete-account');
  await section.getByLabel('Your password, to confirm').fill(passwordOf(cleo.name));
  await section.getByRole('button', { name: 'Delete account' }).click();
  await section.getByRole('button', { name: 'Yes' }).click();
  await expect(page.getByTestId('signed-in-as')).toHaveCount(0);
  expect(await logsIn(request, cleo.name, passwordOf(cleo.name))).toBe(401);
  await cleo.context.close();
});

test('the sign-ins are listed, others are ended from one, and the password is changed', async ({ browser, request }) => {
  const dora = await signUp(browser, 'dora');
  // A second sign-in, in another browser.
  const other = await browser.newContext();
  const elsewhere = await other.newPage();
  await elsewhere.goto('/signin');
  await elsewhere.getByLabel('Username').fill(dora.name);
  await elsewhere.getByLabel('Password').fill(passwordOf(dora.name));
  await elsewhere.getByRole('button', { name: 'Sign in' }).click();
  await expect(elsewhere.getByTestId('signed-in-as')).toHaveText(dora.name);

  const { page } = dora;
  await page.goto('/settings');
  const sessions = page.getByTestId('sessions');
  await expect(sessions.getByTestId('session-row')).toHaveCount(2);
  await expect(sessions.getByTestId('session-row').filter({ hasText: 'this device' })).toHaveCount(1);
  await page.getByRole('button', { name: 'Sign out everywhere else' }).click();
  await page.getByRole('button', { name: 'Yes' }).click();
  await expect(sessions.getByTestId('session-row')).toHaveCount(1);
  // The other browser's sign-in is over: after a reload it is signed out.
  await elsewhere.reload();
  await expect(elsewhere.getByRole('link', { name: 'Sign in' })).toBeVisible();
  await expect(elsewhere.getByTestId('signed-in-as')).toHaveCount(0);

  const form = page.getByTestId('password');
  const fresh = `${passwordOf(dora.name)} under a new moon`;
  await form.getByLabel('Current password').fill(passwordOf(dora.name));
  await form.getByLabel('New password').fill(fresh);
  await form.getByRole('button', { name: 'Change the password' }).click();
  await expect(page.getByText('Changed. 0 other sign-ins ended.')).toBeVisible();
  expect(await logsIn(request, dora.name, passwordOf(dora.name))).toBe(401);
  expect(await logsIn(request, dora.name, fresh)).toBe(200);
  await dora.context.close();
  await other.close();
});
