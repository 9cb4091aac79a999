//! The Flying Dutchman (Der fliegende Holländer, Klaus Teuber 1992; Japanese edition 2016).
//!
//! A pure rules engine behind [`Rules`]: the specification is
//! `RULES.md` beside this file; the board is data (`board.json`).
//!
//! Public API in short:
//! * [`FlyingDutchman`] implements [`Rules`] (`KIND = "flying-dutchman"`, 3–6 seats).
//! * [`Options`], [`Command`], [`Event`], [`View`], [`Legal`]: the wire types.
//! * [`check_invariants`]: the facts of section 9, for tests and audits.
//! * [`board()`]: the built-in board (also part of every [`View`]).
//! * [`undo::barrier`]: the undo barriers (`RULES.md`, "Undo barriers").
//!
//! # Decisions where the specification is silent
//! (The spec's own **\[D\]** marks are implemented as written.)
//! * **Identity without ids.** A horseshoe is named by its face (silver 1/2/10/20, gold
//!   21–48), a share card by its colour. Equal faces and colours are interchangeable, so no
//!   identifier can reveal a value or track a tile through the stack or the pool.
//! * **Pool order.** The pool is shuffled when it is formed and at every clean-up (the order is
//!   in `hidden_piles_formed`/`pool_refilled`, seen by nobody until the end); the smith
//!   players take ⌊P/k⌋ each from its top, in action order from the start player. A clean-up
//!   with nothing bid records no shuffle.
//! * **Kontor return order.** The two cards go to the bottom in the order listed: the last
//!   listed becomes the bottom card. A Kontor exchange with fewer than two cards in the stack
//!   is refused (`share_stack_too_small`; it cannot happen: the stack keeps 3N − 6 cards).
//! * **Signs.** A silver horseshoe's sign defaults to plus; gold is always plus
//!   (`negative_gold`). A bid may be negative; it is valid (≤ LN).
//! * **Order.** Bids are revealed, ties listed and declarations made in seat order from the
//!   start player. A dice-off is one event holding every re-roll.
//! * **Negotiation.** Offers are public. The maker accepts their own offer. Agreement on a
//!   destination D is reached when every member of the tie accepts at least one standing
//!   offer for D; then, for every standing offer for D, each payment is made to its payee
//!   if that payee accepted that offer ("the accepted payments"). A maker's promises over all
//!   their standing offers for one destination may not exceed their coins; offers without
//!   payments are allowed; at most 5 standing offers per member. A rejection is a public
//!   "no" that withdraws the member's acceptance of that offer; only the maker withdraws an
//!   offer. The deadline runs from the start of the negotiation (offers do not reset it);
//!   its timer key names the round and the negotiation.
//! * **Extra round.** Whether a member bid or dropped out, and the size of the bid, stay
//!   secret until all have chosen (the public horseshoe count includes a sealed extra-round
//!   bid). A dice-off after an extra round is among all members of the tie.
//! * **Island income.** The movers decide in any order (all pending at once).
//! * **Bankruptcy.** Horseshoes a bankrupt player bid this round were already spent and go to
//!   the pool at the clean-up; those in hand stay out of play. The landing completes (markers
//!   move) before the game ends for a last player standing. If a landing bankrupts every
//!   remaining player, the game ends (`all_bankrupt`) and they share the win. Bankrupt seats
//!   rank after all survivors, later bankruptcies first (same landing: same rank).
//! * **End.** After the 16th ship landing the clean-up still happens, then `game_ended`,
//!   which shows every remaining hand (hands are public in views from then on).
//! * **Refusals.** A seat that may not act gets `not_your_turn` before any check of the
//!   command; the platform (`Actor::System`) may only submit `no_agreement` in a negotiation.
//! * **Forced moves** (`orders.rs`, `RULES.md` section 11) are judged on public facts only;
//!   a Kontor return is never forced (playing it at once would show the hand).
//! * **Standing orders** (`orders.rs`) are matched on their seat's own view and end with the
//!   round they name (the income rule stands for the game). An action order may ask its seat
//!   instead when more players before it bid; a Kontor order ranks all six colours and
//!   returns the two least wanted, the least wanted listed first; declaration and offer
//!   orders serve every tie of their round, an extra-round order the first extra round;
//!   `best` income takes the highest value, on equal values the colour later in the order of
//!   the rules. "No agreement" is not programmable.

mod board;
mod bots;
mod decide;
mod evolve;
mod invariants;
mod orders;
mod protocol;
mod state;
pub mod undo;
mod view;

#[cfg(test)]
mod tests;

pub use board::{
    Board, BoardData, BoardError, BoardRef, Colour, SpaceData, SpaceId, SpaceKind, board,
};
pub use decide::ERROR_CODES;
pub use invariants::check_invariants;
pub use protocol::{
    ActionTaken, BidHorseshoe, BoardId, Command, DiceRoll, Edition, EndReason, Event, ExtraChoice,
    IncomeRule, MoveReason, Offer, Options, Order, PaymentTerm, RevealResult, RevealedBid,
    ShipPayment, Sign, Transfer, ValueTrack, bid_value,
};
pub use state::{ALL_HORSESHOES, DIE_A, DIE_B, Phase, Player, State};
pub use view::{
    CommandKind, Decision, Declaration, HiddenView, HorseshoeView, IncomeChoice, Legal, MarkerView,
    PlayerView, PromiseLimit, StepView, View,
};

use super::{
    Actor, BotLevel, Chat, Forced, GameNames, GameRng, OptionsError, OrderMatch, Outcome,
    RuleError, Rules, Seat, Timer, Viewer,
};

/// The Flying Dutchman rules engine.
pub struct FlyingDutchman;

impl Rules for FlyingDutchman {
    const KIND: &'static str = "flying-dutchman";
    const NAMES: GameNames = GameNames {
        en: "The Flying Dutchman",
        // The 2016 Japanese edition's name.
        ja: "さまよえるオランダ人",
    };
    // A game of negotiation: private channels between two seats by default.
    const CHAT: Chat = Chat::Full;
    const RULES_VERSION: u32 = 1;
    const MIN_SEATS: u8 = 3;
    const MAX_SEATS: u8 = 6;
    const ERROR_CODES: &'static [(&'static str, &'static str)] = decide::ERROR_CODES;
    const AUTO_CODES: &'static [(&'static str, &'static str)] = orders::AUTO_CODES;

    type Options = Options;
    type State = State;
    type Event = Event;
    type Command = Command;
    type View = View;
    type Legal = Legal;
    type Order = Order;

    fn parse_options(raw: &serde_json::Value, seats: u8) -> Result<Options, OptionsError> {
        parse_options(raw, seats)
    }

    fn setup(options: &Options, seats: u8, rng: &mut GameRng) -> Vec<Event> {
        decide::setup(options, seats, rng)
    }

    fn decide(
        state: &State,
        actor: Actor,
        command: &Command,
        rng: &mut GameRng,
    ) -> Result<Vec<Event>, RuleError> {
        decide::decide(state, actor, command, rng)
    }

    fn evolve(state: &mut State, event: &Event) {
        evolve::evolve(state, event);
    }

    fn view(state: &State, viewer: Viewer) -> View {
        view::view(state, viewer)
    }

    fn redact(event: &Event, viewer: Viewer) -> Option<Event> {
        view::redact(event, viewer)
    }

    fn pending(state: &State) -> Vec<Seat> {
        view::pending(state)
    }

    fn legal(state: &State, seat: Seat) -> Legal {
        view::legal(state, seat)
    }

    fn outcome(state: &State) -> Option<Outcome> {
        view::outcome(state)
    }

    /// During a negotiation: the deadline, after which the platform submits `no_agreement`.
    /// The key names the negotiation, so a timer armed for an earlier one is stale.
    fn timer(state: &State) -> Option<Timer<Command>> {
        match state.phase {
            Phase::Negotiation { .. } => Some(Timer {
                key: format!(
                    "flying-dutchman/negotiation/{}/{}",
                    state.round, state.negotiations
                ),
                after_secs: u64::from(state.options.negotiation_deadline_secs),
                command: Command::NoAgreement,
            }),
            _ => None,
        }
    }

    fn pass_command(state: &State, seat: Seat) -> Option<Command> {
        view::pass_command(state, seat)
    }

    fn forced(state: &State, seat: Seat) -> Option<Forced<Command>> {
        orders::forced_move(state, seat)
    }

    fn check_order(view: &View, seat: Seat, order: &Order) -> Result<(), RuleError> {
        orders::check_order(view, seat, order)
    }

    fn match_order(view: &View, seat: Seat, order: &Order) -> OrderMatch<Command, Order> {
        orders::match_order(view, seat, order)
    }

    fn replaces(new: &Order, old: &Order) -> bool {
        orders::replaces(new, old)
    }

    fn order_window(state: &State, seat: Seat) -> Option<String> {
        orders::order_window(state, seat)
    }

    fn bot_orders(state: &State, seat: Seat, orders: &[Order], rng: &mut GameRng) -> Vec<Order> {
        bots::sensible_orders(state, seat, orders, rng)
    }

    /// The table of `undo.rs` (`RULES.md`, "Undo barriers").
    fn barrier(event: &Event) -> Option<&'static str> {
        undo::barrier(event)
    }

    fn bot_command(state: &State, seat: Seat, level: BotLevel, rng: &mut GameRng) -> Command {
        bots::bot_command(state, seat, level, rng)
    }
}

const OPTION_FIELDS: [&str; 4] = [
    "edition",
    "value_track",
    "board",
    "negotiation_deadline_secs",
];

/// Validates raw options; fills every default in.
pub fn parse_options(raw: &serde_json::Value, seats: u8) -> Result<Options, OptionsError> {
    if !(FlyingDutchman::MIN_SEATS..=FlyingDutchman::MAX_SEATS).contains(&seats) {
        return Err(OptionsError::new(
            "seats",
            "The Flying Dutchman is for 3 to 6 players",
        ));
    }
    let empty = serde_json::Map::new();
    let map = match raw {
        serde_json::Value::Null => &empty,
        serde_json::Value::Object(map) => map,
        _ => {
            return Err(OptionsError::new(
                "options",
                "options must be a JSON object",
            ));
        }
    };
    if let Some(unknown) = map.keys().find(|k| !OPTION_FIELDS.contains(&k.as_str())) {
        return Err(OptionsError::new(
            unknown.as_str(),
            format!(
                "unknown option `{unknown}` (known: {})",
                OPTION_FIELDS.join(", ")
            ),
        ));
    }
    let mut options = Options::default();
    let text = |field: &str| -> Result<Option<&str>, OptionsError> {
        match map.get(field) {
            None => Ok(None),
            Some(serde_json::Value::String(s)) => Ok(Some(s.as_str())),
            Some(_) => Err(OptionsError::new(
                field,
                format!("`{field}` must be a string"),
            )),
        }
    };
    if let Some(edition) = text("edition")? {
        options.edition = match edition {
            "1992" => Edition::E1992,
            "2016" => Edition::E2016,
            other => {
                return Err(OptionsError::new(
                    "edition",
                    format!("unknown edition `{other}` (\"1992\" or \"2016\")"),
                ));
            }
        };
    }
    if let Some(track) = text("value_track")? {
        options.value_track = match track {
            "without_one" => ValueTrack::WithoutOne,
            "with_one" => ValueTrack::WithOne,
            other => {
                return Err(OptionsError::new(
                    "value_track",
                    format!("unknown value track `{other}` (\"without_one\" or \"with_one\")"),
                ));
            }
        };
    }
    if let Some(board_id) = text("board")? {
        options.board = match board_id {
            "standard" => BoardId::Standard,
            other => {
                return Err(OptionsError::new(
                    "board",
                    format!("unknown board `{other}` (only \"standard\")"),
                ));
            }
        };
    }
    if let Some(value) = map.get("negotiation_deadline_secs") {
        let range =
            protocol::MIN_NEGOTIATION_DEADLINE_SECS..=protocol::MAX_NEGOTIATION_DEADLINE_SECS;
        let secs = value
            .as_u64()
            .filter(|s| range.contains(&(u32::try_from(*s).unwrap_or(u32::MAX))))
            .ok_or_else(|| {
                OptionsError::new(
                    "negotiation_deadline_secs",
                    format!(
                        "`negotiation_deadline_secs` must be a whole number of seconds from {} \
                         to {} (14 days)",
                        range.start(),
                        range.end()
                    ),
                )
            })?;
        options.negotiation_deadline_secs = secs as u32;
    }
    Ok(options)
}
