// The board last shown, so that log lines (which get only the event) can name spaces the
// way the map does. Before any board is shown, spaces are named by their ids.
import type { BoardData } from './common';

let known: BoardData | undefined;

export function rememberBoard(board: BoardData) {
  known = board;
}

export function knownBoard(): BoardData | undefined {
  return known;
}
