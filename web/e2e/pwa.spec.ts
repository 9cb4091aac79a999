// The installable page: the manifest and icons, the service worker (registered, showing a push
// delivered through the DevTools protocol, with the game's link), the shell offline with the
// server stopped (and the "offline" banner), a game page through an outage (said where the
// player works, a chat message written meanwhile kept and sent once when the server is back),
// no API answer kept for the next account, and the push part of Settings (the channel per
// kind, the account's devices, "Notify this device" when the browser cannot subscribe).
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { expect, type Browser, type BrowserContext, type Page } from '@playwright/test';
import { accessToken, passwordOf, signUp, signUpIn, startedGame, test, uniqueName, type Player } from './support';
import { startServer } from './server';

test.describe.configure({ timeout: 180_000 });

/** Waits until the service worker is active and controls the page; its script URL. */
async function controlledBy(page: Page): Promise<string> {
  const script = await page.evaluate(async () => (await navigator.serviceWorker.ready).active?.scriptURL ?? '');
  // The first load registers it; it claims the open page as it activates.
  await expect.poll(() => page.evaluate(() => navigator.serviceWorker.controller?.scriptURL ?? '')).toBe(script);
  return script;
}

/** What the worker keeps, every cache's every URL. */
function keptUrls(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const urls: string[] = [];
    for (const name of await caches.keys()) {
      for (const request of await (await caches.open(name)).keys()) urls.push(request.url);
    }
    return urls;
  });
}

test('the manifest, the icons and the service worker', async ({ page, request }) => {
  const manifest = await request.get('/manifest.webmanifest');
  expect(manifest.status()).toBe(200);
  expect(manifest.headers()['content-type']).toMatch(/^application\/manifest\+json/);
  const body = (await manifest.json()) as { name: string; start_url: string; display: string; icons: { src: string; sizes: string; type: string; purpose?: string }[] };
  expect(body).toMatchObject({ name: 'Kontor', start_url: '/', display: 'standalone' });
  for (const size of ['192x192', '512x512']) {
    expect(body.icons.some((i) => i.sizes === size && i.type === 'image/png' && !i.purpose)).toBe(true);
    expect(body.icons.some((i) => i.sizes === size && i.purpose === 'maskable')).toBe(true);
  }
  for (const icon of body.icons) {
    const file = await request.get(icon.src);
    expect(file.status(), icon.src).toBe(200);
    expect(file.headers()['content-type']).toMatch(new RegExp(`^${icon.type.replace('+', '\\+')}`));
  }
  // The worker is never kept long by a cache in between: a new build must reach the browser.
  const worker = await request.get('/sw.js');
  expect(worker.status()).toBe(200);
  expect(worker.headers()['content-type']).toMatch(/javascript/);
  expect(worker.headers()['cache-control']).toBe('no-cache');
  expect(await worker.text()).not.toContain("version: 'dev'");

  await page.goto('/');
  await expect(page.locator('link[rel="manifest"]')).toHaveAttribute('href', '/manifest.webmanifest');
  await expect(page.locator('meta[name="theme-color"]')).toHaveAttribute('content', '#1f5fa8');
  expect(await controlledBy(page)).toMatch(/\/sw\.js$/);
  // The shell and the built files are kept; the API never is.
  const kept = await keptUrls(page);
  expect(kept).toContain(new URL('/', page.url()).href);
  expect(kept.some((u) => /\/assets\/index-[^/]+\.js$/.test(u))).toBe(true);
  expect(kept.filter((u) => u.includes('/api/'))).toEqual([]);
});

/** The registration id of the worker at `scope`, from the DevTools protocol. */
async function registrationId(context: BrowserContext, page: Page, scope: string) {
  const cdp = await context.newCDPSession(page);
  const registrations = new Map<string, string>();
  cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations: updated }) => {
    for (const r of updated) if (!r.isDeleted) registrations.set(r.scopeURL, r.registrationId);
  });
  await cdp.send('ServiceWorker.enable');
  await expect.poll(() => registrations.get(scope)).toBeTruthy();
  return { cdp, id: registrations.get(scope)! };
}

interface Shown {
  title: string;
  body: string;
  tag: string;
  url: string | undefined;
}

function shownNotifications(page: Page): Promise<Shown[]> {
  return page.evaluate(async () =>
    (await (await navigator.serviceWorker.ready).getNotifications()).map((n) => ({
      title: n.title,
      body: n.body,
      tag: n.tag,
      url: (n.data as { url?: string } | null)?.url,
    })),
  );
}

test('a push message shows a notification with its title and the game link', async ({ browser, baseURL }) => {
  const origin = new URL(baseURL!).origin;
  const context = await browser.newContext();
  await context.grantPermissions(['notifications'], { origin });
  const page = await context.newPage();
  await page.goto('/');
  await controlledBy(page);
  const { cdp, id } = await registrationId(context, page, `${origin}/`);
  const deliver = (data: string) => cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId: id, data });

  // The server's payload: title, body and tag as sent, the link kept to open the game.
  const game = `${origin}/games/0d5c5a52-8f39-4c43-9d3e-4ad0f6b9a111`;
  await deliver(JSON.stringify({ kind: 'your_turn', title: 'Your turn in Flying Dutchman', body: 'Anna moved; it is your turn.', url: game, game_id: '0d5c5a52-8f39-4c43-9d3e-4ad0f6b9a111', tag: 'turn-0d5c' }));
  await expect.poll(() => shownNotifications(page)).toEqual([{ title: 'Your turn in Flying Dutchman', body: 'Anna moved; it is your turn.', tag: 'turn-0d5c', url: game }]);

  // The same tag replaces the notification instead of piling up.
  await deliver(JSON.stringify({ kind: 'your_turn', title: 'Your turn again', body: 'Still yours.', url: game, game_id: 'x', tag: 'turn-0d5c' }));
  await expect.poll(() => shownNotifications(page)).toEqual([{ title: 'Your turn again', body: 'Still yours.', tag: 'turn-0d5c', url: game }]);

  // A link elsewhere is not followed: the notification opens the site instead.
  await deliver(JSON.stringify({ kind: 'invited', title: 'Invited', body: 'b', url: 'https://elsewhere.example/phish', game_id: 'y', tag: 'invite' }));
  await expect.poll(async () => (await shownNotifications(page)).find((n) => n.tag === 'invite')?.url).toBe(`${origin}/`);

  // Not JSON: shown as text under the site's name.
  await deliver('plain words');
  await expect.poll(async () => (await shownNotifications(page)).find((n) => n.body === 'plain words')?.title).toBe('Kontor');
  await context.close();
});

test('no API answer is kept: the next account on the device sees its own', async ({ browser }) => {
  const anna = await signUp(browser, 'anna');
  const { page, context } = anna;
  await controlledBy(page);
  await page.getByRole('link', { name: 'Settings' }).click();
  await expect(page.getByTestId('notifications')).toBeVisible();
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page.getByTestId('signed-in-as')).toHaveCount(0);

  // Bob signs in on the same device (the same worker, the same caches).
  const bob = uniqueName('bob');
  const other = await signUp(browser, 'bob', bob);
  await other.context.close();
  await page.goto('/signin');
  await page.getByLabel('Username or email address').fill(bob);
  await page.getByLabel('Password').fill(passwordOf(bob));
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByTestId('signed-in-as')).toHaveText(bob);
  await page.reload();
  await expect(page.getByTestId('signed-in-as')).toHaveText(bob);
  const kept = await keptUrls(page);
  expect(kept.length).toBeGreaterThan(0);
  expect(kept.filter((u) => u.includes('/api/'))).toEqual([]);
  await context.close();
});

test('with the server stopped the shell still loads and says it is offline', async ({ browser }) => {
  const server = await startServer('test-results/offline-server.log', {});
  try {
    const context = await browser.newContext({ baseURL: server.url });
    const page = await context.newPage();
    await page.goto('/');
    await controlledBy(page);
    await expect(page.getByRole('link', { name: 'Sign in' })).toBeVisible();
    await expect(page.getByTestId('offline')).toBeHidden();
    const name = uniqueName('olga');
    await page.goto('/signup');
    await page.getByLabel(/^Username$/).fill(name);
    await page.getByLabel('Email address').fill(`${name}@example.org`);
    await page.getByLabel('Password').fill(passwordOf(name));
    await page.getByRole('button', { name: 'Sign up' }).click();
    await expect(page.getByTestId('signed-in-as')).toHaveText(name);

    await server.stop();
    await page.reload();
    await expect(page.getByRole('link', { name: 'Kontor' })).toBeVisible();
    await expect(page.getByTestId('offline')).toBeVisible();
    await expect(page.getByTestId('offline')).toContainText('Offline: the server cannot be reached.');
    // A server that does not answer has not signed anyone out: no sign-in form is offered.
    await expect(page.getByRole('link', { name: 'Sign in' })).toHaveCount(0);
    // A screen's own path gets the shell too; an API request gets no kept answer.
    await page.goto('/games/0d5c5a52-8f39-4c43-9d3e-4ad0f6b9a111');
    await expect(page.getByTestId('offline')).toBeVisible();
    expect(await page.evaluate(() => fetch('/api/v1/games').then(() => 'answered', () => 'failed'))).toBe('failed');
    // In Japanese too.
    await page.getByRole('combobox', { name: 'Language' }).selectOption('ja');
    await expect(page.getByTestId('offline')).toContainText('オフライン');
    await context.close();
  } finally {
    await server.stop();
  }
});

test('with the server gone the game page says so where the player works, keeps a message written meanwhile, and sends it once when the server is back', async ({ browser }) => {
  const server = await startServer('test-results/outage-server.log', {});
  try {
    const contexts = [await browser.newContext({ baseURL: server.url }), await browser.newContext({ baseURL: server.url }), await browser.newContext({ baseURL: server.url })];
    const [ada, ben, cy] = [await signUpIn(contexts[0]!, uniqueName('ada')), await signUpIn(contexts[1]!, uniqueName('ben')), await signUpIn(contexts[2]!, uniqueName('cy'))];
    const api = contexts[2]!.request;
    const id = await startedGame(api, [ada.name, ben.name, cy.name], 'flying-dutchman');
    // Ada reads the page in Japanese, Ben in English.
    const japanese = await api.put('/api/v1/me/profile', { headers: { authorization: `Bearer ${await accessToken(api, ada.name)}` }, data: { language: 'ja' } });
    expect(japanese.ok()).toBe(true);
    const words = {
      [ada.name]: {
        lang: 'ja',
        offline: 'オフライン：サーバーに接続できません。',
        unsent: '未送信：サーバーに接続できません。接続が戻ると自動で送信されます。',
        kept: 'サーバーに接続できません。メッセージは保存され、接続が戻ると送信されます。',
        text: 'サーバーが止まっている間に書いた一言',
      },
      [ben.name]: {
        lang: 'en',
        offline: 'Offline: the server cannot be reached.',
        unsent: 'Not sent yet: the server cannot be reached. It goes by itself when the server is back.',
        kept: 'The server cannot be reached: your message is kept and goes when the server is back.',
        text: 'Written while the server was away',
      },
    };
    const chat = (p: Player) => p.page.getByTestId('chat');
    const said = (p: Player, text: string) => chat(p).getByTestId('chat-lines').getByTestId('chat-message').filter({ hasText: text });
    for (const p of [ada, ben]) {
      await p.page.goto(`/games/${id}`);
      await expect(p.page.locator('html')).toHaveAttribute('lang', words[p.name]!.lang);
      await expect(chat(p).getByTestId('chat-input')).toBeVisible();
      // The worker serves the page's shell while the server is away (a reload then).
      await controlledBy(p.page);
      await expect(p.page.getByTestId('offline')).toBeHidden();
    }

    await server.halt();
    for (const p of [ada, ben]) {
      const w = words[p.name]!;
      // Each page learns it from its stream, before anyone does anything.
      await expect(p.page.getByTestId('offline')).toContainText(w.offline);
      // A message written now is kept in the chat, marked as not sent, with why; nothing is lost.
      const input = chat(p).getByTestId('chat-input');
      await input.fill(w.text);
      await input.press('Enter');
      await expect(input).toHaveValue('');
      const unsent = chat(p).getByTestId('chat-unsent');
      await expect(unsent).toHaveCount(1);
      await expect(unsent).toContainText(w.text);
      await expect(unsent).toContainText(w.unsent);
      await expect(chat(p).getByTestId('chat-kept')).toHaveText(w.kept);
      await expect(chat(p).getByTestId('chat-error')).toHaveCount(0);
      // The outage stays in sight wherever the player is on the page.
      await p.page.evaluate(() => window.scrollTo(0, document.body.scrollHeight));
      await expect(p.page.getByTestId('offline')).toBeInViewport();
    }
    // Ada reloads while the server is still away: the worker's shell, the message waiting in the tab.
    await ada.page.reload();
    await expect(ada.page.getByTestId('offline')).toContainText(words[ada.name]!.offline);

    await server.restart();
    // Each page comes back by itself (the page asks the server every 5 s while it is away; a
    // stream retries after at most 15 s), and each message goes once, seen once by all.
    for (const p of [ada, ben]) {
      await expect(p.page.getByTestId('offline')).toBeHidden({ timeout: 30_000 });
      for (const w of [words[ada.name]!, words[ben.name]!]) await expect(said(p, w.text)).toHaveCount(1, { timeout: 30_000 });
      await expect(chat(p).getByTestId('chat-unsent')).toHaveCount(0);
    }
    const listed = await api.get(`/api/v1/games/${id}/chat/table/messages`, { headers: { authorization: `Bearer ${await accessToken(api, cy.name)}` } });
    expect(listed.ok()).toBe(true);
    const texts = ((await listed.json()) as { items: { text: string | null }[] }).items.map((m) => m.text);
    expect(texts.filter((t) => t === words[ada.name]!.text)).toHaveLength(1);
    expect(texts.filter((t) => t === words[ben.name]!.text)).toHaveLength(1);
    for (const c of contexts) await c.close();
  } finally {
    await server.stop();
  }
});

/** A push subscription as a browser makes one (a P-256 key and an auth secret), for an
 * endpoint that is never reached in this test. */
function madeUpSubscription() {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const jwk = publicKey.export({ format: 'jwk' });
  const raw = Buffer.concat([Buffer.from([4]), Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
  return {
    endpoint: `https://push.example.org/send/${randomBytes(8).toString('hex')}`,
    keys: { p256dh: raw.toString('base64url'), auth: randomBytes(16).toString('base64url') },
  };
}

test('settings: the channel per kind, and the devices with a test and removal', async ({ browser, request }) => {
  const anna = await signUp(browser, 'anna');
  const { page } = anna;
  const token = await accessToken(request, anna.name);
  const auth = { authorization: `Bearer ${token}` };
  const phone = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
  const registered = await request.post('/api/v1/me/push-subscriptions', { headers: { ...auth, 'user-agent': phone }, data: madeUpSubscription() });
  expect(registered.status()).toBe(201);

  await page.goto('/settings');
  // Push only for "your turn": no mail, and the choice kept.
  const turn = page.getByLabel('It is my turn in a game');
  await turn.selectOption({ label: 'Push notification' });
  await expect(page.getByText('Saved.')).toBeVisible();
  await page.getByLabel('A game I played has ended').selectOption({ label: 'Mail at once' });
  await expect(page.getByText('Saved.')).toBeVisible();
  await page.reload();
  await expect(turn).toHaveValue('push+off');
  await expect(page.getByLabel('A game I played has ended')).toHaveValue('immediately');
  const prefs = (await (await request.get('/api/v1/me/notifications', { headers: auth })).json()) as Record<string, unknown> & { push: Record<string, boolean> };
  expect(prefs).toMatchObject({ your_turn: 'off', game_over: 'immediately' });
  expect(prefs.push).toMatchObject({ your_turn: true, game_over: false });

  // This browser has no subscription (headless Chromium reaches no push service); the
  // account's other device is listed, tested and removed.
  const push = page.getByTestId('push');
  await expect(push.getByTestId('push-state')).toHaveText('This device gets no push notifications.');
  // The browser's permission was not given (the test answers no prompt): nothing is subscribed.
  await push.getByRole('button', { name: 'Notify this device' }).click();
  await expect(push.getByText('Notifications were not allowed.')).toBeVisible();
  const device = push.getByTestId('push-device');
  await expect(device).toHaveCount(1);
  await expect(device).toContainText('Chrome · Android');
  // Its push service is a made-up name that no resolver knows: the test says it did not go.
  await device.getByRole('button', { name: 'Send a test' }).click();
  await expect(push.getByRole('alert')).toContainText('The push service did not take the test notification');
  await device.getByRole('button', { name: 'Remove' }).click();
  await page.getByRole('button', { name: 'Yes', exact: true }).click();
  await expect(push.getByText('No device gets push notifications.')).toBeVisible();
  expect(await (await request.get('/api/v1/me/push-subscriptions', { headers: auth })).json()).toEqual([]);
  await anna.context.close();
});

const PUSH_WORDS = {
  en: {
    notify: 'Notify this device',
    off: 'This device gets no push notifications.',
    asking: 'Asking the browser…',
    refused: 'This browser refused push notifications (in a private window, for example, push is off).',
    unreachable: 'This browser could not reach its push service, so this device cannot be notified now. Try again later, or use mail.',
  },
  ja: {
    notify: 'このデバイスに通知する',
    off: 'このデバイスはプッシュ通知を受け取りません。',
    asking: 'ブラウザーに問い合わせています…',
    refused: 'このブラウザーはプッシュ通知を受け付けませんでした（たとえばプライベートウィンドウではプッシュ通知は使えません）。',
    unreachable: 'このブラウザーはプッシュサービスに接続できなかったため、今はこのデバイスに通知できません。時間をおいて試すか、メールをお使いください。',
  },
};

/**
 * Signs a player up with notifications allowed for the site and opens Settings; then, in
 * English and in Japanese, presses "Notify this device" and expects `said` (a key of
 * PUSH_WORDS) in the page's language within `within` ms, never the browser's own English
 * words, and the button ready to be pressed again.
 */
async function notifyFails(browser: Browser, baseURL: string, said: 'refused' | 'unreachable', within: number, setUp?: (context: BrowserContext) => Promise<unknown>) {
  const anna = await signUp(browser, 'anna');
  const { page, context } = anna;
  await context.grantPermissions(['notifications'], { origin: new URL(baseURL).origin });
  await setUp?.(context);
  // A new document, so that what `setUp` added to the page applies.
  await page.goto('/settings');
  await expect(page.getByTestId('signed-in-as')).toHaveText(anna.name);
  await controlledBy(page);
  const push = page.getByTestId('push');
  for (const lang of ['en', 'ja'] as const) {
    const words = PUSH_WORDS[lang];
    await page.getByRole('banner').getByRole('combobox', { name: /Language|言語/ }).selectOption(lang);
    await expect(page.locator('html')).toHaveAttribute('lang', lang);
    await expect(push.getByTestId('push-state')).toHaveText(words.off);
    const notify = push.getByRole('button', { name: words.notify });
    await notify.click();
    // While the browser is asked, the page says so (a refusal comes too soon to see it).
    if (said === 'unreachable') await expect(push.getByTestId('push-note')).toHaveText(words.asking);
    await expect(push.getByRole('alert')).toHaveText(words[said], { timeout: within });
    await expect(push).not.toContainText(/Registration failed|permission denied|push service (error|not available)|DOMException|AbortError|NotAllowedError/i);
    await expect(push.getByTestId('push-note')).toBeEmpty();
    await expect(notify).toBeEnabled();
    await expect(push.getByTestId('push-state')).toHaveText(words.off);
  }
  await context.close();
}

test('push: allowed, but the browser refuses to subscribe: the page says so in its language, not the browser\'s words', async ({ browser, baseURL }) => {
  // Headless Chromium, like a private window, refuses at once with "AbortError: Registration
  // failed - permission denied" although the site's notifications are allowed.
  await notifyFails(browser, baseURL!, 'refused', 15_000);
});

test('push: allowed, with a push service that never answers: the page says it could not be reached', async ({ browser, baseURL }) => {
  // A browser whose push service cannot be reached (no network to it) waits over a minute
  // before it fails. Headless Chromium has no push service to wait for, so the third party's
  // silence is stood in for: the browser's subscribe never settles. Everything else is real.
  // The page gives the browser SUBSCRIBE_TIMEOUT_MS (10 s, web/src/api/push.ts), then says
  // so: waited for here a little longer than that, above the 15 s expect timeout's margin.
  await notifyFails(browser, baseURL!, 'unreachable', 20_000, (context) =>
    context.addInitScript(() => {
      PushManager.prototype.subscribe = () => new Promise<PushSubscription>(() => {});
    }),
  );
});
