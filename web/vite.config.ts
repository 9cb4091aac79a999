import { defineConfig } from 'vite';
import preact from '@preact/preset-vite';

// `npm run dev` serves the page with hot reload and passes the API through to a running
// server (KONTOR_URL, default http://127.0.0.1:8080), so the page is same-origin as in
// production and the session cookie works.
const api = process.env.KONTOR_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  plugins: [preact()],
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
