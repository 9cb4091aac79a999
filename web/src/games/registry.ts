import type { GameModule } from './types';
import type { Schemas } from '../api/client';
import type { Lang } from '../i18n';
import { flyingDutchman } from './flying_dutchman';
import { steelDriver } from './steel_driver';
// What the server says of each kind (`GET /kinds`), written by `kontor kinds`: each game's
// names and chat default are declared once, beside its rules (a contract test compares).
import kinds from './kinds.json';

export const GAMES: GameModule<never, never, never, never, never>[] = [
  flyingDutchman as unknown as GameModule<never, never, never, never, never>,
  steelDriver as unknown as GameModule<never, never, never, never, never>,
];

export function gameModule(kind: string) {
  return GAMES.find((g) => g.kind === kind);
}

const KINDS = kinds.items as Schemas['KindInfo'][];

/** The game's name in `lang`, as its rules declare it; the kind itself for one not known. */
export function gameName(kind: string, lang: Lang): string {
  return KINDS.find((k) => k.kind === kind)?.names[lang] ?? kind;
}

/** The table's chat unless its creator chooses another. */
export function defaultChat(kind: string): Schemas['Chat'] {
  return KINDS.find((k) => k.kind === kind)?.chat ?? 'table';
}
