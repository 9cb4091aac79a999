// An axe-core pass over every screen of the page, on a desktop and a phone, in English and
// Japanese: no serious or critical violation anywhere. The games are set up once through
// the API (a waiting room and a started game of each kind; a finished one of each imported
// from the golden logs), so the pass visits screens and never plays. The Flying Dutchman's bid
// composer, shown only to the seat to act, is checked on that seat's page, with a horseshoe
// chosen too.
import { AxeBuilder } from '@axe-core/playwright';
import { expect, type APIRequestContext, type Page } from '@playwright/test';
import { accessToken, importFinished, signUpPlayers, startedGame, test, type Player } from './support';

test.describe.configure({ timeout: 600_000 });

const VIEWPORTS = [
  { name: 'desktop', width: 1280, height: 800 },
  { name: 'phone', width: 360, height: 740 },
] as const;
const LANGS = ['en', 'ja'] as const;

/** Fails with every serious or critical violation on the page as it is now, with where. */
async function expectAccessible(page: Page, screen: string) {
  // The axe-core that @axe-core/playwright bundles (4.13) counts label-content-name-mismatch
  // (a control's accessible name must contain its visible text) as experimental and leaves it
  // off; issue 38 found it on the bid composer's horseshoes, so it is on here.
  const results = await new AxeBuilder({ page }).options({ rules: { 'label-content-name-mismatch': { enabled: true } } }).analyze();
  const bad = results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).slice(0, 4).join(' | ')}`);
  // Soft: one run lists every screen's violations, not only the first.
  expect.soft(bad, `${screen}: serious or critical axe violations`).toEqual([]);
}

interface Screen {
  name: string;
  path: string;
  /** Waits until the screen has loaded what it shows. */
  ready: (page: Page) => Promise<void>;
}

async function createGame(request: APIRequestContext, token: string, kind: string, seats: number): Promise<string> {
  const response = await request.post('/api/v1/games', { headers: { authorization: `Bearer ${token}` }, data: { kind, seats } });
  expect(response.status()).toBe(201);
  return ((await response.json()) as { id: string }).id;
}

async function join(request: APIRequestContext, token: string, id: string) {
  expect((await request.post(`/api/v1/games/${id}/join`, { headers: { authorization: `Bearer ${token}` }, data: {} })).ok()).toBe(true);
}

const heading = (page: Page) => expect(page.locator('main h1').first()).toBeVisible();

test('every screen passes axe (no serious or critical violation), desktop and phone, English and Japanese', async ({
  browser,
  request,
}) => {
  const [anna, bert, cara] = await signUpPlayers(browser, ['anna', 'bert', 'cara']);
  const tokens = await Promise.all([anna, bert, cara].map((p) => accessToken(request, p!.name)));
  const [annaToken] = tokens as [string, string, string];
  const games: Record<string, string> = {};
  for (const kind of ['flying-dutchman', 'steel-driver']) {
    games[`${kind} waiting room`] = await createGame(request, annaToken, kind, 3);
    const started = await createGame(request, annaToken, kind, 3);
    for (const token of tokens.slice(1)) await join(request, token, started);
    games[`${kind} mid-game`] = started;
  }
  // A message at the table of the running game, so the chat pane is checked with a message in it.
  const said = await request.post(`/api/v1/games/${games['flying-dutchman mid-game']}/chat/table/messages`, {
    headers: { authorization: `Bearer ${tokens[1]}`, 'idempotency-key': 'a11y-chat-1' },
    data: { text: 'Hello https://example.org table' },
  });
  expect(said.status()).toBe(201);
  games['flying-dutchman finished'] = await importFinished(request, anna!.name, 'flying-dutchman-4p.ndjson');
  games['steel-driver finished'] = await importFinished(request, anna!.name, 'steel-driver-3p.ndjson');

  const board = async (page: Page) => {
    await expect(page.getByTestId('board-frame')).toBeVisible();
    // The log is read (it stands folded under History while the game runs).
    await expect(page.getByTestId('log').locator('li').first()).toBeAttached();
  };
  const signedIn: Screen[] = [
    { name: 'lobby', path: '/', ready: async (p) => expect(p.getByTestId('list-open')).toHaveAttribute('data-loaded', 'true') },
    { name: 'new game', path: '/new', ready: heading },
    { name: 'settings', path: '/settings', ready: async (p) => expect(p.getByTestId('profile').getByRole('button', { name: /Save|保存/ })).toBeVisible() },
    { name: 'not found', path: '/games/no/such-screen', ready: heading },
    { name: 'profile', path: `/players/${anna!.name}`, ready: async (p) => expect(p.getByTestId('profile-name')).toBeVisible() },
    { name: 'leaderboard', path: '/leaderboards/steel-driver', ready: heading },
    { name: 'missing game', path: '/games/00000000-0000-7000-8000-000000000000', ready: async (p) => expect(p.getByTestId('game-missing')).toBeVisible() },
    ...Object.entries(games).map(([name, id]) => ({
      name,
      path: `/games/${id}`,
      ready: name.endsWith('waiting room')
        ? async (p: Page) => expect(p.getByTestId('seats')).toBeVisible()
        : name.endsWith('finished')
          ? async (p: Page) => {
              await board(p);
              await expect(p.getByTestId('verification')).toHaveAttribute('data-verified', 'true');
            }
          : board,
    })),
    {
      // The chat pane with a message; on a phone, its tab beside the board.
      name: 'flying-dutchman chat',
      path: `/games/${games['flying-dutchman mid-game']}`,
      ready: async (p: Page) => {
        await board(p);
        const phone = p.getByTestId('phone-chat');
        await expect.poll(async () => (await p.getByTestId('chat').isVisible()) || (await phone.isVisible())).toBe(true);
        if (await phone.isVisible()) await phone.click();
        await expect(p.getByTestId('chat-lines').getByTestId('chat-message')).toBeVisible();
      },
    },
    ...['flying-dutchman', 'steel-driver'].map((kind) => ({
      name: `${kind} replay`,
      path: `/games/${games[`${kind} finished`]}?at=5`,
      ready: async (p: Page) => expect(p.getByTestId('board-frame')).toHaveAttribute('data-at-version', '5'),
    })),
  ];
  const signedOut: Screen[] = [
    { name: 'sign in', path: '/signin', ready: heading },
    { name: 'sign up', path: '/signup', ready: heading },
    { name: 'reset password', path: '/reset-password', ready: heading },
    { name: 'verify email', path: '/verify-email', ready: heading },
    { name: 'game signed out', path: `/games/${games['steel-driver finished']}`, ready: heading },
  ];

  const guest = await browser.newContext();
  const guestPage = await guest.newPage();
  for (const lang of LANGS) {
    // Signed in, the page is in the account's language; signed out, in the one chosen.
    await request.put('/api/v1/me/profile', { headers: { authorization: `Bearer ${annaToken}` }, data: { language: lang } });
    await guestPage.goto('/signin');
    await guestPage.getByRole('combobox', { name: /Language|言語/ }).selectOption(lang);
    for (const viewport of VIEWPORTS) {
      for (const [page, screens] of [
        [anna!.page, signedIn],
        [guestPage, signedOut],
      ] as const) {
        await page.setViewportSize(viewport);
        for (const screen of screens) {
          await page.goto(screen.path);
          await expect(page.locator('html')).toHaveAttribute('lang', lang);
          await screen.ready(page);
          await expectAccessible(page, `${screen.name} (${viewport.name}, ${lang})`);
        }
      }
    }
  }
  await guest.close();
  for (const p of [anna, bert, cara]) await p!.context.close();
});

test('the header\'s links and controls are at least 44 pixels high on a phone', async ({ browser }) => {
  const [anna] = await signUpPlayers(browser, ['anna']);
  const { page } = anna!;
  await page.setViewportSize({ width: 360, height: 740 });
  for (const lang of LANGS) {
    await page.getByRole('combobox', { name: /Language|言語/ }).selectOption(lang);
    await expect(page.locator('html')).toHaveAttribute('lang', lang);
    // The links fold behind Menu on a phone: open it, then measure them and it.
    if ((await page.getByTestId('menu').getAttribute('aria-expanded')) !== 'true') await page.getByTestId('menu').click();
    await expect(page.getByTestId('menu')).toHaveAttribute('aria-expanded', 'true');
    const heights = await page.locator('header.top').locator('a, select, .menu-toggle').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().height));
    expect(heights.length).toBeGreaterThan(3);
    for (const height of heights) expect(height).toBeGreaterThanOrEqual(44);
  }
  await anna!.context.close();
});

test('the Flying Dutchman bid composer, its horseshoes on the screen and one chosen, passes axe, desktop and phone, English and Japanese', async ({ browser, request }) => {
  const players = await signUpPlayers(browser, ['anna', 'bert', 'cara']);
  const id = await startedGame(request, players.map((p) => p.name), 'flying-dutchman');
  for (const p of players) await p.page.goto(`/games/${id}`);
  // The composer is on the page of the seat to act (the start player is drawn).
  let actor: Player | undefined;
  await expect
    .poll(async () => {
      for (const p of players) if (await p.page.getByTestId('fd-composer').isVisible()) actor = p;
      return actor?.name;
    })
    .toBeTruthy();
  const page = actor!.page;
  const composer = page.getByTestId('fd-composer');
  const shoes = composer.locator('button.fd-shoe-toggle');
  const hand = await shoes.count();
  expect(hand).toBeGreaterThan(0);
  for (const lang of LANGS) {
    await page.getByRole('banner').getByRole('combobox', { name: /Language|言語/ }).selectOption(lang);
    await expect(page.locator('html')).toHaveAttribute('lang', lang);
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      await expect(composer).toBeVisible();
      await expect(shoes).toHaveCount(hand);
      await expectAccessible(page, `bid composer (${viewport.name}, ${lang})`);
    }
  }
  // With a horseshoe chosen: a silver one gets its sign button beside it (a hand of nine
  // holds a silver one but about once in ten thousand deals).
  const silver = composer.locator('li[data-face]').filter({ has: page.locator('.fd-silver') });
  const chooseSilver = (await silver.count()) > 0;
  await (chooseSilver ? silver : composer.locator('li[data-face]')).first().locator('button.fd-shoe-toggle').click();
  await expect(composer.locator('button.fd-shoe-toggle[aria-pressed="true"]')).toHaveCount(1);
  await expect(composer.locator('button.fd-sign')).toHaveCount(chooseSilver ? 1 : 0);
  await expectAccessible(page, 'bid composer with a horseshoe chosen (phone, ja)');
  for (const p of players) await p.context.close();
});
