// What each game gives the page. The generic game page (`GamePage.tsx`) loads the game,
// follows its stream, shows whose turn it is, the log and the replay slider; the game's
// module draws the board and the controls from the caller's `view` and `legal` only.
import type { ComponentType } from 'preact';
import type { Schemas } from '../api/client';
import type { Lang } from '../i18n';

export type GameDetail = Schemas['GameDetail'];
export type EventOut = Schemas['EventOut'];
export type GameUpdate = Schemas['GameUpdate'];
export type Seat = Schemas['SeatSummary'];

/**
 * The live board is not remounted when the game moves on: `detail` changes under it, so
 * any choice it keeps in its own state survives updates and the reload after a 409
 * (`version_conflict`). When `detail.version` changes, drop what no longer fits `legal`.
 * A past version (`past`) is a board of its own, with `legal` null.
 */
export interface BoardProps<View, Legal, Command> {
  detail: GameDetail;
  view: View;
  /** What the caller may do now; null for spectators and past versions. */
  legal: Legal | null;
  /** The caller's seat, or null for a spectator. */
  mySeat: number | null;
  /** Sends an action at the shown version; rejects with an ApiError when refused. */
  act: (action: Command) => Promise<void>;
  /** True while an action is being sent. */
  busy: boolean;
  /** True when showing a past version (`?at=`): no controls. */
  past: boolean;
  /** A seat's name as shown at the table. */
  seatName: (seat: number) => string;
  /**
   * The log as the viewer may see it, up to the shown version (for "what just happened":
   * the last roll, the ghost ship's move…). May still be loading: empty at first.
   */
  events?: EventOut[];
}

export interface OptionsEditorProps<Options> {
  seats: number;
  options: Partial<Options>;
  onChange: (options: Partial<Options>) => void;
}

/** What a game's controls for standing orders get (issue 37): the live game and a way to set one. */
export interface OrderComposerProps<View, Order> {
  detail: GameDetail;
  view: View;
  mySeat: number;
  /** Sets an order (it replaces the caller's order for the same decision); rejects with an ApiError when refused. */
  set: (order: Order) => Promise<void>;
  busy: boolean;
}

export interface GameModule<View = unknown, Legal = unknown, Command = unknown, Options = unknown, Event = unknown, Order = unknown> {
  kind: string;
  minSeats: number;
  maxSeats: number;
  Board: ComponentType<BoardProps<View, Legal, Command>>;
  /** Every option with what it means, for the new-game screen. */
  OptionsEditor: ComponentType<OptionsEditorProps<Options>>;
  /** One readable line for an event (as the viewer may see it). */
  describe: (event: Event, lang: Lang, seatName: (seat: number) => string) => string;
  /**
   * The events that belong in the table's chat as lines of their own (The Flying Dutchman's
   * formal negotiation offers), in words; null for the others. Absent: none do.
   */
  chatLine?: (event: Event, lang: Lang, seatName: (seat: number) => string) => string | null;
  /** The final result in words, from the outcome (for finished games). */
  Outcome?: ComponentType<{ detail: GameDetail; seatName: (seat: number) => string }>;
  /**
   * The game's rule error codes in words, for refusals shown in Japanese (English shows the
   * server's own detail). Codes left out show the server's text.
   */
  errorMessages?: Record<string, Record<Lang, string>>;
  /** A standing order in words (any kind the game has, however it was set). */
  describeOrder?: (order: Order, lang: Lang) => string;
  /** Controls to set the game's common standing orders (every kind is in the API). */
  OrderComposer?: ComponentType<OrderComposerProps<View, Order>>;
}
