//! The rules-engine contract and the registry of game kinds.
//!
//! Each game is a pure module (no I/O, no clock, no async) that the platform drives through
//! the [`Rules`] trait. Randomness is drawn from the [`GameRng`] the platform hands to
//! `setup` and `decide`, and every drawn outcome is written into the events, so folding a log
//! with `evolve` never draws anything.

pub mod auto;
pub mod flying_dutchman;
pub mod rng;
pub mod simulate;
pub mod steel_driver;
#[cfg(test)]
pub mod testing;

use crate::words::language::Language;
use serde::{Deserialize, Serialize, de::DeserializeOwned};
use std::fmt::Debug;
use utoipa::ToSchema;

pub use rng::GameRng;

/// A seat at the table, 0-based in table (clockwise) order.
pub type Seat = u8;

/// Who submits a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "seat", rename_all = "snake_case")]
pub enum Actor {
    /// The player (or the bot standing in for them) at this seat.
    Seat(Seat),
    /// The platform itself, e.g. when a rules deadline such as a negotiation timer expires.
    System,
}

/// Who is looking at a state or an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "seat", rename_all = "snake_case")]
pub enum Viewer {
    /// A player: sees public information and their own secrets.
    Seat(Seat),
    /// Anyone else while the game runs: public information only.
    Spectator,
    /// Everything, e.g. anyone after the game has ended, or an internal audit.
    Omniscient,
}

/// A refused command: a stable machine-readable code and a message a person understands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[error("{code}: {message}")]
pub struct RuleError {
    pub code: &'static str,
    pub message: String,
}

impl RuleError {
    pub fn new(code: &'static str, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
        }
    }
}

/// Game options that are missing, unknown or out of range.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, thiserror::Error)]
#[error("{message}")]
pub struct OptionsError {
    /// The option at fault (e.g. `edition`), or `seats` for the seat count.
    pub field: String,
    pub message: String,
}

impl OptionsError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }
}

/// The final result of a finished game.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Outcome {
    /// Final score of each seat, in seat order (the game's own unit: ducats, dollars).
    /// A seat that left the game early (e.g. bankrupt) has `null`.
    pub scores: Vec<Option<i64>>,
    /// Rank of each seat, in seat order: 1 = winner; tied seats share a rank.
    pub ranks: Vec<u8>,
    /// The seats that won (several when the win is shared).
    pub winners: Vec<Seat>,
}

/// A rules-driven timer the platform must arm, e.g. the negotiation deadline of a tie.
/// When it expires the platform submits `command` as [`Actor::System`], provided
/// [`Rules::timer`] still returns a timer with the same `key` (otherwise it is stale).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Timer<C> {
    pub key: String,
    pub after_secs: u64,
    pub command: C,
}

/// Why the server played a seat's move on its own, or dropped a standing order: a stable
/// code (listed in the game's `AUTO_CODES`) and its parameters, for the server to word in
/// each language ("you had to pass: you cannot outbid 7" is `cannot_outbid` with
/// `high_bid: 7`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Reason {
    pub code: String,
    /// The facts the wording needs (numbers, companies, spaces), by name.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    #[schema(value_type = Object)]
    pub params: std::collections::BTreeMap<String, serde_json::Value>,
}

impl Reason {
    pub fn new(code: &str) -> Self {
        Reason {
            code: code.to_string(),
            params: Default::default(),
        }
    }

    /// The reason with one more parameter.
    pub fn with(mut self, name: &str, value: impl Serialize) -> Self {
        let value = serde_json::to_value(value).unwrap_or(serde_json::Value::Null);
        self.params.insert(name.to_string(), value);
        self
    }
}

/// A seat's only legal move, which the server plays at once (`Rules::forced`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forced<C> {
    pub command: C,
    pub reason: Reason,
}

/// What a standing order plays in a position (`Rules::match_order`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OrderMatch<C, O> {
    /// Play `command` now as the seat's own move; the order then stands as `then`
    /// (`None`: it has done its work).
    Play { command: C, then: Option<O> },
    /// Nothing to play yet: the order stands.
    Wait,
    /// The order's occasion has passed without fault (its round is over, its auction won):
    /// it is removed, and there is nothing to tell.
    Done,
    /// The order no longer fits the position: it is removed, and the seat is told why.
    Drop(Reason),
}

/// How clever a bot is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum BotLevel {
    /// Plays a uniformly random legal action.
    Random,
    /// Plays sensibly; also stands in for absent players.
    Sensible,
}

/// The contract every game implements. All functions are pure.
///
/// Serialisation conventions, relied on by the platform and the API:
/// * `Event` and `Command` are internally tagged enums: `#[serde(tag = "type",
///   rename_all = "snake_case")]`; the tag of an event is its stored type.
/// * `Options` are stored fully explicit (every default filled in), so a later change of a
///   default never changes a stored game.
pub trait Rules: Send + Sync + 'static {
    /// The registered kind, as used in the API (`flying-dutchman`).
    const KIND: &'static str;
    /// The game's name in each language Kontor writes in, as its editions call it: in mails,
    /// push notifications, webhooks, the calendar feed, the page and `GET /kinds`.
    const NAMES: GameNames;
    /// The table's chat unless its creator chooses another: `Full` (private channels between
    /// two seats too) for a game of negotiation, else `Table`.
    const CHAT: Chat;
    /// Version of these rules; recorded with every game created.
    const RULES_VERSION: u32;
    const MIN_SEATS: u8;
    const MAX_SEATS: u8;
    /// Every `RuleError::code` this game can produce, with a one-line meaning (for the docs).
    const ERROR_CODES: &'static [(&'static str, &'static str)];

    type Options: Clone + Debug + Serialize + DeserializeOwned + ToSchema + Send + Sync;
    type State: Clone + Debug + Default + PartialEq + Serialize + DeserializeOwned + Send + Sync;
    type Event: Clone + Debug + PartialEq + Serialize + DeserializeOwned + ToSchema + Send + Sync;
    type Command: Clone + Debug + PartialEq + Serialize + DeserializeOwned + ToSchema + Send + Sync;
    type View: Debug + Serialize + ToSchema;
    type Legal: Debug + Serialize + ToSchema;
    /// A standing order (a programmed move) a seat sets ahead: internally tagged like
    /// commands, private to its seat like notes (`RULES.md`, "Standing orders and forced
    /// moves"). The server applies it through [`Rules::match_order`].
    type Order: Clone + Debug + PartialEq + Serialize + DeserializeOwned + ToSchema + Send + Sync;

    /// Validates raw options from a create-game request for this many seats and returns them
    /// with every default filled in. Unknown options are an error.
    fn parse_options(raw: &serde_json::Value, seats: u8) -> Result<Self::Options, OptionsError>;

    /// The opening events: deal, shuffle, place. Folding them onto `State::default()` gives the
    /// first position.
    fn setup(options: &Self::Options, seats: u8, rng: &mut GameRng) -> Vec<Self::Event>;

    /// Validates `command` by `actor` against `state` and returns the events it causes.
    fn decide(
        state: &Self::State,
        actor: Actor,
        command: &Self::Command,
        rng: &mut GameRng,
    ) -> Result<Vec<Self::Event>, RuleError>;

    /// Applies one event. Never random, never fails on an event `decide` or `setup` produced.
    fn evolve(state: &mut Self::State, event: &Self::Event);

    /// What `viewer` may see of the current position.
    fn view(state: &Self::State, viewer: Viewer) -> Self::View;

    /// What `viewer` may see of `event`: the event itself, a redacted copy, or nothing.
    fn redact(event: &Self::Event, viewer: Viewer) -> Option<Self::Event>;

    /// The seats that must (or may) act now; several at once in simultaneous steps.
    /// Empty once the game is finished.
    fn pending(state: &Self::State) -> Vec<Seat>;

    /// What `seat` may do now, in a form a client can render.
    fn legal(state: &Self::State, seat: Seat) -> Self::Legal;

    /// Final scores and ranking once the game is finished; `None` while it runs.
    fn outcome(state: &Self::State) -> Option<Outcome>;

    /// A rules timer to arm in this position, if any.
    fn timer(_state: &Self::State) -> Option<Timer<Self::Command>> {
        None
    }

    /// The command a seat that ran out of time plays when the rules allow a plain pass;
    /// `None` when they do not (then the sensible bot plays the seat).
    fn pass_command(_state: &Self::State, _seat: Seat) -> Option<Self::Command> {
        None
    }

    /// Every `Reason::code` of a forced move or a dropped order, with a one-line meaning (for
    /// the docs, and for the server's wording).
    const AUTO_CODES: &'static [(&'static str, &'static str)] = &[];

    /// The move of `seat` (pending now) when the rules leave it exactly one, and why; the
    /// server plays it at once, in the transaction of the move that caused it. Decided from
    /// public facts only: everyone sees the move come at once, so its being forced must tell
    /// nobody anything they did not know.
    fn forced(_state: &Self::State, _seat: Seat) -> Option<Forced<Self::Command>> {
        None
    }

    /// Whether `seat` may set `order` now, judged on what that seat sees (`view`, its own
    /// view): an order for a decision already past, or one the rules would never accept, is
    /// refused at once.
    fn check_order(view: &Self::View, seat: Seat, order: &Self::Order) -> Result<(), RuleError>;

    /// What `order` of `seat` plays in the position its view shows. Only the seat's own view
    /// goes in, so an order can use nothing the seat may not see. A `Play` is submitted as
    /// the seat's command through `decide` like any other; a refusal drops the order.
    fn match_order(
        view: &Self::View,
        seat: Seat,
        order: &Self::Order,
    ) -> OrderMatch<Self::Command, Self::Order>;

    /// Whether `new`, set by a seat, replaces its standing order `old` (both answer the same
    /// decision).
    fn replaces(new: &Self::Order, old: &Self::Order) -> bool;

    /// An occasion for `seat`, which is not to act now, to answer a coming decision with an
    /// order: a key naming the occasion (the platform may tell the seat once per key), or
    /// `None` when there is nothing to answer ahead.
    fn order_window(_state: &Self::State, _seat: Seat) -> Option<String> {
        None
    }

    /// The standing orders the sensible bot keeps for `seat`, as an experienced player would
    /// set them in this position (for `kontor simulate`): `orders` are the seat's orders now,
    /// the answer the whole new list. Reads only what the seat may know, as the bots do.
    fn bot_orders(
        _state: &Self::State,
        _seat: Seat,
        orders: &[Self::Order],
        _rng: &mut GameRng,
    ) -> Vec<Self::Order> {
        orders.to_vec()
    }

    /// Whether `event` is an undo barrier, and of which kind (a short name such as `draw`,
    /// `reveal`, `payment`, `scoring`, shown in the refusal of an undo that reaches across
    /// it): an undo may never take back this event or anything before it. Every event that
    /// carries a random draw, reveals hidden information to anyone, settles an exchange or
    /// scores is a barrier; the game's `RULES.md` lists them.
    fn barrier(event: &Self::Event) -> Option<&'static str>;

    /// A bot's choice for `seat`, which must be pending. Always a legal command.
    fn bot_command(
        state: &Self::State,
        seat: Seat,
        level: BotLevel,
        rng: &mut GameRng,
    ) -> Self::Command;

    /// Folds a whole log onto the empty state.
    fn fold<'a>(events: impl IntoIterator<Item = &'a Self::Event>) -> Self::State
    where
        Self::Event: 'a,
    {
        let mut state = Self::State::default();
        for event in events {
            Self::evolve(&mut state, event);
        }
        state
    }
}

/// A game's name in each language the server writes in.
// Adding a language adds a field, so that every game must name itself in it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ToSchema)]
pub struct GameNames {
    pub en: &'static str,
    pub ja: &'static str,
}

impl GameNames {
    pub const fn get(&self, language: Language) -> &'static str {
        match language {
            Language::En => self.en,
            Language::Ja => self.ja,
        }
    }
}

/// Which chat channels a table has: the table channel, private channels between two seats,
/// the spectators' channel. The table's setting (`chat` among its options); each game kind has
/// its own default (`chat` in `GET /kinds`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Chat {
    /// The table channel, private channels between any two seats, and the spectators'.
    Full,
    /// The table channel and the spectators', no private channels.
    Table,
    /// No chat at all.
    None,
}

impl Chat {
    pub fn as_str(self) -> &'static str {
        match self {
            Chat::Full => "full",
            Chat::Table => "table",
            Chat::None => "none",
        }
    }
}

/// The registered game kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameKind {
    FlyingDutchman,
    SteelDriver,
}

impl GameKind {
    pub const ALL: [GameKind; 2] = [GameKind::FlyingDutchman, GameKind::SteelDriver];

    /// The kind's name in the API.
    pub fn as_str(self) -> &'static str {
        crate::with_rules!(self, R => R::KIND)
    }

    pub fn parse(kind: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == kind)
    }

    /// The game's name in each language.
    pub fn names(self) -> GameNames {
        crate::with_rules!(self, R => R::NAMES)
    }

    /// The table's chat by default.
    pub fn chat(self) -> Chat {
        crate::with_rules!(self, R => R::CHAT)
    }
}

/// Runs `$body` with `$rules` bound to the rules type of `$kind`: the one place where the
/// platform's generic code meets the registered games.
#[macro_export]
macro_rules! with_rules {
    ($kind:expr, $rules:ident => $body:expr) => {
        match $kind {
            $crate::games::GameKind::FlyingDutchman => {
                #[allow(unused_imports)]
                use $crate::games::Rules as _;
                type $rules = $crate::games::flying_dutchman::FlyingDutchman;
                $body
            }
            $crate::games::GameKind::SteelDriver => {
                #[allow(unused_imports)]
                use $crate::games::Rules as _;
                type $rules = $crate::games::steel_driver::SteelDriver;
                $body
            }
        }
    };
}
