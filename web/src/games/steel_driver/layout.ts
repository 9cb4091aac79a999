// Where each city is drawn. The map data gives longitude and latitude; projected as they
// are, the cities of the north-east (Boston to Norfolk) would lie on top of one another
// while the west is nearly empty. So each axis blends the true position with the city's
// rank along that axis (which spreads dense parts out), and then cities closer than
// MIN_GAP are pushed apart. The result depends on the map data only, so every viewer sees
// the same picture, and the country keeps its shape.
import type { City } from './model';

export const WIDTH = 1000;
const MARGIN = 36;
/** Room at the sides for the labels of the coasts' cities. */
const SIDE = 80;
const MIN_GAP = 62;
/** How much of each axis is the true position (the rest is the rank). */
const TRUE_SHARE = 0.45;

export interface Point {
  x: number;
  y: number;
}

export interface Layout {
  at: Map<string, Point>;
  /** Where each city's label goes: the side farthest from its links. */
  label: Map<string, LabelSpot>;
  height: number;
}

export interface LabelSpot {
  x: number;
  y: number;
  anchor: 'start' | 'middle' | 'end';
}

const LABEL_SIDES = [
  { dx: 0, dy: 1, anchor: 'middle' },
  { dx: 0, dy: -1, anchor: 'middle' },
  { dx: 1, dy: 0, anchor: 'start' },
  { dx: -1, dy: 0, anchor: 'end' },
] as const;

/** For each city, the side (below, above, right, left) whose direction is farthest in
 *  angle from every link leaving the city, so the label does not sit on a link. */
function labelSpots(at: Map<string, Point>, links: readonly { from: string; to: string }[]): Map<string, LabelSpot> {
  const spots = new Map<string, LabelSpot>();
  for (const [id, p] of at) {
    const directions = links
      .filter((l) => l.from === id || l.to === id)
      .map((l) => {
        const q = at.get(l.from === id ? l.to : l.from)!;
        const d = Math.hypot(q.x - p.x, q.y - p.y) || 1;
        return { x: (q.x - p.x) / d, y: (q.y - p.y) / d };
      });
    let best: (typeof LABEL_SIDES)[number] = LABEL_SIDES[0];
    let bestScore = -Infinity;
    for (const side of LABEL_SIDES) {
      // The closest link in direction (largest cosine) decides; below wins ties.
      const closest = Math.max(-1, ...directions.map((d) => d.x * side.dx + d.y * side.dy));
      const score = -closest;
      if (score > bestScore + 0.05) [best, bestScore] = [side, score];
    }
    const gap = best.dy === 0 ? 20 : 27;
    spots.set(id, { x: p.x + best.dx * gap, y: p.y + best.dy * gap, anchor: best.anchor });
  }
  return spots;
}

/** Positions in [0, 1] along one axis: true position blended with rank. */
function spread(values: number[]): number[] {
  const lo = Math.min(...values);
  const span = Math.max(...values) - lo || 1;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = (v: number) => {
    // Equal values share the middle of their ranks.
    const first = sorted.indexOf(v);
    const last = sorted.lastIndexOf(v);
    return (first + last) / 2 / Math.max(1, values.length - 1);
  };
  return values.map((v) => TRUE_SHARE * ((v - lo) / span) + (1 - TRUE_SHARE) * rank(v));
}

export function layoutCities(cities: readonly City[], links: readonly { from: string; to: string }[]): Layout {
  const lons = cities.map((c) => c.lon);
  const lats = cities.map((c) => c.lat);
  const xs = spread(lons);
  const ys = spread(lats);
  // Keep the country's proportions (longitude squashed at its middle latitude).
  const squash = Math.cos((((Math.max(...lats) + Math.min(...lats)) / 2) * Math.PI) / 180);
  const aspect = (Math.max(...lats) - Math.min(...lats)) / ((Math.max(...lons) - Math.min(...lons)) * squash || 1);
  const inner = WIDTH - 2 * SIDE;
  const height = Math.round(inner * aspect * 1.25 + 2 * MARGIN);
  const points = cities.map((_, i) => ({
    x: SIDE + xs[i]! * inner,
    y: MARGIN + (1 - ys[i]!) * (height - 2 * MARGIN),
  }));
  relax(points, height);
  const at = new Map(cities.map((c, i) => [c.id, points[i]!]));
  return { at, label: labelSpots(at, links), height };
}

/** Pushes too-close pairs apart, a bounded number of rounds (deterministic). */
function relax(points: Point[], height: number) {
  for (let round = 0; round < 300; round++) {
    let moved = false;
    for (let i = 0; i < points.length; i++) {
      for (let j = i + 1; j < points.length; j++) {
        const a = points[i]!;
        const b = points[j]!;
        let dx = b.x - a.x;
        let dy = b.y - a.y;
        let d = Math.hypot(dx, dy);
        if (d >= MIN_GAP) continue;
        if (d === 0) [dx, dy, d] = [1, 0, 1];
        const push = (MIN_GAP - d) / 2;
        a.x -= (dx / d) * push;
        a.y -= (dy / d) * push;
        b.x += (dx / d) * push;
        b.y += (dy / d) * push;
        moved = true;
      }
    }
    for (const p of points) {
      p.x = Math.min(WIDTH - SIDE, Math.max(SIDE, p.x));
      p.y = Math.min(height - MARGIN, Math.max(MARGIN, p.y));
    }
    if (!moved) break;
  }
}
