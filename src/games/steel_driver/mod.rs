//! Steel Driver (Martin Wallace, 2008): 3–6 investors auction the control of six railway
//! companies, build their networks across the USA for five rounds, and finally deliver goods.
//!
//! The rules are `RULES.md` beside this file (decisions marked there); the map is the
//! data in `map.json`. All information is public, so every viewer sees the same view and
//! events are never redacted.
//!
//! Layout (the template of `src/games/README.md`): [`protocol`] (options, commands, events),
//! [`state`] (the position), [`decide`] (validation and the automatic steps), [`evolve`]
//! (how events change the position), [`view`] (views and legal actions), [`bots`],
//! [`invariants`], [`map`] (the map data and its validation); beside them
//! [`transcontinental`] (the bonus paths), [`undo`] (the undo barriers) and [`orders`]
//! (forced moves and standing orders).
//!
//! # Decisions where the specification is silent
//! (The spec's own **\[D\]** marks are implemented as written.)
//! * **First link between two start cities** (five links of the map): the company starts from
//!   the one of lower value (equal values: the link's first end), so the other one scores.
//!   That is the choice a controller would always make: round profit only ever pays them.
//! * **Forced passes are commands.** A pawn holder without cubes, a bidder who cannot outbid,
//!   a company that cannot build and a company that cannot take goods pass by their player's
//!   command (`pass_command` names it); only companies nobody controls pass on their own.
//!   The server plays such a command at once for the player (`Rules::forced`, also for a
//!   single buildable link or goods cube), so nobody waits for it; it stays the seat's
//!   command in the log ([`orders`], `RULES.md` section 7).
//! * **Standing orders** ([`orders`]): a proxy bid raises by 1 cube, the minimum; auction
//!   orders last for the auction phase of their round; a delivery order takes the cube of
//!   the most set gain, then a contested one, then the first city on the map (the sensible
//!   bot's rule). Opening an auction, building and the transcontinental choice are not
//!   programmable.
//! * **Auction turn order.** The high bidder is skipped while others are still in; the
//!   opener, once outbid, may bid again in turn. When all six markers are sold the pawn goes
//!   to the opener's left as after any auction, and stays there for the next round.
//! * **Transcontinental ties.** Paths over the same set of companies pay the same bonuses, so
//!   the completing company's controller chooses between company sets (one shortest path
//!   each, in a fixed order). Every path that joins the two cities
//!   uses the completing link, so the completing company is on each. A bonus earned by a
//!   company nobody controls this round goes to its round profit, which nobody receives.
//! * **Round dividends** of $0 are not listed in `dividends_paid`.
//! * **Delivery order** is the company order after round 5, i.e. round 5's pass order.
//! * **Ranks** are competition ranks (1, 1, 3) by money, then goods cubes controlled.

pub mod bots;
pub mod decide;
pub mod evolve;
pub mod invariants;
pub mod map;
pub mod orders;
pub mod protocol;
pub mod state;
pub mod transcontinental;
pub mod undo;
pub mod view;

#[cfg(test)]
mod tests;

pub use decide::ERROR_CODES;
pub use invariants::{check_invariants, check_progress};
pub use map::{CityId, LinkId, MAP, MAP_ID, Map, MapError};
pub use protocol::{Colour, Command, Company, Event, Options, Order};
pub use state::State;
pub use view::{Legal, View};

use super::{
    Actor, BotLevel, Chat, Forced, GameNames, GameRng, OptionsError, OrderMatch, Outcome,
    RuleError, Rules, Seat, Viewer,
};

/// The Steel Driver rules engine.
pub struct SteelDriver;

impl Rules for SteelDriver {
    const KIND: &'static str = "steel-driver";
    const NAMES: GameNames = GameNames {
        en: "Steel Driver",
        ja: "スチールドライバー",
    };
    const CHAT: Chat = Chat::Table;
    const RULES_VERSION: u32 = 1;
    const MIN_SEATS: u8 = 3;
    const MAX_SEATS: u8 = 6;
    const ERROR_CODES: &'static [(&'static str, &'static str)] = ERROR_CODES;
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
        let first_player = rng.below(u32::from(seats)) as Seat;
        vec![
            Event::GameStarted {
                seats,
                options: options.clone(),
                first_player,
            },
            Event::RoundStarted {
                round: 1,
                cubes: state::cubes_per_round(seats),
            },
        ]
    }

    fn decide(
        state: &State,
        actor: Actor,
        command: &Command,
        _rng: &mut GameRng,
    ) -> Result<Vec<Event>, RuleError> {
        decide::decide(state, actor, command)
    }

    fn evolve(state: &mut State, event: &Event) {
        state.apply(event);
    }

    fn view(state: &State, _viewer: Viewer) -> View {
        view::view(state)
    }

    fn redact(event: &Event, _viewer: Viewer) -> Option<Event> {
        Some(event.clone())
    }

    fn pending(state: &State) -> Vec<Seat> {
        state.to_act().into_iter().collect()
    }

    fn legal(state: &State, seat: Seat) -> Legal {
        view::legal(state, seat)
    }

    fn outcome(state: &State) -> Option<Outcome> {
        state.outcome.clone()
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

    fn bot_orders(state: &State, seat: Seat, orders: &[Order], _rng: &mut GameRng) -> Vec<Order> {
        bots::sensible_orders(state, seat, orders)
    }

    /// The table of `undo.rs` (`RULES.md`, "Undo barriers").
    fn barrier(event: &Event) -> Option<&'static str> {
        undo::barrier(event)
    }

    fn bot_command(state: &State, seat: Seat, level: BotLevel, rng: &mut GameRng) -> Command {
        bots::bot_command(state, seat, level, rng)
    }
}

/// Validates raw options: an object (or `null`) with at most the field `map`.
pub fn parse_options(raw: &serde_json::Value, seats: u8) -> Result<Options, OptionsError> {
    if !(SteelDriver::MIN_SEATS..=SteelDriver::MAX_SEATS).contains(&seats) {
        return Err(OptionsError::new(
            "seats",
            "Steel Driver is for 3 to 6 players",
        ));
    }
    let mut options = Options::default();
    let fields = match raw {
        serde_json::Value::Null => return Ok(options),
        serde_json::Value::Object(fields) => fields,
        _ => {
            return Err(OptionsError::new(
                "options",
                "options must be a JSON object",
            ));
        }
    };
    for (name, value) in fields {
        match name.as_str() {
            "map" => match value.as_str() {
                Some(MAP_ID) => options.map = MAP_ID.to_string(),
                _ => {
                    return Err(OptionsError::new(
                        "map",
                        format!("unknown map {value}; the only map is \"{MAP_ID}\""),
                    ));
                }
            },
            other => {
                return Err(OptionsError::new(
                    other,
                    format!("Steel Driver has no option `{other}`"),
                ));
            }
        }
    }
    Ok(options)
}
