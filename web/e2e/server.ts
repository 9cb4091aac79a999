// Starts `kontor serve` (KONTOR_BIN, default ../target/debug/kontor) on a free port with a
// fresh data folder, so it creates its own PostgreSQL cluster; `stop` ends it and removes what
// it made, `halt` ends it and keeps its data for `restart`. The run's server (global-setup.ts)
// is one; a spec that must stop a server (the offline shell and the outage, pwa.spec.ts)
// starts one of its own.
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

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

export interface Server {
  url: string;
  dataDir: string;
  /** Stops the server (it stops the cluster it started) and keeps its folders: `restart`
   * brings it back on the same address with the same data (an outage, then a return). */
  halt: () => Promise<void>;
  /** Starts the halted server again on the same port and data folder; waits until ready. */
  restart: () => Promise<void>;
  /** Stops the server (it stops the cluster it started) and removes its folders. */
  stop: () => Promise<void>;
}

/** A server answering at `url` once ready; `env` adds settings; its output goes to `logFile`. */
export async function startServer(logFile: string, env: Record<string, string>): Promise<Server> {
  const bin = resolve(process.env.KONTOR_BIN ?? '../target/debug/kontor');
  // Under /tmp, not the checkout. The folder is private (0700), so as root the cluster lives
  // under /var/lib/kontor/clusters/ instead (see relocatedCluster), removed at the end too.
  const dataDir = mkdtempSync(join(tmpdir(), 'kontor-e2e-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  mkdirSync(dirname(logFile), { recursive: true });
  const log = createWriteStream(logFile);
  let server: ChildProcess | null = null;
  const halt = async () => {
    const running = server;
    server = null;
    if (running && running.exitCode === null && running.signalCode === null) {
      const exited = new Promise((r) => running.once('exit', r));
      running.kill('SIGTERM');
      await exited;
    }
  };
  const stop = async () => {
    await halt();
    const cluster = relocatedCluster(dataDir);
    if (cluster) rmSync(cluster, { recursive: true, force: true });
    rmSync(dataDir, { recursive: true, force: true });
  };
  const launch = async () => {
    const started = spawn(bin, ['serve'], {
      env: {
        ...process.env,
        KONTOR_BIND: `127.0.0.1:${port}`,
        KONTOR_DATA_DIR: dataDir,
        KONTOR_BASE_URL: url,
        // The client just built in this folder, whichever binary serves it.
        KONTOR_WEB_DIR: resolve('dist'),
        RUST_LOG: 'warn',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    server = started;
    started.stdout!.pipe(log, { end: false });
    started.stderr!.pipe(log, { end: false });
    const deadline = Date.now() + 120_000;
    for (;;) {
      if (started.exitCode !== null) {
        await stop();
        throw new Error(`kontor serve exited (${started.exitCode}); see web/${logFile}`);
      }
      try {
        const response = await fetch(`${url}/readyz`);
        if (response.ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) {
        await stop();
        throw new Error('kontor serve did not become ready in 120 s');
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  await launch();
  return { url, dataDir, halt, restart: launch, stop };
}
