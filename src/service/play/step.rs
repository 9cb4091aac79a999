//! The pure step of a command: from a game as read and one command, everything the append
//! writes and everything announced after it (the rules' events and the platform's, the
//! ranking, the clock plan, the answer, the notices, the live note), decided without I/O, a
//! clock or randomness other than the game's own. `actions::apply` commits what [`decide`]
//! returns; the lobby's start commits what [`start`] returns. Unit tests call both directly.

use super::actions::{ActionResult, Origin, Submission};
use super::auto::{self, Books};
use super::clock::{self, TimeControl};
use super::error::Error;
use super::events::{PlatformEvent, SeatInfo};
use super::log::{new_event, present};
use crate::games::auto::Cause;
use crate::games::rng::GameRng;
use crate::games::{Actor, Outcome, Rules, Seat, Viewer};
use crate::live::Note;
use crate::service::notices::Notice;
use crate::store::append::{Append, CommandRecord, SeatUpdate};
use crate::store::events::{self, NewEvent};
use crate::store::games::{GameHead, SeatRow, Status};
use crate::store::orders::OrderRow;
use crate::store::outbox::NewMail;
use crate::store::seats::{SeatClock, SeatState};
use chrono::{DateTime, Utc};
use serde_json::{Value, json};
use uuid::Uuid;

/// A game as a command is decided on it: its head row, its seats with their clocks, the key
/// of its armed rules timer, and its standing orders with their revision.
#[derive(Clone, Copy)]
pub struct Game<'a> {
    pub head: &'a GameHead,
    pub seats: &'a [SeatClock],
    pub armed_timer: Option<&'a str>,
    pub orders: &'a [OrderRow],
    /// The orders revision read with them; the append is written only while it stands
    /// (`None`: the caller holds the game's row lock).
    pub orders_revision: Option<i64>,
}

/// The most moves the server plays on its own after one command: far more than any game
/// needs (a Steel Driver auction round of proxy bids is a few dozen), a bound on a bug.
pub const MAX_AUTO_MOVES: usize = 1000;

/// A command of a decision as recorded: the submitted one, or one the server played.
#[derive(Clone, Debug, PartialEq)]
pub struct Recorded {
    pub seat: Option<i16>,
    pub command: Value,
    /// Its events (the submitted command's with its preface).
    pub first_seq: i64,
    pub last_seq: i64,
    /// Why the server played it (`service::play::auto::marker`); `None`: submitted.
    pub auto: Option<Value>,
}

/// Everything one decided command writes and announces.
pub struct Decision<S> {
    pub game_id: Uuid,
    /// The version decided on (the append's compare-and-set).
    pub decided_on: i64,
    pub rules_version: i32,
    /// The sequence number of the first new event.
    pub first_seq: i64,
    /// The platform's events (a preface, the end) and the rules' events, in order.
    pub events: Vec<NewEvent>,
    /// The game's version after the events.
    pub version: i64,
    /// `games.undone_events` after the events.
    pub undone_events: i64,
    pub status: Status,
    pub pending: Vec<i16>,
    /// The result, forfeited seats ranked last, once the game is over.
    pub outcome: Option<Outcome>,
    /// The states to keep, by version (see `events::snapshot_versions`).
    pub snapshots: Vec<(i64, S)>,
    /// The state after the events.
    pub state: S,
    /// The seat of the submitted command (`None`: a rules timer's, or none submitted).
    pub actor_seat: Option<Seat>,
    /// The commands: the submitted one first (if any), then those the server played on its
    /// own (forced moves, standing orders), each with its events.
    pub commands: Vec<Recorded>,
    /// The standing-order rows that changed (orders played, dropped, news told).
    pub orders: Vec<OrderRow>,
    pub orders_revision: Option<i64>,
    /// The seats the server moved on its own.
    pub moved: Vec<Seat>,
    pub plan: clock::Plan,
    /// Changes to seat rows: the submission's, and the time banks the plan used.
    pub seat_updates: Vec<SeatUpdate>,
    /// The answer to the submitter, and what its command record keeps of it for retries
    /// (see `ActionResult::stored`).
    pub result: ActionResult,
    pub response: String,
    /// Mail: "your turn" to the seats whose turn begins, the result to everyone at the end.
    pub notices: Vec<Notice>,
    pub note: Note,
    pub at: DateTime<Utc>,
    /// What went wrong that should never: a forced move the rules refused (the server then
    /// plays no more on its own in this step). The caller logs them.
    pub warnings: Vec<String>,
}

/// Decides `submission` on `game`, whose current state is `state`, at `at`, and then what
/// the server plays on its own after it (forced moves and standing orders, each as its
/// seat's own command): a refusal by the rules of the submission is `Error::Rule`, and
/// nothing is decided.
pub fn decide<R: Rules>(
    game: Game<'_>,
    state: R::State,
    submission: Submission<'_, R::Command>,
    at: DateTime<Utc>,
) -> Result<Decision<R::State>, Error> {
    let books = Books::<R>::read(game.orders, game.head.seat_count as u8);
    Ok(chain::<R>(game, state, Some(submission), books, at)?.expect("a submission decides"))
}

/// What the server plays on its own in `game` as it stands (after a rewind, or a change of
/// orders), with the orders `books`: `Ok(Err(rows))` when it plays nothing, with the order
/// rows that changed all the same (orders reviewed, done or dropped).
#[allow(clippy::type_complexity)]
pub fn settle<R: Rules>(
    game: Game<'_>,
    state: R::State,
    books: Books<R>,
    at: DateTime<Utc>,
) -> Result<Result<Decision<R::State>, Vec<OrderRow>>, Error> {
    chain::<R>(game, state, None, books, at)
}

/// The users of `seats` by seat.
fn users_of(seats: &[SeatClock]) -> Vec<(i16, Uuid)> {
    seats.iter().map(|c| (c.seat, c.user_id)).collect()
}

/// The log being decided: its events from `first_seq` on, with the states to keep.
struct Building<S> {
    first_seq: i64,
    events: Vec<NewEvent>,
    snapshots: Vec<(i64, S)>,
}

impl<S: Clone> Building<S> {
    /// The sequence number the next event gets.
    fn next_seq(&self) -> i64 {
        self.first_seq + self.events.len() as i64
    }

    /// Appends a rules event of `R` caused by `actor`, folding it onto `state`.
    fn rules<R: Rules<State = S>>(
        &mut self,
        state: &mut S,
        event: &R::Event,
        actor: Option<Seat>,
        seats: u8,
    ) {
        R::evolve(state, event);
        let seq = self.next_seq();
        self.events.push(new_event::<R>(event, actor, seats));
        if seq % events::SNAPSHOT_EVERY == 0 {
            self.snapshots.push((seq, state.clone()));
        }
    }
}

fn chain<R: Rules>(
    game: Game<'_>,
    mut state: R::State,
    submission: Option<Submission<'_, R::Command>>,
    mut books: Books<R>,
    at: DateTime<Utc>,
) -> Result<Result<Decision<R::State>, Vec<OrderRow>>, Error> {
    let head = game.head;
    let nonces = head.nonces.clone().unwrap_or_default();
    let seats = head.seat_count as u8;
    let first_seq = head.version + 1;
    let mut log = Building::<R::State> {
        first_seq,
        events: Vec::new(),
        snapshots: Vec::new(),
    };
    let mut undone_events = head.undone_events;
    let mut commands: Vec<Recorded> = Vec::new();
    let mut actor_seat = None;
    let mut seat_updates = Vec::new();
    let mut submitted = false;
    if let Some(submission) = submission {
        let Submission {
            actor,
            command,
            origin: _,
            preface,
            seat_updates: updates,
        } = submission;
        seat_updates = updates;
        submitted = true;
        // The step is one more than the effective events before the batch: an undone event
        // (or an undo event) never shifts a later draw (see `service::play::undo::timeline`).
        let step = first_seq - undone_events;
        let mut rng = GameRng::for_step(&head.seed_bytes(), &nonces, step as u64);
        let decided = R::decide(&state, actor, command, &mut rng).map_err(Error::Rule)?;
        actor_seat = match actor {
            Actor::Seat(seat) => Some(seat),
            Actor::System => None,
        };
        log.events = preface.iter().map(PlatformEvent::to_new_event).collect();
        // A preface may lapse an open undo request: an undo event, which does not count.
        undone_events += log
            .events
            .iter()
            .filter(|e| super::undo::is_undo_event(&e.kind))
            .count() as i64;
        // The states to keep as snapshots, at each multiple of SNAPSHOT_EVERY the events pass
        // (the platform's events leave the rules' state as it is), so that every past version
        // folds from a snapshot fewer than SNAPSHOT_EVERY versions below it.
        log.snapshots = events::snapshot_versions(head.version, log.next_seq() - 1, false)
            .into_iter()
            .map(|v| (v, state.clone()))
            .collect();
        for event in &decided {
            log.rules::<R>(&mut state, event, actor_seat, seats);
        }
        commands.push(Recorded {
            seat: actor_seat.map(i16::from),
            command: serde_json::to_value(command)?,
            first_seq,
            last_seq: log.next_seq() - 1,
            auto: None,
        });
    }
    // What the server plays on its own: forced moves and standing orders, each decided like
    // a click of its seat with the generator of its own step, until none is left.
    let mut notices = Vec::new();
    let mut moved: Vec<Seat> = Vec::new();
    let mut warnings = Vec::new();
    // Moves tried on their own, refused ones too: `moved` holds each seat once, so it is no bound.
    let mut tried = 0;
    while R::outcome(&state).is_none() {
        let Some(play) = crate::games::auto::next::<R>(&state, &mut books.book, &mut notices)
        else {
            break;
        };
        books.tell_notices(std::mem::take(&mut notices), log.next_seq() - 1);
        if tried >= MAX_AUTO_MOVES {
            warnings.push(format!(
                "{tried} moves tried on their own after one command; no more"
            ));
            break;
        }
        tried += 1;
        let seq = log.next_seq();
        let mut rng = GameRng::for_step(&head.seed_bytes(), &nonces, (seq - undone_events) as u64);
        let order = match &play.cause {
            Cause::Order { index, .. } => books.book.of(play.seat).get(*index).cloned(),
            Cause::Forced(_) => None,
        };
        let decided =
            R::decide(&state, Actor::Seat(play.seat), &play.command, &mut rng).and_then(|events| {
                if events.is_empty() {
                    Err(crate::games::RuleError::new(
                        "no_effect",
                        "the move changes nothing",
                    ))
                } else {
                    Ok(events)
                }
            });
        match decided {
            Ok(decided) => {
                crate::games::auto::settle(&mut books.book, &play, Ok(()), &mut notices);
                for event in &decided {
                    log.rules::<R>(&mut state, event, Some(play.seat), seats);
                }
                let last_seq = log.next_seq() - 1;
                let command = serde_json::to_value(&play.command)?;
                books.tell(
                    play.seat,
                    auto::played(&play.cause, order.as_ref(), command.clone(), last_seq),
                );
                commands.push(Recorded {
                    seat: Some(i16::from(play.seat)),
                    command,
                    first_seq: seq,
                    last_seq,
                    auto: Some(auto::marker(&play.cause, order.as_ref())),
                });
                if !moved.contains(&play.seat) {
                    moved.push(play.seat);
                }
            }
            Err(error) => {
                if let Cause::Forced(_) = play.cause {
                    warnings.push(format!(
                        "the rules refused the forced move {:?} of seat {}: {error}",
                        play.command, play.seat
                    ));
                    break;
                }
                crate::games::auto::settle(&mut books.book, &play, Err(&error), &mut notices);
            }
        }
    }
    let reached = log.next_seq() - 1;
    books.tell_notices(notices, reached.max(head.version));
    let users = users_of(game.seats);
    if commands.is_empty() {
        return Ok(Err(books.rows(&users)));
    }
    let rules_events_end = reached;
    let mut outcome = R::outcome(&state);
    if let Some(outcome) = &mut outcome {
        let forfeited: Vec<Seat> = game
            .seats
            .iter()
            .filter(|s| s.state == SeatState::Forfeited)
            .map(|s| s.seat as Seat)
            .collect();
        rank_forfeits_last(outcome, &forfeited);
        log.events.push(
            PlatformEvent::GameEnded {
                outcome: outcome.clone(),
                seed: hex::encode(&head.seed),
            }
            .to_new_event(),
        );
        if let Some(last) = commands.last_mut() {
            last.last_seq = log.next_seq() - 1;
        }
    }
    let version = head.version + log.events.len() as i64;
    let pending: Vec<i16> = R::pending(&state).into_iter().map(i16::from).collect();
    let status = if outcome.is_some() {
        Status::Finished
    } else {
        Status::Active
    };
    // After the rules' events (the end of the game), and the last state of a finished game.
    for v in events::snapshot_versions(rules_events_end, version, status == Status::Finished) {
        log.snapshots.push((v, state.clone()));
    }
    let timer = R::timer(&state);
    // A seat the server moved begins a new turn if it must act again, and its clock stops
    // if it need not: nobody times out on a move played for them.
    let moved16: Vec<i16> = moved.iter().map(|&s| i16::from(s)).collect();
    let before: Vec<i16> = head
        .pending_seats
        .iter()
        .copied()
        .filter(|s| !moved16.contains(s))
        .collect();
    let mut plan = clock::plan(
        time_control(head).as_ref(),
        game.seats,
        &before,
        &pending,
        actor_seat.map(i16::from),
        timer.as_ref().map(|t| (t.key.as_str(), t.after_secs)),
        game.armed_timer,
        at,
    );
    for &seat in &moved16 {
        if head.pending_seats.contains(&seat) && !pending.contains(&seat) {
            plan.disarm.push(seat);
        }
    }
    plan.disarm.sort();
    plan.disarm.dedup();
    for &(seat, bank) in &plan.banks {
        match seat_updates.iter_mut().find(|u| u.seat == seat) {
            Some(update) => update.bank_secs = Some(bank),
            None => seat_updates.push(SeatUpdate {
                seat,
                bank_secs: Some(bank),
                ..SeatUpdate::default()
            }),
        }
    }
    // The answer shows the new events as the acting seat may see them (everything once the
    // game is over).
    let viewer = match (status, actor_seat) {
        (Status::Finished, _) => Viewer::Omniscient,
        (_, Some(seat)) => Viewer::Seat(seat),
        (_, None) => Viewer::Spectator,
    };
    let mut rows = events::rows_of(&log.events, first_seq, at);
    for command in commands.iter().filter(|c| c.auto.is_some()) {
        if let Some(row) = rows.iter_mut().find(|r| r.seq == command.first_seq) {
            row.auto = command.auto.clone();
        }
    }
    let result = ActionResult {
        version,
        status: status.as_str().to_string(),
        pending: pending.clone(),
        events: present::<R>(&rows, viewer)?,
    };
    let turns = turns_begun(head.id, version, &plan, game.seats);
    let mut notices = turns.notices;
    // A seat's turn mail says what the server played for it and what became of its orders
    // since its last one.
    for notice in &mut notices {
        if let Some(seat) = seat_of(game.seats, notice.user_id) {
            tell_in(notice, books.take_unmailed(seat as Seat, version));
        }
    }
    if status == Status::Finished {
        for clock in game.seats {
            let mut over = Notice::game_over(clock.user_id, head.id, json!({}));
            tell_in(&mut over, books.take_unmailed(clock.seat as Seat, version));
            notices.push(over);
        }
    }
    let orders = books.rows(&users);
    let mut note = Note::moved(
        head.id,
        version,
        status.as_str(),
        turns.users,
        game.seats.iter().map(|s| s.user_id).collect(),
    );
    note.orders = orders.iter().map(|r| r.user_id).collect();
    let response = if submitted {
        result.stored()
    } else {
        String::new()
    };
    Ok(Ok(Decision {
        game_id: head.id,
        decided_on: head.version,
        rules_version: head.rules_version,
        first_seq,
        events: log.events,
        version,
        undone_events,
        status,
        pending,
        outcome,
        snapshots: log.snapshots,
        state,
        actor_seat,
        commands,
        orders,
        orders_revision: game.orders_revision,
        moved,
        plan,
        seat_updates,
        response,
        result,
        notices,
        note,
        at,
        warnings,
    }))
}

/// The seat `user` holds among `seats`.
fn seat_of(seats: &[SeatClock], user: Uuid) -> Option<i16> {
    seats.iter().find(|c| c.user_id == user).map(|c| c.seat)
}

/// Adds `news` (what the server played for the recipient, what became of their orders) to a
/// notice's data: `auto` is `{"count": n, "news": [the latest 10]}`.
fn tell_in(notice: &mut Notice, news: Vec<auto::News>) {
    if news.is_empty() {
        return;
    }
    let count = news.len();
    let latest: Vec<&auto::News> = news.iter().rev().take(10).rev().collect();
    if let Some(fields) = notice.data.as_object_mut() {
        fields.insert("auto".to_string(), json!({"count": count, "news": latest}));
    }
}

impl<S: serde::Serialize> Decision<S> {
    /// The append that writes this decision, for the command of `origin`; `mail` is
    /// `self.notices` as the outbox takes them.
    pub fn append<'a>(&'a self, origin: Origin<'a>, mail: &'a [NewMail<'a>]) -> Append<'a, S> {
        let commands = self
            .commands
            .iter()
            .map(|recorded| match &recorded.auto {
                None => CommandRecord {
                    id: Uuid::now_v7(),
                    user_id: origin.user_id,
                    idempotency_key: origin.idempotency_key,
                    request_hash: origin.request_hash,
                    seat: recorded.seat,
                    command: recorded.command.clone(),
                    response: self.response.clone(),
                    first_seq: recorded.first_seq,
                    last_seq: recorded.last_seq,
                    auto: None,
                },
                Some(marker) => CommandRecord {
                    id: Uuid::now_v7(),
                    user_id: None,
                    idempotency_key: None,
                    request_hash: None,
                    seat: recorded.seat,
                    command: recorded.command.clone(),
                    response: "{}".to_string(),
                    first_seq: recorded.first_seq,
                    last_seq: recorded.last_seq,
                    auto: Some(marker.clone()),
                },
            })
            .collect();
        Append {
            game_id: self.game_id,
            expected_version: self.decided_on,
            version: self.version,
            undone_events: self.undone_events,
            status: self.status.as_str(),
            pending: &self.pending,
            outcome: self
                .outcome
                .as_ref()
                .map(|o| serde_json::to_value(o).expect("outcomes serialise")),
            at: self.at,
            first_seq: self.first_seq,
            events: events::Batch::new(&self.events, self.first_seq),
            rules_version: self.rules_version,
            snapshots: &self.snapshots,
            commands,
            orders_revision: self.orders_revision,
            orders: &self.orders,
            clocks: self.plan.clocks(),
            seats: &self.seat_updates,
            mail,
            closes_undo: self.events.iter().any(|e| e.kind == "kontor.undo_lapsed"),
        }
    }
}

/// What starting a game writes: the start event and the setup, the first state, the
/// clocks, the notices and the note.
pub struct Start {
    /// `kontor.game_started`, then the rules' setup; the first is version 1.
    pub events: Vec<NewEvent>,
    /// The game's version after them.
    pub version: i64,
    /// The state after the setup (the first state cache).
    pub state: Value,
    pub pending: Vec<i16>,
    pub nonces: Vec<String>,
    pub plan: clock::Plan,
    /// "The game has started" to every player, then "your turn" to those who must act.
    pub notices: Vec<Notice>,
    pub note: Note,
}

/// Starts the open game `head` with `seats` (numbered 0.. without gaps), whose clocks are
/// `clocks` (every time bank full), at `at`.
pub fn start<R: Rules>(
    head: &GameHead,
    seats: &[SeatRow],
    clocks: &[SeatClock],
    at: DateTime<Utc>,
) -> Result<Start, Error> {
    let nonces: Vec<String> = seats.iter().map(|s| s.nonce.clone()).collect();
    let started = PlatformEvent::GameStarted {
        kind: head.kind.clone(),
        rules_version: head.rules_version,
        options: head.options.clone(),
        seats: seats
            .iter()
            .map(|s| SeatInfo {
                seat: s.seat as Seat,
                user_id: s.user_id,
                username: s.username.clone(),
                bot: s.state.played_by_bot(),
            })
            .collect(),
        seed_commitment: head.seed_commitment.clone(),
        nonces: nonces.clone(),
    };
    let seat_count = seats.len() as u8;
    let options: R::Options =
        serde_json::from_value(crate::service::play::table::rules_options(&head.options))
            .map_err(|e| Error::internal(anyhow::anyhow!("stored options do not decode: {e}")))?;
    let mut rng = GameRng::for_step(&head.seed_bytes(), &nonces, 2);
    let setup = R::setup(&options, seat_count, &mut rng);
    let state = R::fold(&setup);
    let pending: Vec<i16> = R::pending(&state).into_iter().map(i16::from).collect();
    let timer = R::timer(&state);
    let mut events = vec![started.to_new_event()];
    events.extend(setup.iter().map(|e| new_event::<R>(e, None, seat_count)));
    let version = events.len() as i64;
    let plan = clock::plan(
        time_control(head).as_ref(),
        clocks,
        &[],
        &pending,
        None,
        timer.as_ref().map(|t| (t.key.as_str(), t.after_secs)),
        None,
        at,
    );
    let turns = turns_begun(head.id, version, &plan, clocks);
    let mut notices: Vec<Notice> = seats
        .iter()
        .map(|s| Notice::game_started(s.user_id, head.id, json!({})))
        .collect();
    notices.extend(turns.notices);
    let note = Note::started(
        head.id,
        version,
        turns.users,
        clocks.iter().map(|c| c.user_id).collect(),
    );
    Ok(Start {
        events,
        version,
        state: serde_json::to_value(&state)?,
        pending,
        nonces,
        plan,
        notices,
        note,
    })
}

/// The game's time control, if it has one.
pub fn time_control(head: &GameHead) -> Option<TimeControl> {
    head.time_control
        .clone()
        .and_then(|c| serde_json::from_value(c).ok())
}

/// Whose turn begins with a plan: their users (for the live note) and their "your turn"
/// notices, with the deadline each must act by.
pub struct TurnsBegun {
    pub users: Vec<Uuid>,
    pub notices: Vec<Notice>,
}

/// The turns `plan` begins in game `game_id` at `version`, for the players of `clocks`.
pub fn turns_begun(
    game_id: Uuid,
    version: i64,
    plan: &clock::Plan,
    clocks: &[SeatClock],
) -> TurnsBegun {
    let mut begun = TurnsBegun {
        users: Vec::new(),
        notices: Vec::new(),
    };
    for &seat in &plan.new_turns {
        let Some(clock) = clocks.iter().find(|c| c.seat == seat) else {
            continue;
        };
        let deadline = plan.arm.iter().find(|d| d.seat == seat).map(|d| d.due_at);
        begun.users.push(clock.user_id);
        begun.notices.push(Notice::your_turn(
            clock.user_id,
            game_id,
            seat,
            version,
            json!({"deadline": deadline}),
        ));
    }
    begun
}

/// A forfeited seat ranks after every other and cannot win; the others keep their order.
pub fn rank_forfeits_last(outcome: &mut Outcome, forfeited: &[Seat]) {
    if forfeited.is_empty() {
        return;
    }
    let mut order: Vec<usize> = (0..outcome.ranks.len()).collect();
    let key = |i: usize| (forfeited.contains(&(i as Seat)), outcome.ranks[i]);
    order.sort_by_key(|&i| key(i));
    let mut ranks = vec![0u8; outcome.ranks.len()];
    for (position, &seat) in order.iter().enumerate() {
        ranks[seat] = if position > 0 && key(order[position - 1]) == key(seat) {
            ranks[order[position - 1]]
        } else {
            position as u8 + 1
        };
    }
    outcome.ranks = ranks;
    outcome.winners = (0..outcome.ranks.len())
        .filter(|&i| outcome.ranks[i] == 1)
        .map(|i| i as Seat)
        .collect();
}

#[cfg(test)]
mod tests {
    use super::clock::AbandonPolicy;
    use super::*;
    use crate::games::flying_dutchman::FlyingDutchman;
    use crate::games::steel_driver::SteelDriver;
    use crate::games::{BotLevel, RuleError};
    use crate::service::notices::NoticeKind;

    const SEATS: i16 = 3;

    fn user(seat: i16) -> Uuid {
        Uuid::from_u128(0x1000 + seat as u128)
    }

    fn open_game<R: Rules>(time_control: Option<TimeControl>) -> GameHead {
        let options = R::parse_options(&json!({}), SEATS as u8).expect("default options");
        let seed = [7u8; 32];
        GameHead {
            id: Uuid::from_u128(42),
            kind: R::KIND.to_string(),
            rules_version: R::RULES_VERSION as i32,
            options: serde_json::to_value(options).unwrap(),
            seat_count: SEATS,
            visibility: "public".to_string(),
            status: Status::Open,
            version: 0,
            created_by: user(0),
            seed: seed.to_vec(),
            seed_commitment: crate::games::rng::commitment(&seed),
            nonces: None,
            pending_seats: Vec::new(),
            outcome: None,
            sandbox: false,
            imported_from: None,
            time_control: time_control.map(|c| serde_json::to_value(c).unwrap()),
            created_at: DateTime::UNIX_EPOCH,
            started_at: None,
            finished_at: None,
            turn_started_at: None,
            undone_events: 0,
        }
    }

    fn seat_rows() -> Vec<SeatRow> {
        (0..SEATS)
            .map(|seat| SeatRow {
                display_name: None,
                seat,
                user_id: user(seat),
                username: format!("player{seat}"),
                nonce: format!("nonce {seat}"),
                state: SeatState::Active,
                deadline: None,
            })
            .collect()
    }

    fn clocks(bank_secs: Option<i64>) -> Vec<SeatClock> {
        (0..SEATS)
            .map(|seat| SeatClock {
                seat,
                user_id: user(seat),
                state: SeatState::Active,
                bank_secs,
                timeouts: 0,
                vacation_until: None,
                turn_started_at: None,
            })
            .collect()
    }

    fn at() -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000, 0).unwrap()
    }

    fn kinds(notices: &[Notice], kind: NoticeKind) -> Vec<Uuid> {
        notices
            .iter()
            .filter(|n| n.kind == kind)
            .map(|n| n.user_id)
            .collect()
    }

    /// Starts a game of `R` and plays it to the end with random bots, through the pure step
    /// alone, checking each decision against the game it was decided on.
    fn play_out<R: Rules>() -> usize {
        let mut head = open_game::<R>(None);
        let clocks = clocks(None);
        let start = start::<R>(&head, &seat_rows(), &clocks, at()).unwrap();
        assert_eq!(start.events[0].kind, "kontor.game_started");
        assert_eq!(start.version, start.events.len() as i64);
        let users: Vec<Uuid> = (0..SEATS).map(user).collect();
        assert_eq!(kinds(&start.notices, NoticeKind::GameStarted), users);
        let pending_users: Vec<Uuid> = start.pending.iter().map(|&s| user(s)).collect();
        assert_eq!(kinds(&start.notices, NoticeKind::YourTurn), pending_users);
        assert_eq!(
            start.note,
            Note::started(head.id, start.version, pending_users, users.clone())
        );

        head.status = Status::Active;
        head.version = start.version;
        head.pending_seats = start.pending.clone();
        head.nonces = Some(start.nonces.clone());
        let mut state: R::State = serde_json::from_value(start.state).unwrap();
        let mut rules_events: Vec<Value> = Vec::new();
        let mut bots = GameRng::from_u64(11);
        let mut forced_played = 0;
        for _ in 0..20_000 {
            let (actor, command) = match head.pending_seats.first() {
                Some(&seat) => (
                    Actor::Seat(seat as Seat),
                    R::bot_command(&state, seat as Seat, BotLevel::Random, &mut bots),
                ),
                None => (
                    Actor::System,
                    R::timer(&state)
                        .expect("a game nobody must act in waits for a timer")
                        .command,
                ),
            };
            let game = Game {
                head: &head,
                seats: &clocks,
                armed_timer: None,
                orders: &[],
                orders_revision: None,
            };
            let submission = Submission {
                actor,
                command: &command,
                origin: Origin::default(),
                preface: Vec::new(),
                seat_updates: Vec::new(),
            };
            let decision = decide::<R>(game, state, submission, at()).unwrap();
            assert_eq!(decision.first_seq, head.version + 1);
            assert_eq!(decision.decided_on, head.version);
            assert_eq!(
                decision.version,
                head.version + decision.events.len() as i64
            );
            assert_eq!(decision.result.version, decision.version);
            assert_eq!(decision.result.pending, decision.pending);
            // What a retry gets again: the answer but its events (read from the log then).
            let stored: serde_json::Value = serde_json::from_str(&decision.response).unwrap();
            assert_eq!(
                stored,
                json!({"version": decision.version, "status": decision.result.status,
                       "pending": decision.pending})
            );
            assert_eq!(decision.note.version, decision.version);
            assert_eq!(decision.note.users, users);
            assert_eq!(
                decision.note.your_turn,
                kinds(&decision.notices, NoticeKind::YourTurn)
            );
            for (version, _) in &decision.snapshots {
                assert!(*version > head.version && *version <= decision.version);
            }
            // The submitted command, then the moves the server played on its own: each its
            // own record, marked forced, their events contiguous and by their seat.
            assert_eq!(decision.commands[0].auto, None);
            let mut next = decision.first_seq;
            for command in &decision.commands {
                assert_eq!(command.first_seq, next);
                assert!(command.last_seq >= command.first_seq);
                next = command.last_seq + 1;
                if let Some(marker) = &command.auto {
                    forced_played += 1;
                    assert_eq!(marker["kind"], "forced");
                    for seq in command.first_seq..=command.last_seq {
                        let event = &decision.events[(seq - decision.first_seq) as usize];
                        if !event.kind.starts_with("kontor.") {
                            assert_eq!(event.actor, command.seat);
                        }
                    }
                }
            }
            assert_eq!(next, decision.version + 1);
            // No wait without a choice: nobody left to act has a forced move.
            for &seat in &decision.pending {
                assert_eq!(R::forced(&decision.state, seat as Seat), None);
            }
            // Nobody's clock runs for a move the server played: only the seats pending now
            // start a turn.
            for turn in &decision.plan.new_turns {
                assert!(decision.pending.contains(turn));
            }
            rules_events.extend(
                decision
                    .events
                    .iter()
                    .filter(|e| !e.kind.starts_with("kontor."))
                    .map(|e| e.payload.clone()),
            );
            head.version = decision.version;
            head.pending_seats = decision.pending.clone();
            state = decision.state;
            if decision.status == Status::Finished {
                let last = decision.events.last().unwrap();
                assert_eq!(last.kind, "kontor.game_ended");
                assert!(decision.outcome.is_some());
                assert_eq!(decision.note.status, "finished");
                assert_eq!(kinds(&decision.notices, NoticeKind::GameOver), users);
                assert_eq!(
                    decision.snapshots.last().map(|(v, _)| *v),
                    Some(decision.version)
                );
                // The state the steps left is the log's: folding the rules' events gives it.
                let events: Vec<R::Event> = rules_events
                    .into_iter()
                    .map(|e| serde_json::from_value(e).unwrap())
                    .collect();
                let mut setup = R::setup(
                    &serde_json::from_value(head.options.clone()).unwrap(),
                    SEATS as u8,
                    &mut GameRng::for_step(&head.seed_bytes(), &start.nonces, 2),
                );
                setup.extend(events);
                assert_eq!(R::fold(&setup), state);
                return forced_played;
            }
        }
        panic!("{} did not end", R::KIND);
    }

    #[test]
    fn a_steel_driver_game_is_played_to_the_end_by_the_pure_step() {
        // Steel Driver has many forced moves (a bidder who cannot outbid, a company that
        // cannot build): the step plays them on its own.
        assert!(play_out::<SteelDriver>() > 0);
    }

    #[test]
    fn a_flying_dutchman_game_is_played_to_the_end_by_the_pure_step() {
        play_out::<FlyingDutchman>();
    }

    fn started<R: Rules>(control: Option<TimeControl>) -> (GameHead, Vec<SeatClock>, R::State) {
        let mut head = open_game::<R>(control);
        let clocks = clocks(Some(0));
        let start = start::<R>(&head, &seat_rows(), &clocks, at()).unwrap();
        head.status = Status::Active;
        head.version = start.version;
        head.pending_seats = start.pending;
        head.nonces = Some(start.nonces);
        (head, clocks, serde_json::from_value(start.state).unwrap())
    }

    /// The order rows of a game where each of `seats` holds `order`.
    fn rows_with(seats: &[Seat], order: &impl serde::Serialize) -> Vec<OrderRow> {
        seats
            .iter()
            .map(|&seat| OrderRow {
                seat: i16::from(seat),
                user_id: user(i16::from(seat)),
                orders: json!([{"id": 1, "order": order}]),
                next_id: 2,
                news: json!([]),
                mailed_through: 0,
            })
            .collect()
    }

    #[test]
    fn standing_orders_play_in_the_step_as_their_seats_commands_and_only_they_are_told() {
        use crate::games::steel_driver::{Command, Order};
        let (head, clocks, state) = started::<SteelDriver>(None);
        let holder = head.pending_seats[0] as Seat;
        // In the order the pawn goes round.
        let others: Vec<Seat> = (1..SEATS as Seat)
            .map(|i| (holder + i) % SEATS as Seat)
            .collect();
        let rows = rows_with(&others, &Order::PassPawn { round: state.round });
        let game = Game {
            head: &head,
            seats: &clocks,
            armed_timer: None,
            orders: &rows,
            orders_revision: Some(7),
        };
        let submission = Submission {
            actor: Actor::Seat(holder),
            command: &Command::PassPawn,
            origin: Origin::default(),
            preface: Vec::new(),
            seat_updates: Vec::new(),
        };
        let decision = decide::<SteelDriver>(game, state, submission, at()).unwrap();
        assert_eq!(decision.orders_revision, Some(7));
        // The click, then each other seat's order passing the pawn in turn, each its own
        // command of its seat, marked as played by an order.
        assert!(decision.commands.len() >= 3, "{:?}", decision.commands);
        for (command, &seat) in decision.commands[1..3].iter().zip(&others) {
            assert_eq!(command.seat, Some(i16::from(seat)));
            assert_eq!(command.command, json!({"type": "pass_pawn"}));
            let marker = command.auto.as_ref().expect("played by the server");
            assert_eq!(marker["kind"], "order");
            assert_eq!(marker["order"]["type"], "pass_pawn");
        }
        // Each seat whose order played is told (the news of its row), nobody else.
        for &seat in &others {
            let row = decision
                .orders
                .iter()
                .find(|r| r.seat == i16::from(seat))
                .expect("its row changed");
            let news: Vec<auto::News> = serde_json::from_value(row.news.clone()).unwrap();
            assert!(news.iter().any(|n| n.kind == auto::NewsKind::Played));
        }
        assert!(!decision.orders.iter().any(|r| r.seat == i16::from(holder)));
        assert_eq!(
            decision.note.orders.len(),
            decision.orders.len(),
            "the live note names the owners of the rows that changed"
        );
        // The clicking seat sees the moves as if clicked: no marker on others' orders.
        let first_auto = decision.commands[1].first_seq;
        let seen = decision
            .result
            .events
            .iter()
            .find(|e| e.seq == first_auto)
            .unwrap();
        assert_eq!((seen.auto, &seen.reason), (None, &None));
        // The owner of the order sees its marker.
        let mut rows = crate::store::events::rows_of(&decision.events, decision.first_seq, at());
        for command in &decision.commands {
            if let Some(row) = rows.iter_mut().find(|r| r.seq == command.first_seq) {
                row.auto = command.auto.clone();
            }
        }
        let owner = present::<SteelDriver>(&rows, Viewer::Seat(others[0])).unwrap();
        let theirs = owner.iter().find(|e| e.seq == first_auto).unwrap();
        assert_eq!(theirs.auto, Some(auto::AutoKind::Order));
        let spectator = present::<SteelDriver>(&rows, Viewer::Spectator).unwrap();
        assert!(
            spectator
                .iter()
                .all(|e| e.auto.is_none() || e.auto == Some(auto::AutoKind::Forced))
        );
    }

    #[test]
    fn a_refusal_by_the_rules_decides_nothing() {
        let (head, clocks, state) = started::<SteelDriver>(None);
        let waiting = (0..SEATS as Seat)
            .find(|s| !head.pending_seats.contains(&i16::from(*s)))
            .expect("someone waits");
        let acting = head.pending_seats[0] as Seat;
        let command =
            SteelDriver::bot_command(&state, acting, BotLevel::Random, &mut GameRng::from_u64(1));
        let game = Game {
            head: &head,
            seats: &clocks,
            armed_timer: None,
            orders: &[],
            orders_revision: None,
        };
        let submission = Submission {
            actor: Actor::Seat(waiting),
            command: &command,
            origin: Origin::default(),
            preface: Vec::new(),
            seat_updates: Vec::new(),
        };
        match decide::<SteelDriver>(game, state, submission, at()) {
            Err(Error::Rule(RuleError { code, .. })) => assert!(!code.is_empty()),
            Err(other) => panic!("refused otherwise: {other}"),
            Ok(_) => panic!("a waiting seat acted"),
        }
    }

    #[test]
    fn a_time_control_arms_the_new_turns_and_says_their_deadline() {
        let control = TimeControl {
            seconds_per_move: 3600,
            bank_seconds: 0,
            weekends_paused: false,
            abandon_after: 3,
            on_abandon: AbandonPolicy::Bot,
        };
        let (head, clocks, state) = started::<SteelDriver>(Some(control));
        let acting = head.pending_seats[0];
        let command = SteelDriver::bot_command(
            &state,
            acting as Seat,
            BotLevel::Random,
            &mut GameRng::from_u64(3),
        );
        let game = Game {
            head: &head,
            seats: &clocks,
            armed_timer: None,
            orders: &[],
            orders_revision: None,
        };
        let submission = Submission {
            actor: Actor::Seat(acting as Seat),
            command: &command,
            origin: Origin::default(),
            preface: vec![PlatformEvent::TurnTimedOut {
                seat: acting as Seat,
                consecutive: 1,
                played: crate::service::play::events::TimeoutPlay::Bot,
            }],
            seat_updates: Vec::new(),
        };
        let decision = decide::<SteelDriver>(game, state, submission, at()).unwrap();
        // The preface comes first, then the rules' events.
        assert_eq!(decision.events[0].kind, "kontor.turn_timed_out");
        assert!(!decision.plan.new_turns.is_empty());
        for notice in decision
            .notices
            .iter()
            .filter(|n| n.kind == NoticeKind::YourTurn)
        {
            let seat = clocks
                .iter()
                .find(|c| c.user_id == notice.user_id)
                .unwrap()
                .seat;
            let armed = decision.plan.arm.iter().find(|d| d.seat == seat).unwrap();
            assert_eq!(armed.due_at, at() + chrono::Duration::seconds(3600));
            assert_eq!(notice.data["deadline"], json!(armed.due_at));
        }
    }

    #[test]
    fn forfeited_seats_rank_last_and_cannot_win() {
        let mut outcome = Outcome {
            ranks: vec![1, 2, 2, 4],
            winners: vec![0],
            scores: vec![Some(9), Some(5), Some(5), Some(1)],
        };
        rank_forfeits_last(&mut outcome, &[0]);
        assert_eq!(outcome.ranks, vec![4, 1, 1, 3]);
        assert_eq!(outcome.winners, vec![1, 2]);
    }
}
