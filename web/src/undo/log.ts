// Undo as the log records it (issue 23): the undo family of platform events and the moves
// a rewind takes back. Pure: no requests here.
import type { EventOut } from '../games/types';

/** The platform events of a request and of a rewind; never moves themselves. */
export function isUndoEvent(type: string): boolean {
  return type.startsWith('kontor.undo_') || type === 'kontor.rewound';
}

/**
 * The events with what the stream's `kontor.rewound` events undid marked `undone`: a rewind
 * at `r` back to `t` undoes every event with `t < seq < r`. Events a loaded page already
 * marked stay marked; the result is the same array when nothing changed.
 */
export function markUndone(events: EventOut[]): EventOut[] {
  const ranges: [number, number][] = [];
  for (const e of events) {
    if (e.type !== 'kontor.rewound') continue;
    const to = (e.data as { to_version?: number }).to_version;
    if (typeof to === 'number') ranges.push([to, e.seq]);
  }
  if (ranges.length === 0) return events;
  let changed = false;
  const out = events.map((e) => {
    if (e.undone || !ranges.some(([to, at]) => to < e.seq && e.seq < at)) return e;
    changed = true;
    return { ...e, undone: true };
  });
  return changed ? out : events;
}

/**
 * The events in effect at version `at` (null: now), as a board reads recent events: those
 * undone by then left out. An event undone later was in effect at an earlier version, so a
 * past version's events are marked again from the rewinds up to it. Now, and with nothing
 * undone, the same array comes back.
 */
export function effectiveAt(events: EventOut[], at: number | null): EventOut[] {
  if (at === null) return events.some((e) => e.undone) ? events.filter((e) => !e.undone) : events;
  const upTo = events.filter((e) => e.seq <= at).map((e) => (e.undone ? { ...e, undone: false } : e));
  return markUndone(upTo).filter((e) => !e.undone);
}
