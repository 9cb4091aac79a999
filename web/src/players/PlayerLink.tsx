// A player's name as a link to their public profile (`/players/{username}`). Deleted
// accounts keep a placeholder name and have no profile, so they are not linked.
import { playerName } from '../components/names';

export function PlayerLink({ seat }: { seat: { username: string; display_name?: string | null } }) {
  if (seat.username.startsWith('deleted-player-')) return <>{playerName(seat)}</>;
  return <a href={`/players/${encodeURIComponent(seat.username)}`}>{playerName(seat)}</a>;
}
