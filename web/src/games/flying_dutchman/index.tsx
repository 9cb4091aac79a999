// The Flying Dutchman for the game page: the board and controls, the options editor, a line
// in words for each event and the final result.
import type { GameModule } from '../types';
import { Board } from './Board';
import { describeEvent, negotiationLine } from './describe';
import { ruleErrors } from './errors';
import { knownBoard } from './names';
import { OptionsEditor } from './OptionsEditor';
import { OrderComposer, describeOrder, type Order } from './Orders';
import { FdOutcome } from './Outcome';
import type { Command, FdEvent, Legal, Options, View } from './common';

export const flyingDutchman: GameModule<View, Legal, Command, Options, FdEvent, Order> = {
  kind: 'flying-dutchman',
  minSeats: 3,
  maxSeats: 6,
  Board,
  OptionsEditor,
  describe: (event, lang, seatName) => describeEvent(event, lang, seatName, knownBoard()),
  chatLine: (event, lang, seatName) => negotiationLine(event, lang, seatName, knownBoard()),
  Outcome: FdOutcome,
  errorMessages: ruleErrors,
  describeOrder,
  OrderComposer,
};
