// Starts the run's `kontor serve` (e2e/server.ts) with its own PostgreSQL cluster, once for
// the run; stops it after the run and removes what it made.
import { join } from 'node:path';
import { startServer } from './server';

export default async function globalSetup() {
  const server = await startServer('test-results-server.log', {
    // Bots answer at once; deadlines are looked at often.
    KONTOR_DEADLINE_POLL_MS: '200',
    KONTOR_MIN_SECONDS_PER_MOVE: '0',
    // Every player of every spec registers from this one address.
    KONTOR_REGISTRATIONS_PER_ADDRESS: '1000',
    // The lobby's paging spec opens 21 games as one player, the tournaments' 21 tournaments.
    KONTOR_OPEN_GAMES_PER_USER: '100',
    KONTOR_TOURNAMENTS_PER_ORGANISER: '100',
  });
  process.env.KONTOR_E2E_URL = server.url;
  // Without SMTP the server writes each mail as an .eml file in <data>/mail (account.spec.ts
  // follows the links in them).
  process.env.KONTOR_E2E_MAIL_DIR = join(server.dataDir, 'mail');
  return server.stop;
}
