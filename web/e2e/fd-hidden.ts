// The check that no page shows another seat's hidden cards or horseshoes.
//
// Why it is built this way: share cards are colours and horseshoes small numbers, words and
// digits that appear all over a page (the board, the value track, the log), so a plain text
// search cannot tell a leak from the board. The page shows every share card and horseshoe
// through one component each, marked `data-share` / `data-horseshoe`, and every hand a seat
// holds inside an element marked `data-hand-of="<seat>"` (the board draws a seat's hand
// whenever its view holds it, as it must for a bankrupt seat's public hand). So:
//   1. On the owner's own page the detector finds the owner's hand, exactly as many items as
//      the other pages show as the owner's public counts (the detector does see hands).
//   2. On every other page the detector finds no item in the owner's hand, unless that hand
//      is public (bankrupt, or shares after the end): a view that carried another seat's
//      hand, or a board that drew one, fails here.
//   3. A spectator's page shows no hand at all.
//   4. The owner's hand as the API serialises it (`"horseshoes":[1,10,…]`,
//      `"shares":["red",…]`) is in no other page's DOM or storage: a page that kept the raw
//      view (or someone else's) where scripts can read it fails here.
//   5. The one thing a page keeps in storage of a hand, the half-made bid of its tab
//      (`kontor.bid-draft:<game>:<seat>` in sessionStorage), is its own seat's and holds
//      only horseshoes of its own hand.
import { expect, type Page } from '@playwright/test';
import { readableState } from './support';

export interface Hand {
  seat: number;
  horseshoes: number[];
  shares: string[];
}

/** The hand the owner's page shows (its own view). */
export async function ownHand(page: Page): Promise<Hand> {
  const board = page.getByTestId('fd-board');
  const seat = Number(await board.getAttribute('data-my-seat'));
  const horseshoes = await page
    .getByTestId('fd-my-shoes')
    .locator('[data-horseshoe]')
    .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-horseshoe'))));
  const shares = await page
    .getByTestId('fd-my-shares')
    .locator('[data-share]')
    .evaluateAll((els) => els.map((e) => e.getAttribute('data-share') ?? ''));
  return { seat, horseshoes, shares };
}

/** Items of `seat`'s hand that `page` shows. */
async function handItemsShown(page: Page, seat: number): Promise<number> {
  return page.locator(`[data-hand-of="${seat}"]`).locator('[data-horseshoe], [data-share]').count();
}

/** A seat's public counts as another page's players table shows them. */
async function publicCounts(page: Page, seat: number) {
  const row = page.getByTestId('fd-board').locator(`.fd-players tr[data-seat="${seat}"]`);
  return {
    horseshoes: Number(await row.locator('[data-field="horseshoes"]').textContent()),
    shares: Number(await row.locator('[data-field="shares"]').textContent()),
    bankrupt: (await row.getAttribute('class'))?.includes('fd-bankrupt') ?? false,
  };
}

function serialisations(hand: Hand): string[] {
  const out: string[] = [];
  if (hand.horseshoes.length) {
    const sorted = [...hand.horseshoes].sort((a, b) => a - b);
    out.push(`"horseshoes":[${sorted.join(',')}]`, `"horseshoes":[${hand.horseshoes.join(',')}]`);
  }
  if (hand.shares.length) out.push(`"shares":[${hand.shares.map((s) => `"${s}"`).join(',')}]`);
  return out;
}

/** The bid drafts a page keeps in its tab: the seat in each key, and the faces in it. */
async function drafts(page: Page): Promise<{ seat: number; faces: number[] }[]> {
  return page.evaluate(() =>
    Object.keys(sessionStorage)
      .filter((key) => key.startsWith('kontor.bid-draft:'))
      .map((key) => ({
        seat: Number(key.split(':').pop()),
        faces: (JSON.parse(sessionStorage.getItem(key)!) as { chosen: { value: number }[] }).chosen.map((h) => h.value),
      })),
  );
}

/** 5. A page's drafts are its own seat's, of its own horseshoes. */
async function expectOwnDrafts(page: Page, hand: Hand) {
  for (const draft of await drafts(page)) {
    expect(draft.seat, `a bid draft on seat ${hand.seat}'s page`).toBe(hand.seat);
    for (const face of draft.faces) expect(hand.horseshoes, `seat ${hand.seat}'s draft holds its own horseshoes`).toContain(face);
  }
}

/**
 * Checks, at this moment, that each page shows its own hand and no other seat's. `pages`
 * are the seated players' pages, all at the same version of the game.
 */
export async function expectNoHiddenLeak(pages: Page[], watchers: Page[] = []) {
  const finished = (await pages[0]!.getByTestId('fd-board').getAttribute('data-step')) === 'finished';
  if (finished) return; // every hand is public at the end
  const extraRound = (await pages[0]!.getByTestId('fd-board').getAttribute('data-step')) === 'extra_round';
  const hands = await Promise.all(pages.map(ownHand));
  const states = await Promise.all(pages.map(readableState));
  for (const [i, page] of pages.entries()) await expectOwnDrafts(page, hands[i]!);
  for (const owner of hands) {
    const ownPage = pages[hands.indexOf(owner)]!;
    for (const [i, other] of pages.entries()) {
      if (other === ownPage) continue;
      const counts = await publicCounts(other, owner.seat);
      if (counts.bankrupt) continue; // a bankrupt seat's hand is public
      // 1. The detector sees the owner's hand on the owner's page. (In an extra round the public
      // count also holds a sealed bid; the hand shown is then smaller.)
      expect(owner.shares.length, `seat ${owner.seat}'s own page shows its share cards`).toBe(counts.shares);
      if (extraRound) expect(owner.horseshoes.length).toBeLessThanOrEqual(counts.horseshoes);
      else
        expect(
          owner.horseshoes.length,
          `seat ${owner.seat}'s own page (version ${await ownPage.getByTestId('fd-board').getAttribute('data-version')}) shows its horseshoes; other page at ${await other.getByTestId('fd-board').getAttribute('data-version')}`,
        ).toBe(counts.horseshoes);
      expect(await handItemsShown(ownPage, owner.seat)).toBeGreaterThan(0);
      // 2. No other page shows any of it.
      expect(await handItemsShown(other, owner.seat), `page of seat ${hands[i]!.seat} shows seat ${owner.seat}'s hand`).toBe(0);
      // 3. Nor keeps it as data.
      for (const text of serialisations(owner)) expect(states[i]).not.toContain(text);
    }
    // A spectator sees no hand at all (its page may lag a version; that does not matter here).
    for (const watcher of watchers) {
      expect(await drafts(watcher), 'a spectator keeps no bid draft').toEqual([]);
      const counts = await publicCounts(watcher, owner.seat);
      if (counts.bankrupt) continue;
      expect(await handItemsShown(watcher, owner.seat), `a spectator's page shows seat ${owner.seat}'s hand`).toBe(0);
      const state = await readableState(watcher);
      for (const text of serialisations(owner)) expect(state).not.toContain(text);
    }
  }
}

/**
 * The chat's part of the check: a private channel's text (`private:A-B`, read by seats A and
 * B only) is in no other page's DOM or web storage — not another seat's, not a spectator's.
 * `seats` are the seated players' pages with their seats; `texts` the private messages sent.
 */
export async function expectNoPrivateChatLeak(
  seats: { page: Page; seat: number }[],
  watchers: Page[],
  texts: { channel: string; text: string }[],
) {
  for (const { channel, text } of texts) {
    const members = /^private:(\d+)-(\d+)$/.exec(channel)!.slice(1).map(Number);
    for (const { page, seat } of seats) {
      if (members.includes(seat)) continue;
      expect(await readableState(page), `seat ${seat}'s page holds a message of ${channel}`).not.toContain(text);
    }
    for (const watcher of watchers) {
      expect(await readableState(watcher), `a spectator's page holds a message of ${channel}`).not.toContain(text);
    }
  }
}
