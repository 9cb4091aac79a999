import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import preact from '@preact/preset-vite';

// `npm run dev` serves the page with hot reload and passes the API through to a running
// server (KONTOR_URL, default http://127.0.0.1:8080), so the page is same-origin as in
// production and the session cookie works.
const api = process.env.KONTOR_URL ?? 'http://127.0.0.1:8080';

const PLACEHOLDER = "const BUILD = { version: 'dev', files: [] };";

/**
 * Stamps the service worker (public/sw.js, copied to dist/ as it is) with this build: the
 * built files it keeps for offline use, and a version drawn from their names, so a new build
 * is a new worker that drops the old cache.
 */
function stampServiceWorker(): Plugin {
  let files: string[] = [];
  let outDir = 'dist';
  return {
    name: 'stamp-service-worker',
    apply: 'build',
    configResolved(config) {
      outDir = config.build.outDir;
    },
    generateBundle(_options, bundle) {
      files = Object.keys(bundle)
        .filter((name) => name.startsWith('assets/'))
        .sort();
    },
    closeBundle() {
      const path = join(outDir, 'sw.js');
      const source = readFileSync(path, 'utf8');
      if (!source.includes(PLACEHOLDER)) throw new Error(`${path} has no "${PLACEHOLDER}" to stamp`);
      const version = createHash('sha256').update(files.join('\n')).digest('hex').slice(0, 16);
      writeFileSync(path, source.replace(PLACEHOLDER, `const BUILD = ${JSON.stringify({ version, files })};`));
    },
  };
}

export default defineConfig({
  plugins: [preact(), stampServiceWorker()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // One small bundle; no source maps shipped in the binary.
    sourcemap: false,
    assetsInlineLimit: 0,
  },
  server: {
    proxy: { '/api': { target: api, changeOrigin: false } },
  },
});
