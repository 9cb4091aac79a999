import type { GameModule } from './types';
import { flyingDutchman } from './flying_dutchman';
import { steelDriver } from './steel_driver';

export const GAMES: GameModule<never, never, never, never, never>[] = [
  flyingDutchman as unknown as GameModule<never, never, never, never, never>,
  steelDriver as unknown as GameModule<never, never, never, never, never>,
];

export function gameModule(kind: string) {
  return GAMES.find((g) => g.kind === kind);
}
