// How the Steel Driver browser test and the live benchmark play: whose page offers a move,
// and a simple policy that makes it by clicking the controls the page offers.
import { expect, type Page } from '@playwright/test';
import type { Player } from './support';

/** The largest number of actions a game can take here; a game that runs longer fails. */
export const MAX_ACTIONS = 1500;

/** The index of the player whose page offers controls now, or 'end' once the game is over. */
export async function whoseMove(players: Player[]): Promise<number | 'end'> {
  let found: number | 'end' | null = null;
  await expect
    .poll(
      async () => {
        if (await players[0]!.page.getByTestId('sd-outcome').isVisible()) return (found = 'end');
        for (const [i, p] of players.entries()) {
          if (await p.page.getByTestId('sd-controls').isVisible()) return (found = i);
        }
        return (found = null);
      },
      { intervals: [50, 100, 200], timeout: 30_000, message: 'some page offers a move, or the game ends' },
    )
    .not.toBeNull();
  return found!;
}

export interface Policy {
  /** The auction now running has been raised once (then everyone else passes). */
  raised: boolean;
  builds: number;
  midGameShot: boolean;
}

/** Makes the move the page offers, by the policy; returns the step it took. */
export async function move(page: Page, policy: Policy): Promise<string> {
  const controls = page.getByTestId('sd-controls');
  const step = (await controls.getAttribute('data-step')) ?? '';
  const button = (name: string | RegExp) => controls.getByRole('button', { name });
  switch (step) {
    case 'open_auction': {
      const open = button('Open the auction');
      if (await open.isVisible()) {
        // The first company offered, for up to 3 cubes (the most the field allows).
        const bid = controls.getByLabel('Opening bid (cubes)');
        const max = Number(await bid.getAttribute('max'));
        await bid.fill(String(Math.min(3, max)));
        await controls.getByRole('radio').first().check();
        policy.raised = false;
        await open.click();
      } else {
        await button('Pass the pawn').click();
      }
      break;
    }
    case 'bid': {
      const bid = button(/^Bid \d+$/);
      if (!policy.raised && (await bid.isVisible())) {
        policy.raised = true;
        await bid.click();
      } else {
        await button(/^Pass/).click();
      }
      break;
    }
    case 'build': {
      const options = controls.getByRole('radio');
      if ((await options.count()) === 0) {
        await button('Pass (no link can be built)').click();
        break;
      }
      // Every other build is chosen on the map with the keyboard, the rest in the list;
      // the first option is the most profitable.
      const label = (await controls.locator('label.sd-choice').first().innerText()).trim();
      const link = label.split(' — ')[0]!;
      if (policy.builds++ % 2 === 0) {
        const onMap = page.getByTestId('sd-map').getByRole('button', { name: label });
        await onMap.focus();
        await onMap.press('Enter');
        await expect(onMap).toHaveAttribute('aria-pressed', 'true');
      } else {
        await options.first().check();
      }
      await button(`Build ${link}`).click();
      break;
    }
    case 'choose_path':
      await button('Choose this path').click();
      break;
    case 'take_goods': {
      const options = controls.getByRole('radio');
      if ((await options.count()) === 0) {
        await button('Pass (no goods can be taken)').click();
        break;
      }
      await options.first().check();
      await button(/^Take the cube of /).click();
      break;
    }
    default:
      throw new Error(`unknown step ${step}`);
  }
  return step;
}
