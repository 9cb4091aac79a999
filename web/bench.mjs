/* global process, console, fetch, setTimeout, document, performance */
/* eslint-disable no-console -- a command-line script: printing is its output */
// Benchmark (not a test): the compressed size of the built JavaScript and CSS, and the
// time to a usable lobby on localhost in Chromium — from navigation start until every list
// of the lobby has rendered its games — median of several runs, each in a fresh browser
// context (empty cache) with a signed-in session.
//
//   npm run build && npm run bench
//   KONTOR_BIN=/work/bin/kontor npm run bench        # which server binary to start
//   BENCH_URL=http://127.0.0.1:8080 npm run bench    # or measure a running server
//   BENCH_RUNS=9                                     # runs (default 7)
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { chromium } from '@playwright/test';

const AIM_KB = 150;
const AIM_MS = 1000;
const RUNS = Number(process.env.BENCH_RUNS ?? 7);

function sizes() {
  const dir = resolve('dist/assets');
  const files = readdirSync(dir).filter((f) => f.endsWith('.js') || f.endsWith('.css'));
  if (files.length === 0) throw new Error('no built assets: run `npm run build` first');
  const total = { raw: 0, gzip: 0, brotli: 0 };
  const rows = files.map((f) => {
    const bytes = readFileSync(join(dir, f));
    const row = {
      file: f,
      raw: bytes.length,
      gzip: gzipSync(bytes, { level: 9 }).length,
      brotli: brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
    };
    total.raw += row.raw;
    total.gzip += row.gzip;
    total.brotli += row.brotli;
    return row;
  });
  return { rows, total };
}

function freePort() {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => (port ? ok(port) : fail(new Error('no port'))));
    });
  });
}

/** A `kontor serve` of its own, with a fresh data folder (its own PostgreSQL cluster). */
async function startServer() {
  const bin = resolve(process.env.KONTOR_BIN ?? '../target/debug/kontor');
  const dataDir = mkdtempSync(join(tmpdir(), 'kontor-bench-'));
  const url = `http://127.0.0.1:${await freePort()}`;
  const server = spawn(bin, ['serve'], {
    env: { ...process.env, KONTOR_BIND: url.slice(7), KONTOR_DATA_DIR: dataDir, KONTOR_BASE_URL: url, KONTOR_WEB_DIR: resolve('dist'), RUST_LOG: 'warn' },
    stdio: 'ignore',
  });
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`kontor serve exited (${server.exitCode})`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('kontor serve did not become ready in 120 s');
    await new Promise((r) => setTimeout(r, 250));
  }
  const stop = async () => {
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(dataDir, { recursive: true, force: true });
  };
  return { url, stop };
}

async function api(url, path, body, token) {
  const response = await fetch(url + path, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`${path}: ${response.status} ${await response.text()}`);
  return response.status === 204 ? null : response.json();
}

/** A player with a few games, so the lobby has lists to fill. */
async function seed(url) {
  const username = `bench${Date.now().toString(36)}`;
  const password = `${username} measures the lobby 42`;
  await api(url, '/api/v1/auth/register', { username, email: `${username}@example.org`, password });
  const { access_token } = await api(url, '/api/v1/auth/login', { username, password });
  for (const kind of ['flying-dutchman', 'steel-driver', 'steel-driver']) {
    await api(url, '/api/v1/games', { kind, seats: 3 }, access_token);
  }
  return { username, password };
}

async function timeToLobby(url, user) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const times = [];
  try {
    for (let i = 0; i < RUNS + 1; i++) {
      const context = await browser.newContext();
      // A browser session of its own (the session cookie is spent on each refresh).
      const login = await context.request.post(`${url}/api/v1/auth/session`, { data: user });
      if (!login.ok()) throw new Error(`session: ${login.status()}`);
      const page = await context.newPage();
      await page.goto(`${url}/`);
      await page.waitForFunction(() => {
        const lists = document.querySelectorAll('[data-testid^="list-"]');
        return lists.length === 5 && [...lists].every((l) => l.getAttribute('data-loaded') === 'true');
      });
      const ms = await page.evaluate(() => performance.now());
      await context.close();
      // The first run warms the server (and its database), not the page: not counted.
      if (i > 0) times.push(ms);
    }
  } finally {
    await browser.close();
  }
  times.sort((a, b) => a - b);
  return { times, median: times[Math.floor(times.length / 2)] };
}

const kb = (n) => (n / 1024).toFixed(1);
const { rows, total } = sizes();
const cpu = cpus();
console.log(`Machine: ${cpu[0]?.model ?? 'unknown CPU'}, ${cpu.length} cores, Node ${process.version}`);
console.log('\nBuilt assets (KiB: raw / gzip -9 / brotli q11):');
for (const r of rows) console.log(`  ${r.file.padEnd(28)} ${kb(r.raw).padStart(7)} ${kb(r.gzip).padStart(7)} ${kb(r.brotli).padStart(7)}`);
console.log(`  ${'total'.padEnd(28)} ${kb(total.raw).padStart(7)} ${kb(total.gzip).padStart(7)} ${kb(total.brotli).padStart(7)}`);
console.log(`  aim: under ${AIM_KB} KiB compressed — gzip ${total.gzip < AIM_KB * 1024 ? 'met' : 'MISSED'}, brotli ${total.brotli < AIM_KB * 1024 ? 'met' : 'MISSED'}`);

const own = process.env.BENCH_URL ? null : await startServer();
try {
  const url = process.env.BENCH_URL ?? own.url;
  const user = await seed(url);
  const { times, median } = await timeToLobby(url, user);
  console.log(`\nTime to a usable lobby (navigation start → every list rendered), ${times.length} runs, fresh context each:`);
  console.log(`  ${times.map((t) => `${t.toFixed(0)} ms`).join(', ')}`);
  console.log(`  median ${median.toFixed(0)} ms — aim under ${AIM_MS} ms ${median < AIM_MS ? 'met' : 'MISSED'}`);
} finally {
  await own?.stop();
}
