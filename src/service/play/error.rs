//! Why the command service refused or failed: one variant per situation a client can cause,
//! plus the server's own failures. The message (`Display`) is written for a person and shown
//! as the problem's `detail`; the status, the stable code and the extra members are the HTTP
//! layer's business (`http::error`, the one place that maps these).

use crate::games::RuleError;
use crate::service::play::undo::plan::{NoTarget, Refusal};
use crate::store::games::Status as GameStatus;
use crate::store::health::database_unreachable;

/// A refusal or failure of a lobby, play or absence operation.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("there is no game with this id")]
    GameNotFound,
    /// The client decided on `sent`, but the game is at `current`.
    #[error("the game is at version {current}, not {sent}: reload it and decide again")]
    VersionConflict { current: i64, sent: i64 },
    /// The rules engine refused the command (the game's own code and message).
    #[error("{}", .0.message)]
    Rule(RuleError),
    /// The action is not a command of this game at all.
    #[error("this is not a {kind} action: {reason}")]
    InvalidCommand { kind: &'static str, reason: String },
    #[error("this Idempotency-Key was already used for a different request")]
    IdempotencyKeyReused,
    /// A retry of an action applied longer ago than the idempotency window: its answer is no
    /// longer kept. It is not applied again.
    #[error(
        "this action was applied long ago, at version {applied_at}, and its answer is no longer kept; the game is now at version {current}: read the game"
    )]
    IdempotencyKeyExpired { applied_at: i64, current: i64 },
    #[error("you have no seat in this game")]
    NotAPlayer,
    /// The action names a seat other than the caller's.
    #[error("you hold seat {held}, not seat {requested}")]
    NotYourSeat { held: i16, requested: i16 },
    #[error("only players of this game may invite")]
    OnlyPlayersInvite,
    /// An action for a seat forfeited under the time control.
    #[error("your seat was forfeited under the game's time control; the bot plays it out")]
    SeatForfeited,
    /// Taking back a seat that was forfeited (not merely abandoned).
    #[error("this seat was forfeited under the game's time control and cannot be taken back")]
    ForfeitedSeatNotReturnable,
    #[error(
        "the bot plays your seat after your timeouts; take it back with POST /games/{{id}}/return"
    )]
    SeatAbandoned,
    #[error("your seat is not abandoned: you are playing it")]
    SeatNotAbandoned,
    /// An action on a game that is not active.
    #[error("the game is {}; actions are taken in active games", .status.as_str())]
    GameNotActive { status: GameStatus },
    /// Taking back a seat of a game that is not active.
    #[error("the game is not running")]
    GameNotRunning,
    /// A lobby operation (`join`, `leave`, `start`, …) on a game that is no longer open.
    #[error("cannot {action}: the game is {}", .status.as_str())]
    WrongStatus {
        action: &'static str,
        status: GameStatus,
    },
    #[error("you already have a seat in this game")]
    AlreadySeated,
    #[error("this game is private and you are not invited")]
    NotInvited,
    /// The caller organises as many tournaments open for entry or running as an organiser may.
    #[error(
        "you organise {open} tournaments that are open for entry or running, as many as an organiser may at once; start, finish or cancel one first"
    )]
    TooManyTournaments { open: i64 },
    /// Rated play needs a verified address (`KONTOR_UNVERIFIED_MAY_PLAY_RATED=false`).
    #[error(
        "rated games are for accounts whose email address is verified: verify yours first (the link in the mail; Settings can send a new one)"
    )]
    RatedNeedsVerified,
    /// A block between the two users, either way. The message says no more than that the
    /// invitation is not possible, so a blocked user is not told who blocked whom.
    #[error("you cannot invite this player")]
    CannotInvite,
    /// A block between the caller and a player seated in the game, either way.
    #[error("you cannot join this game")]
    CannotJoin,
    #[error("seat {0} is taken")]
    SeatTaken(i16),
    #[error("every seat is taken")]
    GameFull,
    #[error("only the game's creator may {action} it")]
    NotTheCreator { action: &'static str },
    /// An invitation for a name no account has (as the client typed it).
    #[error("there is no user {0:?}")]
    UserNotFound(String),
    /// A profile asked for by a name no live account has (deleted accounts included).
    #[error("there is no player {0:?}")]
    PlayerNotFound(String),
    #[error("{kind} needs at least {min} players; {joined} have joined")]
    NotEnoughPlayers {
        kind: &'static str,
        min: u8,
        joined: usize,
    },
    #[error("there is no game kind {kind:?}; known kinds: {}", known_kinds())]
    UnknownGameKind { kind: String },
    /// The game's options (or its seat count, `field` = `seats`) are not acceptable.
    #[error("{detail}")]
    InvalidOptions { field: String, detail: String },
    /// A field of the request body is well-formed but not acceptable.
    #[error("{detail}")]
    InvalidField { field: String, detail: String },
    /// A query or path parameter is not acceptable.
    #[error("{0}")]
    InvalidParameter(String),
    /// The caller's open games are as many as `KONTOR_OPEN_GAMES_PER_USER` allows.
    #[error(
        "you have {open} open games, the most allowed; start or cancel one (or wait for players to fill one)"
    )]
    TooManyOpenGames { open: i64 },
    /// The caller's invitations today are as many as `KONTOR_INVITATIONS_PER_DAY` allows.
    #[error("you made {limit} invitations today, the most a day; try again in {}", wait_in_words(*.wait))]
    TooManyInvitations { limit: u32, wait: u64 },
    /// A rematch of a game that has not ended.
    #[error("the game is {}; a rematch is offered once it has ended", .status.as_str())]
    RematchNotFinished { status: GameStatus },
    /// The bot played the caller's seat at the end: it stays a bot in a rematch.
    #[error("the bot played your seat at the end of this game, so it stays a bot in a rematch")]
    RematchBotSeat,
    /// Another player's offer is open: answer it.
    #[error("another player's rematch offer ({offer}) is open; accept or decline it")]
    RematchOfferOpen { offer: i64 },
    /// The game has its rematch already.
    #[error("this game's rematch was played already: {game}")]
    RematchExists { game: uuid::Uuid },
    /// The table cannot meet again (a deleted account, a block); says no more.
    #[error("no rematch is possible: {0}")]
    RematchNotPossible(&'static str),
    #[error("there is no such rematch offer for this game")]
    RematchOfferNotFound,
    #[error("the rematch offer is {}; make a new one", .status.as_str())]
    RematchOfferClosed {
        status: crate::store::rematch::OfferStatus,
    },
    #[error("the rematch offer expired at {at}; make a new one")]
    RematchOfferExpired { at: chrono::DateTime<chrono::Utc> },
    /// Answers are final.
    #[error("you answered this offer already ({}); answers are final", if *.accept { "accepted" } else { "declined" })]
    RematchAlreadyAnswered { accept: bool },
    /// No undo in this game: its policy is `none`, or it is not running.
    #[error("{0}")]
    UndoDisabled(&'static str),
    /// Nothing of the caller's to take back since the last barrier.
    #[error("you have no move to take back since the last point of no return")]
    UndoNothingToUndo,
    /// Only other seats moved after the version asked for; the caller's moves are before it.
    #[error("{}", Refusal::NotOwnMoves { to_version: *to_version }.message())]
    UndoNotOwnMoves { to_version: i64 },
    /// The caller's last request was declined and nothing moved since.
    #[error("{}", Refusal::Declined { declined_at: *declined_at }.message())]
    UndoDeclined { declined_at: i64 },
    /// The undo would reach back across a barrier (a reveal, a draw, a settlement...).
    #[error(
        "the move at version {barrier_version} ({barrier}) cannot be taken back; an undo may go back to version {barrier_version} at the earliest"
    )]
    UndoBarrier {
        barrier_version: i64,
        barrier: String,
    },
    /// The request names another version than the game's.
    #[error(
        "the game is at version {current_version}, not {sent}: look again before asking to undo"
    )]
    UndoStale { current_version: i64, sent: i64 },
    /// Under the policy `own`, the undo would take back another seat's move.
    #[error("this undo would take back moves of other seats ({}), and this table allows taking back only your own", seat_list(.seats))]
    UndoNeedsConsent { seats: Vec<i16> },
    /// Another request of the game is open.
    #[error(
        "an undo request ({request}) is open in this game; it must be answered, withdrawn or lapse first"
    )]
    UndoRequestOpen { request: i64 },
    /// No such open request (answered, withdrawn, lapsed, or another one).
    #[error("there is no open undo request {0} in this game")]
    UndoNoRequest(i64),
    /// A seat other than the requester tries to withdraw the request.
    #[error("only the player who asked may withdraw the undo request")]
    UndoNotYourRequest,
    /// The caller's seat is not asked by the request, or answered it already.
    #[error("{0}")]
    UndoNotAsked(&'static str),
    /// A malformed or impossible undo (`to_version` out of range, not between two moves).
    #[error("{0}")]
    InvalidUndo(String),
    /// `to_version` is no place for an undo to land: an undo's own event, a move taken back,
    /// the middle of a move, or nothing played after it (`why`).
    #[error("{}", self.undo_refusal().map(|r| r.message()).unwrap_or_default())]
    UndoNoTarget {
        version: i64,
        why: NoTarget,
        before: i64,
    },
    /// The order is not an order of this game at all.
    #[error("this is not a {kind} order: {reason}")]
    UnknownOrder { kind: &'static str, reason: String },
    /// No standing order of the caller's seat has this id (it played, was dropped, was
    /// cancelled, or never was).
    #[error("you have no standing order {0} in this game")]
    OrderNotFound(u64),
    #[error("a seat may have at most {max} standing orders; cancel one first")]
    TooManyOrders { max: usize },
    #[error("you are on vacation already; end it first to start another")]
    AlreadyOnVacation,
    #[error("you are not on vacation")]
    NotOnVacation,
    // Tournaments (`service::competition::tournaments`).
    #[error("there is no tournament with this id")]
    TournamentNotFound,
    /// The caller may not organise (`KONTOR_TOURNAMENT_ORGANISERS`); the message says why.
    #[error("{0}")]
    OrganiserNotAllowed(&'static str),
    #[error("only the tournament's organiser may do this")]
    NotTheOrganiser,
    #[error("cannot {action}: the tournament is {status}")]
    TournamentWrongStatus {
        action: &'static str,
        status: String,
    },
    #[error("the tournament is full ({max} players)")]
    TournamentFull { max: i32 },
    #[error("you have not entered this tournament")]
    TournamentNotEntered,
    #[error("you withdrew from this tournament already")]
    TournamentAlreadyWithdrawn,
    #[error("a table needs at least {min} players; {joined} have entered")]
    TournamentTooFewPlayers { min: usize, joined: usize },
    /// The database cannot be reached (transient: retry later).
    #[error("the database cannot be reached: {0}")]
    Unavailable(anyhow::Error),
    /// A failure of the server; the cause is for the log.
    #[error(transparent)]
    Internal(anyhow::Error),
}

/// A wait before a limit allows again, in words a person reads at a glance.
pub fn wait_in_words(secs: u64) -> String {
    match secs {
        0..=120 => format!("{secs} seconds"),
        121..=7_200 => format!("{} minutes", secs.div_ceil(60)),
        _ => format!("{} hours", secs.div_ceil(3_600)),
    }
}

/// Seats as a person reads them: "1, 2".
fn seat_list(seats: &[i16]) -> String {
    let seats: Vec<String> = seats.iter().map(|s| format!("seat {s}")).collect();
    seats.join(", ")
}

/// The registered game kinds, for a refusal of another.
fn known_kinds() -> String {
    let kinds: Vec<&str> = crate::games::GameKind::ALL
        .iter()
        .map(|k| k.as_str())
        .collect();
    kinds.join(", ")
}

impl Error {
    /// A bad field in a request body.
    pub fn invalid_field(field: impl Into<String>, detail: impl Into<String>) -> Self {
        Self::InvalidField {
            field: field.into(),
            detail: detail.into(),
        }
    }

    /// The undo refusal whose words are the catalogue's (so the caller's language can have
    /// them), or `None`.
    pub fn undo_refusal(&self) -> Option<Refusal> {
        match *self {
            Self::UndoNotOwnMoves { to_version } => Some(Refusal::NotOwnMoves { to_version }),
            Self::UndoDeclined { declined_at } => Some(Refusal::Declined { declined_at }),
            Self::UndoNoTarget {
                version,
                why,
                before,
            } => Some(Refusal::NoTarget {
                version,
                why,
                before,
            }),
            _ => None,
        }
    }

    /// A failure of the server, told apart from a database that cannot be reached.
    pub fn internal(cause: impl Into<anyhow::Error>) -> Self {
        let cause = cause.into();
        if database_unreachable(&cause) {
            Self::Unavailable(cause)
        } else {
            Self::Internal(cause)
        }
    }
}

impl From<anyhow::Error> for Error {
    fn from(cause: anyhow::Error) -> Self {
        Self::internal(cause)
    }
}

impl From<sqlx::Error> for Error {
    fn from(cause: sqlx::Error) -> Self {
        Self::internal(cause)
    }
}

impl From<serde_json::Error> for Error {
    fn from(cause: serde_json::Error) -> Self {
        Self::internal(cause)
    }
}

impl From<RuleError> for Error {
    fn from(refusal: RuleError) -> Self {
        Self::Rule(refusal)
    }
}

impl From<crate::text::TextError> for Error {
    fn from(error: crate::text::TextError) -> Self {
        Self::InvalidField {
            field: error.field,
            detail: error.detail,
        }
    }
}
