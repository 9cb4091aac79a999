// Helpers for the browser tests.
import { expect, type Browser, type BrowserContext, type Page } from '@playwright/test';

/** A password the server's strength check accepts, different for each player. */
export function passwordOf(name: string): string {
  return `${name} rides the ghost ship at midnight 42`;
}

let counter = 0;
/** A username unique within the run (the server keeps its data for the whole run). */
export function uniqueName(base: string): string {
  counter += 1;
  return `${base}${Date.now().toString(36).slice(-4)}${counter}`;
}

export interface Player {
  name: string;
  context: BrowserContext;
  page: Page;
}

/** A new browser context whose player signs up through the page. */
export async function signUp(browser: Browser, base: string): Promise<Player> {
  const name = uniqueName(base);
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto('/signup');
  await page.getByLabel(/^Username$/).fill(name);
  await page.getByLabel('Email address').fill(`${name}@example.org`);
  await page.getByLabel('Password').fill(passwordOf(name));
  await page.getByRole('button', { name: 'Sign up' }).click();
  await expect(page.getByTestId('signed-in-as')).toHaveText(name);
  return { name, context, page };
}

/** Everything the page keeps where scripts can read it: the DOM and web storage. */
export async function readableState(page: Page): Promise<string> {
  return page.evaluate(() => {
    const storage: string[] = [];
    for (const store of [localStorage, sessionStorage]) {
      for (let i = 0; i < store.length; i++) {
        const key = store.key(i)!;
        storage.push(`${key}=${store.getItem(key)}`);
      }
    }
    return `${document.documentElement.outerHTML}\n${storage.join('\n')}\n${document.cookie}`;
  });
}
