// Browser tests: Debian's Chromium (never a downloaded one) against a real `kontor serve`
// with its own private PostgreSQL cluster, started once for the run (e2e/global-setup.ts).
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: 'e2e',
  // Whole games take a while; each step waits on the page, never on a clock.
  timeout: 10 * 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  outputDir: 'test-results',
  globalSetup: './e2e/global-setup.ts',
  use: {
    baseURL: process.env.KONTOR_E2E_URL,
    // A click that can never happen (a control left disabled) fails within a minute, naming
    // the control, instead of waiting out the test's ten minutes.
    actionTimeout: 60_000,
    screenshot: 'only-on-failure',
    trace: 'off',
    launchOptions: {
      executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    },
  },
});
