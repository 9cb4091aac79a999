// A rematch from a finished game's page: one player offers it, the others (and a spectator) see
// the offer live and accept, and everyone follows the link to the new game, whose seats moved
// round by one.
import { expect, type APIRequestContext } from '@playwright/test';
import { accessToken, signUp, startedGame, type Player, test } from './support';

type Legal = Record<string, unknown> & { step: string };
type Detail = { status: string; version: number; pending: number[]; legal: Legal | null };

const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)]!;

/** A legal Steel Driver action for the seat to move (passing where it may, to end soon). */
function choose(legal: Legal): Record<string, unknown> {
  switch (legal.step) {
    case 'open_auction': {
      const companies = legal.companies as string[];
      const min = legal.min_bid as number;
      const max = legal.max_bid as number;
      if (companies.length > 0 && max >= min && (!legal.can_pass || Math.random() < 0.5)) {
        return { type: 'open_auction', company: pick(companies), bid: min };
      }
      return { type: 'pass_pawn' };
    }
    case 'bid':
      return legal.can_pass === false && legal.can_bid ? { type: 'bid', bid: legal.min_bid } : { type: 'pass_bid' };
    case 'build': {
      const links = legal.links as { link: unknown }[];
      return links.length > 0 && (!legal.can_pass || Math.random() < 0.5) ? { type: 'build', link: pick(links).link } : { type: 'pass_build' };
    }
    case 'choose_path':
      return { type: 'choose_path', index: 0 };
    case 'take_goods': {
      const goods = legal.goods as { city: unknown }[];
      return goods.length > 0 ? { type: 'take_goods', city: pick(goods).city } : { type: 'pass_delivery' };
    }
    default:
      throw new Error(`unknown step ${legal.step}`);
  }
}

/** Plays the game to its end through the API, each pending seat as its own player. */
async function playToEnd(request: APIRequestContext, id: string, names: string[]) {
  const tokens = await Promise.all(names.map((n) => accessToken(request, n)));
  const get = async (token: string) =>
    (await (await request.get(`/api/v1/games/${id}`, { headers: { authorization: `Bearer ${token}` } })).json()) as Detail;
  for (let i = 0; i < 5000; i++) {
    const any = await get(tokens[0]!);
    if (any.status === 'finished') return;
    const seat = pick(any.pending);
    const mine = await get(tokens[seat]!);
    if (!mine.legal) continue;
    const answer = await request.post(`/api/v1/games/${id}/actions`, {
      headers: { authorization: `Bearer ${tokens[seat]}`, 'idempotency-key': `k${i}-${Math.random()}` },
      data: { version: mine.version, action: choose(mine.legal) },
    });
    expect([200, 409], `${JSON.stringify(mine.legal)}: ${await answer.text()}`).toContain(answer.status());
  }
  throw new Error('the game did not end');
}

test('a rematch offered and accepted on the finished game page', async ({ browser, request }) => {
  test.setTimeout(240_000);
  const players: Player[] = [await signUp(browser, 'ada'), await signUp(browser, 'ben'), await signUp(browser, 'cy')];
  const names = players.map((p) => p.name);
  const id = await startedGame(request, names, 'steel-driver');
  await playToEnd(request, id, names);

  // dee only watches: she follows the offer live on the game's stream too.
  const dee = await signUp(browser, 'dee');
  for (const p of [...players, dee]) {
    await p.page.goto(`/games/${id}`);
    await expect(p.page.getByTestId('rematch')).toBeVisible();
  }
  const [ada, ben, cy] = players as [Player, Player, Player];

  // ben offers; the others see it without reloading, with his acceptance counted.
  await ben.page.getByRole('button', { name: 'Offer a rematch' }).click();
  await expect(ben.page.getByTestId('rematch')).toHaveAttribute('data-offer-status', 'open');
  await expect(ben.page.getByRole('button', { name: 'Accept' })).toHaveCount(0);
  for (const p of [ada, cy, dee]) {
    await expect(p.page.getByText(new RegExp(`${ben.name}.* offers a rematch`))).toBeVisible();
    await expect(p.page.getByTestId('rematch-answers').locator('[data-seat="1"]')).toContainText('accepted');
  }

  // ada accepts: cy's page shows it live.
  await ada.page.getByRole('button', { name: 'Accept' }).click();
  await expect(cy.page.getByTestId('rematch-answers').locator('[data-seat="0"]')).toContainText('accepted');
  // In Japanese too.
  await cy.page.getByLabel('Language').selectOption('ja');
  await expect(cy.page.getByRole('heading', { name: '再戦' })).toBeVisible();
  await cy.page.getByRole('button', { name: '受ける' }).click();

  // Everyone gets the link to the new game; the seats moved round by one.
  await expect(cy.page.getByRole('link', { name: '再戦へ進む' })).toBeVisible();
  for (const p of [ada, ben, dee]) await expect(p.page.getByTestId('rematch-link')).toBeVisible();
  await expect(dee.page.getByRole('button', { name: 'Accept' })).toHaveCount(0);
  // A word at the old table, announced on ada's page; the new game's page must not announce
  // it again as its own.
  const said = `Good game, see you in the rematch (${Date.now()})`;
  const sent = await request.post(`/api/v1/games/${id}/chat/table/messages`, {
    headers: { authorization: `Bearer ${await accessToken(request, ben.name)}`, 'idempotency-key': `rematch-${id}` },
    data: { text: said },
  });
  expect(sent.ok(), await sent.text()).toBe(true);
  await expect(ada.page.getByTestId('chat-announcement')).toContainText(said);
  await ada.page.getByTestId('rematch-link').click();
  await expect(ada.page).not.toHaveURL(new RegExp(id));
  await expect(ada.page).toHaveURL(/\/games\/[0-9a-f-]{36}$/);
  const newId = ada.page.url().split('/games/')[1]!;
  await expect(ada.page.getByTestId('rematch-of')).toBeVisible();
  await expect(ada.page.getByTestId('chat-announcement')).not.toContainText(said);
  const token = await accessToken(request, ada.name);
  const game = (await (await request.get(`/api/v1/games/${newId}`, { headers: { authorization: `Bearer ${token}` } })).json()) as {
    status: string;
    rematch_of: string;
    seats: { seat: number; username: string }[];
  };
  expect(game.status).toBe('active');
  expect(game.rematch_of).toBe(id);
  expect(game.seats.map((s) => s.username)).toEqual([cy.name, ada.name, ben.name]);
  for (const p of [...players, dee]) await p.context.close();
});
