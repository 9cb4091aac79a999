// Browser benchmarks (not tests, never run by the suite): `npm run bench:live`. The same
// browser and server setup as the browser tests (playwright.config.ts), files under bench/.
import { defineConfig } from '@playwright/test';
import tests from './playwright.config';

export default defineConfig({ ...tests, testDir: 'bench', testMatch: '*.bench.ts', outputDir: 'test-results-bench' });
