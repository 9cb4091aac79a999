// Benchmark (not a test): how long a move takes from the mover's click to the other players'
// pages showing it. Three players play Steel Driver in three browser contexts by clicking
// (the browser test's policy); for each move, every page records in itself when its board's
// version changes, and the mover's page when its last click happened, on the one clock the
// browser's pages share (performance.timeOrigin + performance.now()).
//
//   npm run build && npm run bench:live
//   BENCH_MOVES=80 npm run bench:live      # moves measured (default 60)
//   KONTOR_BIN=../target/release/kontor npm run bench:live
/* eslint-disable no-console -- a benchmark: printing is its output */
import { expect, test, type Page } from '@playwright/test';
import { cpus, loadavg } from 'node:os';
import { move, whoseMove, type Policy } from '../e2e/steel-driver-play';
import { signUp, startedGame } from '../e2e/support';

const MOVES = Number(process.env.BENCH_MOVES ?? 60);

declare global {
  interface Window {
    benchClicks: number[];
    benchVersions: { version: number; at: number }[];
  }
}

/** Records the page's clicks and board versions, with when they happened. */
async function instrument(page: Page) {
  await page.evaluate(() => {
    const now = () => performance.timeOrigin + performance.now();
    window.benchClicks = [];
    window.benchVersions = [];
    document.addEventListener('click', () => window.benchClicks.push(now()), true);
    let last = -1;
    new MutationObserver(() => {
      const version = Number(document.querySelector('[data-testid="sd-board"]')?.getAttribute('data-version') ?? -1);
      if (version !== last) {
        last = version;
        window.benchVersions.push({ version, at: now() });
      }
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-version'] });
  });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))]!;

test('a move reaches the other players pages', async ({ browser, request }) => {
  test.setTimeout(30 * 60_000);
  const players = [await signUp(browser, 'bena'), await signUp(browser, 'benb'), await signUp(browser, 'benc')];
  const id = await startedGame(
    request,
    players.map((p) => p.name),
    'steel-driver',
  );
  for (const p of players) {
    await p.page.goto(`/games/${id}`);
    await expect(p.page.getByTestId('sd-map')).toBeVisible();
    await instrument(p.page);
  }
  const policy: Policy = { raised: false, builds: 0, midGameShot: true };
  const delays: number[] = [];
  while (delays.length < MOVES * 2) {
    const who = await whoseMove(players);
    if (who === 'end') break;
    const mover = players[who]!.page;
    const before = Number(await mover.getByTestId('sd-board').getAttribute('data-version'));
    await move(mover, policy);
    const others = players.filter((_, i) => i !== who).map((p) => p.page);
    // The move is shown everywhere (the mover's page included) before the next is made.
    for (const page of [mover, ...others]) {
      await expect.poll(async () => Number(await page.getByTestId('sd-board').getAttribute('data-version'))).toBeGreaterThan(before);
    }
    const clicks = await mover.evaluate(() => window.benchClicks);
    const clicked = clicks[clicks.length - 1]!;
    for (const page of others) {
      const seen = await page.evaluate((v) => window.benchVersions.find((x) => x.version > v)?.at, before);
      delays.push(seen! - clicked);
    }
  }
  delays.sort((a, b) => a - b);
  const cpu = cpus();
  console.log(`Machine: ${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  console.log(`Click → another player's page showing the move, ${delays.length} (moves × other pages):`);
  console.log(`  p50 ${percentile(delays, 50).toFixed(0)} ms, p90 ${percentile(delays, 90).toFixed(0)} ms, max ${delays[delays.length - 1]!.toFixed(0)} ms — aim p50 under 150 ms`);
  expect(delays.length).toBeGreaterThan(0);
});
