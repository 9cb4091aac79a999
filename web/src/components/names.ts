// How a player is named at the table: the display name beside the username, which stays the
// identifier ("Anna K. (anna)"); the username alone when there is no display name.
export function playerName(seat: { username: string; display_name?: string | null }): string {
  const display = seat.display_name?.trim();
  return display && display !== seat.username ? `${display} (${seat.username})` : seat.username;
}
