// Placeholder until the board is drawn: the caller's view and legal actions as data.
import type { Schemas } from '../../api/client';
import type { BoardProps, GameModule, OptionsEditorProps } from '../types';

type View = Schemas['FlyingDutchman.View'];
type Legal = Schemas['FlyingDutchman.Legal'];
type Command = Schemas['FlyingDutchman.Command'];
type Options = Schemas['FlyingDutchman.Options'];
type Event = Schemas['FlyingDutchman.Event'];

function Board({ view, legal }: BoardProps<View, Legal, Command>) {
  return <pre>{JSON.stringify({ view, legal }, null, 1)}</pre>;
}

function OptionsEditor(_: OptionsEditorProps<Options>) {
  return null;
}

export const flyingDutchman: GameModule<View, Legal, Command, Options, Event> = {
  kind: 'flying-dutchman',
  name: { en: 'The Flying Dutchman', ja: 'フライング・ダッチマン' },
  minSeats: 3,
  maxSeats: 6,
  Board,
  OptionsEditor,
  describe: (event) => (event as { type: string }).type,
};
