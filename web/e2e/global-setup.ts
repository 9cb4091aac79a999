// Starts `kontor serve` (KONTOR_BIN, default ../target/debug/kontor) on a free port with a
// fresh data folder, so it creates its own PostgreSQL cluster; stops it after the run and
// removes what it made.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address ? ok(address.port) : fail(new Error('no port'))));
    });
  });
}

/** The folder the server's cluster lives in when it is not `<data>/postgres`: as root, when
 * user postgres cannot enter the data folder, the cluster lives under
 * /var/lib/kontor/clusters/ and `postgres-location.txt` in the data folder names it. */
function relocatedCluster(dataDir: string): string | undefined {
  const note = join(dataDir, 'postgres-location.txt');
  if (!existsSync(note)) return undefined;
  return /lives in (\S.*)$/m.exec(readFileSync(note, 'utf8'))?.[1];
}

export default async function globalSetup() {
  const bin = resolve(process.env.KONTOR_BIN ?? '../target/debug/kontor');
  // Under /tmp, not the checkout. The folder is private (0700), so as root the cluster lives
  // under /var/lib/kontor/clusters/ instead (see relocatedCluster), removed at the end too.
  const dataDir = mkdtempSync(join(tmpdir(), 'kontor-e2e-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const log = createWriteStream('test-results-server.log');
  const server = spawn(bin, ['serve'], {
    env: {
      ...process.env,
      KONTOR_BIND: `127.0.0.1:${port}`,
      KONTOR_DATA_DIR: dataDir,
      KONTOR_BASE_URL: url,
      // The client just built in this folder, whichever binary serves it.
      KONTOR_WEB_DIR: resolve('dist'),
      // Bots answer at once; deadlines are looked at often.
      KONTOR_DEADLINE_POLL_MS: '200',
      KONTOR_MIN_SECONDS_PER_MOVE: '0',
      // Every player of every spec registers from this one address.
      KONTOR_REGISTRATIONS_PER_ADDRESS: '1000',
      // The lobby's paging spec opens 21 games as one player.
      KONTOR_OPEN_GAMES_PER_USER: '100',
      RUST_LOG: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server.stdout.pipe(log);
  server.stderr.pipe(log);
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`kontor serve exited (${server.exitCode}); see web/test-results-server.log`);
    try {
      const response = await fetch(`${url}/readyz`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error('kontor serve did not become ready in 120 s');
    await new Promise((r) => setTimeout(r, 250));
  }
  process.env.KONTOR_E2E_URL = url;
  // Without SMTP the server writes each mail as an .eml file in <data>/mail (account.spec.ts
  // follows the links in them).
  process.env.KONTOR_E2E_MAIL_DIR = join(dataDir, 'mail');
  return async () => {
    // The server stops the cluster it started as it exits; then its folders can go.
    if (server.exitCode === null && server.signalCode === null) {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGTERM');
      await exited;
    }
    const cluster = relocatedCluster(dataDir);
    if (cluster) rmSync(cluster, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  };
}
