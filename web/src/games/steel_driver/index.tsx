// Placeholder until the board is drawn: the caller's view and legal actions as data.
import type { Schemas } from '../../api/client';
import type { BoardProps, GameModule, OptionsEditorProps } from '../types';

type View = Schemas['SteelDriver.View'];
type Legal = Schemas['SteelDriver.Legal'];
type Command = Schemas['SteelDriver.Command'];
type Options = Schemas['SteelDriver.Options'];
type Event = Schemas['SteelDriver.Event'];

function Board({ view, legal }: BoardProps<View, Legal, Command>) {
  return <pre>{JSON.stringify({ view, legal }, null, 1)}</pre>;
}

function OptionsEditor(_: OptionsEditorProps<Options>) {
  return null;
}

export const steelDriver: GameModule<View, Legal, Command, Options, Event> = {
  kind: 'steel-driver',
  name: { en: 'Steel Driver', ja: 'スチールドライバー' },
  minSeats: 3,
  maxSeats: 6,
  Board,
  OptionsEditor,
  describe: (event) => (event as { type: string }).type,
};
