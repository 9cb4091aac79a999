// The sea: spaces and lines drawn from the board data in the view (never a fixed graph), the
// ghost ship, the space it came from, and the spaces it may move to now. Ships carry their
// colour's letter; the ghost ship, its previous space and the allowed moves are told by
// shapes and words as well as by colour.
import { defineMessages, useLang, useMessages } from '../../i18n';
import { COLOURS, spaceName, type BoardData, type Space } from './common';

const msgs = defineMessages({
  map: {
    en: (here: string) => `The sea. The ghost ship is on ${here}.`,
    ja: (here: string) => `海図。幽霊船は${here}にいます。`,
  },
  came: { en: (from: string) => `It came from ${from} and may not go back.`, ja: (from: string) => `${from}から来たので戻れません。` },
  may: { en: (to: string) => `It may move to: ${to}.`, ja: (to: string) => `移動できる先：${to}。` },
  ghost: { en: 'Ghost ship', ja: '幽霊船' },
  previous: { en: 'Came from (no way back)', ja: '直前の場所（戻れない）' },
  allowed: { en: 'May move here', ja: '移動できる' },
  island: { en: 'Island', ja: '島' },
  choose: { en: (to: string) => `Choose ${to}`, ja: (to: string) => `${to}を選ぶ` },
});

const UNIT = 56;
const SHIP_R = 19;
const ISLAND_R = 23;

export interface BoardMapProps {
  board: BoardData;
  ghost: string | null;
  previous: string | null;
  /** Where the ghost ship may go (from `legal`, or the public rule when not our turn). */
  allowed: string[];
  /** When the caller is choosing a destination: called with the space picked on the map. */
  onPick?: (to: string) => void;
}

export function BoardMap({ board, ghost, previous, allowed, onPick }: BoardMapProps) {
  const m = useMessages(msgs);
  const { lang } = useLang();
  const xs = board.spaces.map((s) => s.x);
  const ys = board.spaces.map((s) => s.y);
  const minX = Math.min(...xs) - 0.7;
  const minY = Math.min(...ys) - 0.7;
  const width = (Math.max(...xs) - Math.min(...xs) + 1.4) * UNIT;
  const height = (Math.max(...ys) - Math.min(...ys) + 1.4) * UNIT;
  const at = (s: Space) => ({ cx: (s.x - minX) * UNIT, cy: (s.y - minY) * UNIT });
  const byId = new Map(board.spaces.map((s) => [s.id, s]));
  const name = (id: string) => spaceName(board, id, lang);
  const here = ghost ?? board.start;
  const summary = [
    m.map(name(here)),
    previous ? m.came(name(previous)) : '',
    allowed.length ? m.may(allowed.map(name).join(', ')) : '',
  ].join(' ');

  return (
    <figure class="fd-map">
      <svg viewBox={`0 0 ${width} ${height}`} role="group" aria-label={summary} data-testid="fd-map">
        <title>{summary}</title>
        <defs>
          <pattern id="fd-hatch" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <line x1="0" y1="0" x2="0" y2="6" stroke="currentColor" stroke-width="2" />
          </pattern>
        </defs>
        {board.lines.map(([a, b]) => {
          const sa = byId.get(a!);
          const sb = byId.get(b!);
          if (!sa || !sb) return null;
          const open = (a === here && allowed.includes(b!)) || (b === here && allowed.includes(a!));
          const p = at(sa);
          const q = at(sb);
          return (
            <line
              key={`${a}-${b}`}
              x1={p.cx}
              y1={p.cy}
              x2={q.cx}
              y2={q.cy}
              class={open ? 'fd-line fd-line-open' : 'fd-line'}
              stroke-dasharray={open ? undefined : '2 5'}
            />
          );
        })}
        {board.spaces.map((s) => (
          <SpaceMark
            key={s.id}
            space={s}
            pos={at(s)}
            label={name(s.id)}
            isGhost={s.id === here}
            isPrevious={s.id === previous}
            isAllowed={allowed.includes(s.id)}
            onPick={onPick && allowed.includes(s.id) ? () => onPick(s.id) : undefined}
            pickLabel={m.choose(name(s.id))}
            letter={shortLabel(board, s, lang)}
          />
        ))}
      </svg>
      <figcaption class="fd-legend">
        <span>
          <svg viewBox="-16 -24 32 34" width="28" height="28" aria-hidden="true">
            <GhostShip cx={0} cy={0} />
          </svg>
          {m.ghost}
        </span>
        <span>
          <svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">
            <circle cx={12} cy={12} r={9} fill="url(#fd-hatch)" class="fd-previous" />
          </svg>
          {m.previous}
        </span>
        <span>
          <svg viewBox="0 0 24 24" width="24" height="24" aria-hidden="true">
            <circle cx={12} cy={12} r={9} class="fd-allowed-ring" />
          </svg>
          {m.allowed}
        </span>
      </figcaption>
    </figure>
  );
}

/** The few characters written on a space: colour letter and number, H for Holland, island number. */
function shortLabel(board: BoardData, space: Space, lang: 'en' | 'ja'): string {
  if (space.kind === 'ship' && space.colour) {
    const same = board.spaces.filter((s) => s.kind === 'ship' && s.colour === space.colour);
    return `${COLOURS[space.colour].letter[lang]}${same.indexOf(space) + 1}`;
  }
  if (space.id === board.start) return lang === 'ja' ? '蘭' : 'H';
  const islands = board.spaces.filter((s) => s.kind === 'island' && s.id !== board.start);
  return `⌂${islands.indexOf(space) + 1}`;
}

interface SpaceMarkProps {
  space: Space;
  pos: { cx: number; cy: number };
  label: string;
  letter: string;
  isGhost: boolean;
  isPrevious: boolean;
  isAllowed: boolean;
  pickLabel: string;
  onPick?: () => void;
}

function SpaceMark({ space, pos, label, letter, isGhost, isPrevious, isAllowed, pickLabel, onPick }: SpaceMarkProps) {
  const { cx, cy } = pos;
  const ship = space.kind === 'ship' && space.colour;
  const colour = ship ? COLOURS[space.colour!] : null;
  const r = ship ? SHIP_R : ISLAND_R;
  const interactive = onPick
    ? {
        role: 'button' as const,
        tabindex: 0, // lower case: on SVG elements Preact sets attributes, and only `tabindex` is one
        'aria-label': pickLabel,
        onClick: onPick,
        onKeyDown: (e: KeyboardEvent) => {
          if (e.key === 'Enter' || e.key === ' ') {
            e.preventDefault();
            onPick();
          }
        },
      }
    : {};
  return (
    <g
      class={`fd-space${onPick ? ' fd-pickable' : ''}`}
      data-space={space.id}
      data-allowed={isAllowed ? 'true' : undefined}
      data-ghost={isGhost ? 'true' : undefined}
      data-previous={isPrevious ? 'true' : undefined}
      {...interactive}
    >
      <title>{label}</title>
      {isAllowed && <circle cx={cx} cy={cy} r={r + 7} class="fd-allowed-ring" />}
      {ship ? (
        <path d={hull(cx, cy, r)} fill={colour!.fill} class="fd-ship" />
      ) : (
        <circle cx={cx} cy={cy} r={r} class="fd-island" />
      )}
      {isPrevious && <circle cx={cx} cy={cy} r={r + 3} fill="url(#fd-hatch)" class="fd-previous" />}
      <text x={cx} y={cy + 5} text-anchor="middle" class="fd-space-letter" fill={colour ? colour.ink : undefined}>
        {letter}
      </text>
      {isGhost && <GhostShip cx={cx} cy={cy - r - 4} />}
    </g>
  );
}

/** A ship's outline: a hull with a flat deck, so ships and round islands differ in shape. */
function hull(cx: number, cy: number, r: number): string {
  return `M ${cx - r} ${cy - r * 0.45} L ${cx + r} ${cy - r * 0.45} L ${cx + r * 0.6} ${cy + r * 0.75} L ${cx - r * 0.6} ${cy + r * 0.75} Z`;
}

function GhostShip({ cx, cy }: { cx: number; cy: number }) {
  return (
    <g class="fd-ghost" data-testid="fd-ghost">
      <path d={`M ${cx - 14} ${cy} L ${cx + 14} ${cy} L ${cx + 9} ${cy + 7} L ${cx - 9} ${cy + 7} Z`} />
      <path d={`M ${cx} ${cy - 1} L ${cx} ${cy - 22} L ${cx + 12} ${cy - 6} Z`} />
    </g>
  );
}
