//! Fairness verification of a finished game's complete export.
//!
//! The server committed to a secret seed (its SHA-256 is public from the creation of the
//! game) and every random draw comes from the documented RNG keyed by that seed, the seat
//! nonces and the step (see `games::rng`). Once the seed is revealed, this re-derives the
//! whole game: it re-runs the setup and re-decides every recorded command with the generator
//! of its step, and requires the recorded events to be exactly those. A changed roll, deal or
//! shuffle, a seed that does not match the commitment, or an event no command explains is
//! reported with the sequence number of the first event that does not match.
//!
//! Undos (see `service::play::undo`) are checked too: every undo event must be what the table's
//! policy (`undo` among the start event's options; absent: `none`) and the pure planner of
//! the service allow at that point (a rewind not before the last barrier, to the end of an
//! effective batch, taking back only the rewinding seat's moves unless every other seat
//! concerned accepted its request), the chain of a request must hold (asked, answered,
//! withdrawn, lapsed, completed), the state after a rewind is the state at its target, and a
//! command's step is its first sequence number minus the events before it that no longer
//! count (undone ones and the undo events). The `undone` marks an export may carry are not
//! read.

use super::{ExportEvent, ExportHeader};
use crate::games::rng::{GameRng, commitment};
use crate::games::{Actor, GameKind, OrderMatch, Outcome, Rules, Seat, Viewer};
use crate::service::play::auto::AutoKind;
use crate::service::play::events::{PlatformEvent, SeatInfo, UndoLapse, is_platform_event};
use crate::service::play::log::new_event;
use crate::service::play::step::rank_forfeits_last;
use crate::service::play::table::rules_options;
use crate::service::play::undo::{Line, Plan, Policy, Timeline, TimelineError, plan};
use crate::store::events::NewEvent;
use crate::with_rules;
use serde::Serialize;
use serde_json::Value;
use std::panic::{AssertUnwindSafe, catch_unwind};
use utoipa::ToSchema;

/// The result of a verification.
#[derive(Debug, Serialize, ToSchema)]
#[schema(example = json!({"verified": false, "kind": "flying-dutchman", "events_checked": 41, "commands_checked": 17,
    "failure": {"seq": 42, "reason": "the recorded event differs from what the seed and the command give"}}))]
pub struct Verification {
    /// True when every event is exactly what the seed, the nonces and the commands give.
    pub verified: bool,
    pub kind: String,
    /// Events confirmed before the first mismatch (all of them when verified).
    pub events_checked: usize,
    pub commands_checked: usize,
    pub failure: Option<Failure>,
}

/// The first thing that does not match.
#[derive(Debug, Clone, PartialEq, Serialize, ToSchema)]
pub struct Failure {
    /// The sequence number of the first event that does not match, if one is to blame.
    pub seq: Option<i64>,
    pub reason: String,
}

impl Failure {
    fn at(seq: i64, reason: impl Into<String>) -> Self {
        Self {
            seq: Some(seq),
            reason: reason.into(),
        }
    }

    fn general(reason: impl Into<String>) -> Self {
        Self {
            seq: None,
            reason: reason.into(),
        }
    }
}

/// A log as verification re-derived it: every event as the server itself would have written
/// it, and the position it folds to. Import stores exactly this, never the uploaded lines.
pub struct Derived<S> {
    pub events: Vec<NewEvent>,
    /// The commands that caused them, in order.
    pub commands: Vec<DerivedCommand>,
    pub state: S,
    /// The result the final event records (the rules' result, forfeited seats ranked last).
    pub outcome: Outcome,
    /// From the verified start event.
    pub options: Value,
    pub seats: Vec<SeatInfo>,
    pub nonces: Vec<String>,
}

/// A command as re-decided: its seat (`None`: the platform's own, a rules timer), the
/// command, and the events it caused.
pub struct DerivedCommand {
    pub seat: Option<Seat>,
    pub action: Value,
    pub first_seq: i64,
    pub last_seq: i64,
    /// The marker of a command the server played on its own (`game_commands.auto`).
    pub auto: Option<Value>,
}

#[derive(Default)]
struct Progress {
    events: usize,
    commands: usize,
}

/// Verifies a parsed export.
pub fn verify_export(header: &ExportHeader, events: &[ExportEvent]) -> Verification {
    let mut progress = Progress::default();
    let result = match GameKind::parse(&header.kind) {
        None => Err(Failure::general(format!(
            "unknown game kind {:?}",
            header.kind
        ))),
        Some(kind) => {
            with_rules!(kind, R => guarded::<R>(header, events, &mut progress).map(|_| ()))
        }
    };
    Verification {
        verified: result.is_ok(),
        kind: header.kind.clone(),
        events_checked: progress.events,
        commands_checked: progress.commands,
        failure: result.err(),
    }
}

/// Re-derives a complete export of a finished game of `R`: `Ok` only if it verifies.
pub fn rederive<R: Rules>(
    header: &ExportHeader,
    events: &[ExportEvent],
) -> Result<Derived<R::State>, Failure> {
    guarded::<R>(header, events, &mut Progress::default())
}

/// [`verify`], with a panic of the rules engine (which checked input should never cause)
/// turned into a failure at the event being checked rather than into a crashed request.
fn guarded<R: Rules>(
    header: &ExportHeader,
    events: &[ExportEvent],
    progress: &mut Progress,
) -> Result<Derived<R::State>, Failure> {
    catch_unwind(AssertUnwindSafe(|| verify::<R>(header, events, progress))).unwrap_or_else(|_| {
        Err(Failure::at(
            progress.events as i64 + 1,
            "the rules engine cannot process the log here",
        ))
    })
}

fn seed_of(header: &ExportHeader) -> Result<[u8; 32], Failure> {
    if !header.complete {
        return Err(Failure::general(
            "this export is redacted for one viewer; only a complete log (exported after the \
             game ended) can be verified",
        ));
    }
    let hex_seed = header
        .seed
        .as_deref()
        .ok_or_else(|| Failure::general("the game has not ended, so its seed is still secret"))?;
    let bytes = hex::decode(hex_seed)
        .ok()
        .filter(|b| b.len() == 32)
        .ok_or_else(|| Failure::general("the seed is not 32 bytes of hex"))?;
    let mut seed = [0u8; 32];
    seed.copy_from_slice(&bytes);
    Ok(seed)
}

/// The re-derived log being built, with the seat count its events are redacted for.
struct Sink {
    events: Vec<NewEvent>,
    seats: u8,
}

impl Sink {
    /// Checks that the recorded line is exactly the rules event the seed and the command give
    /// (payload, type and actor), applies it and records it as the server would store it.
    fn rules<R: Rules>(
        &mut self,
        state: &mut R::State,
        event: &R::Event,
        actor: Option<Seat>,
        recorded: &ExportEvent,
    ) -> Result<(), Failure> {
        let stored = new_event::<R>(event, actor, self.seats);
        check_line(&stored, recorded)?;
        R::evolve(state, event);
        self.events.push(stored);
        Ok(())
    }

    /// Checks that the recorded line is exactly `event` (a platform event, no actor) and
    /// records it.
    fn platform(&mut self, event: &PlatformEvent, recorded: &ExportEvent) -> Result<(), Failure> {
        let stored = event.to_new_event();
        check_line(&stored, recorded)?;
        self.events.push(stored);
        Ok(())
    }
}

fn check_line(stored: &NewEvent, recorded: &ExportEvent) -> Result<(), Failure> {
    let seq = recorded.event.seq;
    if stored.payload != recorded.event.data {
        return Err(mismatch(seq, &stored.payload, &recorded.event.data));
    }
    if stored.kind != recorded.event.kind {
        return Err(Failure::at(
            seq,
            format!(
                "the event's type is {:?} but its data is a {:?} event",
                recorded.event.kind, stored.kind
            ),
        ));
    }
    if stored.actor != recorded.event.actor {
        return Err(Failure::at(
            seq,
            format!(
                "the event names actor {:?}; the command gives {:?}",
                recorded.event.actor, stored.actor
            ),
        ));
    }
    Ok(())
}

fn mismatch(seq: i64, expected: &Value, recorded: &Value) -> Failure {
    Failure::at(
        seq,
        format!(
            "the recorded event differs from what the seed and the command give: expected {}, \
             recorded {}",
            abbreviate(expected),
            abbreviate(recorded)
        ),
    )
}

fn abbreviate(value: &Value) -> String {
    let text = value.to_string();
    if text.chars().count() > 300 {
        format!("{}…", text.chars().take(300).collect::<String>())
    } else {
        text
    }
}

/// A platform event line, decoded; `None` for a rules event.
fn platform_of(line: &ExportEvent) -> Result<Option<PlatformEvent>, Failure> {
    if !is_platform_event(&line.event.kind) {
        return Ok(None);
    }
    serde_json::from_value::<PlatformEvent>(line.event.data.clone())
        .map(Some)
        .map_err(|_| Failure::at(line.event.seq, "a platform event does not decode"))
}

/// The header must say what the verified start event says: an import takes the game's
/// shape from it.
fn check_header<R: Rules>(
    header: &ExportHeader,
    kind: &str,
    rules_version: i32,
    options: &Value,
    seats: &[SeatInfo],
    nonces: &[String],
) -> Result<(), Failure> {
    let differs = |what: &str| {
        Failure::at(
            1,
            format!("the header's {what} differs from the start event's"),
        )
    };
    if kind != header.kind || kind != R::KIND {
        return Err(differs("game kind"));
    }
    if rules_version != header.rules_version {
        return Err(differs("rules version"));
    }
    if rules_version as u32 != R::RULES_VERSION {
        return Err(Failure::at(
            1,
            format!(
                "the game was played under rules version {rules_version}; this server \
                 verifies version {}",
                R::RULES_VERSION
            ),
        ));
    }
    if *options != header.options {
        return Err(differs("options"));
    }
    let same_seats = seats.len() == header.seats.len()
        && seats
            .iter()
            .zip(&header.seats)
            .all(|(a, b)| a.seat == b.seat && a.user_id == b.user_id);
    // A sandbox has no seated players: its export lists none, the start event still all.
    let sandbox_without_seats = header.sandbox && header.seats.is_empty();
    if !same_seats && !sandbox_without_seats {
        return Err(differs("seats"));
    }
    if header.nonces.as_deref() != Some(nonces) {
        return Err(differs("seat nonces"));
    }
    let count = u8::try_from(seats.len())
        .ok()
        .filter(|n| (R::MIN_SEATS..=R::MAX_SEATS).contains(n))
        .ok_or_else(|| {
            Failure::at(
                1,
                format!(
                    "{} seats: this game is for {} to {}",
                    seats.len(),
                    R::MIN_SEATS,
                    R::MAX_SEATS
                ),
            )
        })?;
    if seats
        .iter()
        .enumerate()
        .any(|(i, s)| usize::from(s.seat) != i)
    {
        return Err(Failure::at(
            1,
            "the seats are not numbered 0, 1, 2, … in order",
        ));
    }
    if nonces.len() != usize::from(count) {
        return Err(Failure::at(1, "there is not one nonce per seat"));
    }
    Ok(())
}

fn verify<R: Rules>(
    header: &ExportHeader,
    events: &[ExportEvent],
    progress: &mut Progress,
) -> Result<Derived<R::State>, Failure> {
    let seed = seed_of(header)?;
    for (index, line) in events.iter().enumerate() {
        if line.event.seq != index as i64 + 1 {
            return Err(Failure::at(
                line.event.seq,
                format!(
                    "expected sequence number {}: the log has a gap or a duplicate",
                    index + 1
                ),
            ));
        }
    }
    let ended_seq = events.last().map(|e| e.event.seq).unwrap_or(0);
    if commitment(&seed) != header.seed_commitment {
        return Err(Failure::at(
            ended_seq,
            "the revealed seed does not match the commitment published before the game",
        ));
    }
    if header.version != ended_seq {
        return Err(Failure::general(format!(
            "the header says version {} but the log ends at {ended_seq}",
            header.version
        )));
    }
    let first = events
        .first()
        .ok_or_else(|| Failure::general("the export has no events"))?;
    let started = serde_json::from_value::<PlatformEvent>(first.event.data.clone());
    let Ok(
        start @ PlatformEvent::GameStarted {
            kind,
            rules_version,
            options,
            seats,
            seed_commitment,
            nonces,
        },
    ) = &started
    else {
        return Err(Failure::at(1, "the first event is not kontor.game_started"));
    };
    if *seed_commitment != header.seed_commitment {
        return Err(Failure::at(
            1,
            "the start event commits to a different seed",
        ));
    }
    check_header::<R>(header, kind, *rules_version, options, seats, nonces)?;
    let seat_count = seats.len() as u8;
    // Who may watch is recorded among the options, but is no rule of the game.
    let mut rules_options = rules_options(options);
    // The undo setting is the platform's too.
    if let Some(fields) = rules_options.as_object_mut() {
        fields.remove(Policy::SETTING);
    }
    let undo = Undo {
        lines: events
            .iter()
            .map(|e| Line {
                seq: e.event.seq,
                kind: &e.event.kind,
                payload: &e.event.data,
                command: e.command.as_ref().map(|c| c.actor),
            })
            .collect(),
        policy: Policy::of(options),
        seats: seats.len(),
    };
    // The events that no longer count before the batch being checked (undone ones and the
    // undo events): a command's step is its first sequence number minus these.
    let mut undone_before = 0i64;
    // The rules events so far, to fold anew after a rewind.
    let mut rules_events: Vec<(i64, R::Event)> = Vec::new();
    if let Err(e) = R::parse_options(&rules_options, seat_count) {
        return Err(Failure::at(1, format!("the options are not valid: {e:?}")));
    }
    let parsed_options: R::Options = serde_json::from_value(rules_options)
        .map_err(|e| Failure::at(1, format!("the options do not decode: {e}")))?;
    let mut sink = Sink {
        events: Vec::with_capacity(events.len()),
        seats: seat_count,
    };
    sink.platform(start, first)?;
    progress.events = 1;

    // The setup, re-derived with the generator of step 2.
    let mut rng = GameRng::for_step(&seed, nonces, 2);
    let setup = R::setup(&parsed_options, seat_count, &mut rng);
    let mut index = 1;
    let mut state = R::State::default();
    for event in &setup {
        let recorded = events
            .get(index)
            .ok_or_else(|| Failure::general("the log ends inside the setup"))?;
        if recorded.command.is_some() {
            return Err(Failure::at(
                recorded.event.seq,
                "a command is recorded inside the setup",
            ));
        }
        sink.rules::<R>(&mut state, event, None, recorded)?;
        rules_events.push((recorded.event.seq, event.clone()));
        index += 1;
        progress.events += 1;
    }

    // Every command, re-decided with the generator of its step. A command's batch may begin
    // with platform events: that its seat timed out, and then perhaps that the seat is
    // abandoned; a seat abandoned to the bot may later be returned.
    let mut outcome = None;
    let mut forfeited: Vec<Seat> = Vec::new();
    // A rematch's seat may start played by the bot (see `SeatInfo::bot`).
    let mut abandoned: Vec<Seat> = seats.iter().filter(|s| s.bot).map(|s| s.seat).collect();
    let mut commands = Vec::new();
    while index < events.len() {
        let line = &events[index];
        let seq = line.event.seq;
        if outcome.is_some() {
            return Err(Failure::at(seq, "an event after kontor.game_ended"));
        }
        if let Some(record) = &line.command {
            if R::outcome(&state).is_some() {
                return Err(Failure::at(
                    seq,
                    "the game is over here: the next event must be kontor.game_ended",
                ));
            }
            let actor_seat = match record.actor {
                Actor::Seat(seat) if seat >= seat_count => {
                    return Err(Failure::at(
                        seq,
                        format!("the command is by seat {seat}, which is not in the game"),
                    ));
                }
                Actor::Seat(seat) => Some(seat),
                Actor::System => None,
            };
            let command: R::Command =
                serde_json::from_value(record.action.clone()).map_err(|e| {
                    Failure::at(seq, format!("the recorded command does not decode: {e}"))
                })?;
            let mut at = index;
            // A command made while an undo request was open lapses it, first of all.
            let mut lapsed = 0;
            while let Some(next) = events.get(at)
                && let Some(event) = platform_of(next)?
                && !matches!(event, PlatformEvent::GameEnded { .. })
            {
                let allowed = match (&event, actor_seat, at - index) {
                    (
                        PlatformEvent::UndoLapsed {
                            reason: UndoLapse::Moved,
                            ..
                        },
                        _,
                        0,
                    ) => true,
                    (PlatformEvent::TurnTimedOut { seat, .. }, Some(actor), n) if n == lapsed => {
                        *seat == actor
                    }
                    (PlatformEvent::SeatAbandoned { seat, policy }, Some(actor), n)
                        if n == lapsed + 1 =>
                    {
                        *seat == actor && (policy == "bot" || policy == "forfeit")
                    }
                    _ => false,
                };
                if !allowed || (at > index && next.command.is_some()) {
                    return Err(Failure::at(
                        next.event.seq,
                        "this platform event does not fit here: a command may begin only with \
                         the lapse of an open undo request, its own seat's timeout, and then \
                         that seat's abandonment",
                    ));
                }
                if matches!(event, PlatformEvent::UndoLapsed { .. }) {
                    undo.check::<R>(at, &event)?;
                    lapsed = 1;
                }
                if let PlatformEvent::SeatAbandoned { seat, policy } = &event {
                    if policy == "forfeit" {
                        forfeited.push(*seat);
                    } else {
                        abandoned.push(*seat);
                    }
                }
                sink.platform(&event, next)?;
                at += 1;
                progress.events += 1;
            }
            if record.auto.is_some() {
                check_auto::<R>(&state, record, &command, seq)?;
            }
            let step = seq - undone_before;
            let mut rng = GameRng::for_step(&seed, nonces, step as u64);
            let decided = R::decide(&state, record.actor, &command, &mut rng).map_err(|e| {
                Failure::at(seq, format!("the rules refuse the recorded command: {e}"))
            })?;
            for event in &decided {
                let recorded = events
                    .get(at)
                    .filter(|r| at == index || r.command.is_none())
                    .filter(|r| !is_platform_event(&r.event.kind))
                    .ok_or_else(|| {
                        Failure::at(seq, "the log lacks events this command produces")
                    })?;
                sink.rules::<R>(&mut state, event, actor_seat, recorded)?;
                rules_events.push((recorded.event.seq, event.clone()));
                progress.events += 1;
                at += 1;
            }
            if decided.is_empty() {
                return Err(Failure::at(seq, "the recorded command causes no event"));
            }
            undone_before += lapsed as i64;
            commands.push(DerivedCommand {
                seat: actor_seat,
                action: serde_json::to_value(&command).expect("commands serialise"),
                first_seq: seq,
                last_seq: events[at - 1].event.seq,
                auto: record.marker(),
            });
            index = at;
            progress.commands += 1;
            continue;
        }
        let Some(event) = platform_of(line)? else {
            return Err(Failure::at(seq, "no recorded command explains this event"));
        };
        match &event {
            PlatformEvent::GameEnded {
                outcome: recorded,
                seed: revealed,
            } => {
                if Some(revealed.as_str()) != header.seed.as_deref() {
                    return Err(Failure::at(seq, "the final event reveals a different seed"));
                }
                let mut expected = R::outcome(&state);
                if let Some(expected) = &mut expected {
                    rank_forfeits_last(expected, &forfeited);
                }
                if expected.as_ref() != Some(recorded) {
                    return Err(Failure::at(
                        seq,
                        "the recorded result is not the result of the game",
                    ));
                }
                outcome = expected;
            }
            PlatformEvent::GameStarted { .. } => {
                return Err(Failure::at(seq, "a second kontor.game_started event"));
            }
            // A player takes back a seat the bot was playing; nothing is drawn.
            PlatformEvent::SeatReturned { seat } => {
                if R::outcome(&state).is_some() {
                    return Err(Failure::at(
                        seq,
                        "the game is over here: the next event must be kontor.game_ended",
                    ));
                }
                let Some(at) = abandoned.iter().position(|s| s == seat) else {
                    return Err(Failure::at(
                        seq,
                        format!("seat {seat} returns but was not abandoned to the bot"),
                    ));
                };
                abandoned.remove(at);
            }
            // The seat's player deleted their account: the bot plays the seat from here for
            // good (it can no longer be returned), ranked last under `forfeit`.
            PlatformEvent::SeatLeft { seat, policy } => {
                if R::outcome(&state).is_some() {
                    return Err(Failure::at(
                        seq,
                        "the game is over here: the next event must be kontor.game_ended",
                    ));
                }
                if *seat >= seat_count {
                    return Err(Failure::at(
                        seq,
                        format!("seat {seat} leaves, but it is not in the game"),
                    ));
                }
                if forfeited.contains(seat) {
                    return Err(Failure::at(
                        seq,
                        format!("seat {seat} leaves, but it was forfeited already"),
                    ));
                }
                match policy.as_str() {
                    "forfeit" => forfeited.push(*seat),
                    "bot" => {}
                    _ => {
                        return Err(Failure::at(
                            seq,
                            format!("a seat leaves under the unknown policy {policy:?}"),
                        ));
                    }
                }
                abandoned.retain(|s| s != seat);
            }
            PlatformEvent::TurnTimedOut { .. } | PlatformEvent::SeatAbandoned { .. } => {
                return Err(Failure::at(
                    seq,
                    "a timeout or an abandonment that begins no command",
                ));
            }
            PlatformEvent::UndoRequested { .. }
            | PlatformEvent::UndoAnswered { .. }
            | PlatformEvent::UndoWithdrawn { .. }
            | PlatformEvent::UndoLapsed { .. }
            | PlatformEvent::Rewound { .. } => {
                if R::outcome(&state).is_some() {
                    return Err(Failure::at(
                        seq,
                        "the game is over here: the next event must be kontor.game_ended",
                    ));
                }
                let timeline = undo.check::<R>(index, &event)?;
                undone_before = timeline.undone_count();
                if matches!(event, PlatformEvent::Rewound { .. }) {
                    // The game is again exactly as it was at the rewind's target.
                    state = R::fold(
                        rules_events
                            .iter()
                            .filter(|(seq, _)| timeline.effective(*seq))
                            .map(|(_, event)| event),
                    );
                }
            }
        }
        sink.platform(&event, line)?;
        index += 1;
        progress.events += 1;
    }
    let Some(outcome) = outcome else {
        return Err(Failure::general("the log has no kontor.game_ended event"));
    };
    Ok(Derived {
        events: sink.events,
        commands,
        state,
        outcome,
        options: options.clone(),
        seats: seats.clone(),
        nonces: nonces.clone(),
    })
}

/// A command marked as played by the server on its own (`auto`) must be what the rules
/// played: the one move the rules leave its seat (`forced`, with the recorded reason), or
/// the move its standing order plays, matched on the seat's own view (`order`).
fn check_auto<R: Rules>(
    state: &R::State,
    record: &super::CommandRecord,
    command: &R::Command,
    seq: i64,
) -> Result<(), Failure> {
    let Actor::Seat(seat) = record.actor else {
        return Err(Failure::at(
            seq,
            "a command of the platform's own is marked as played for a seat",
        ));
    };
    if !R::pending(state).contains(&seat) {
        return Err(Failure::at(
            seq,
            format!("the command is marked as played for seat {seat}, which is not to act"),
        ));
    }
    match record.auto {
        Some(AutoKind::Forced) => match R::forced(state, seat) {
            Some(forced) if forced.command == *command => {
                if record.reason.as_ref().is_some_and(|r| *r != forced.reason) {
                    return Err(Failure::at(
                        seq,
                        format!(
                            "the forced move's recorded reason is not the rules' ({})",
                            forced.reason.code
                        ),
                    ));
                }
                Ok(())
            }
            _ => Err(Failure::at(
                seq,
                "the command is marked forced, but the rules leave the seat another move",
            )),
        },
        Some(AutoKind::Order) => {
            let order: R::Order = record
                .order
                .clone()
                .ok_or_else(|| Failure::at(seq, "an order's move does not record its order"))
                .and_then(|o| {
                    serde_json::from_value(o).map_err(|e| {
                        Failure::at(seq, format!("the recorded order does not decode: {e}"))
                    })
                })?;
            match R::match_order(&R::view(state, Viewer::Seat(seat)), seat, &order) {
                OrderMatch::Play {
                    command: played, ..
                } if played == *command => Ok(()),
                _ => Err(Failure::at(
                    seq,
                    "the command is marked as played by an order, but the order, on the seat's \
                     view, does not play it",
                )),
            }
        }
        None => Ok(()),
    }
}

/// The checks of the undo events of a log: the consent chain and the structure (a
/// [`Timeline`] of the log up to the event), and the table's policy (the pure
/// [`plan`] of the service, on the log before the event, must have decided the same).
struct Undo<'a> {
    lines: Vec<Line<'a>>,
    policy: Policy,
    seats: usize,
}

impl Undo<'_> {
    /// Checks the undo event `event` at `index`; returns the timeline up to it.
    fn check<R: Rules>(&self, index: usize, event: &PlatformEvent) -> Result<Timeline, Failure> {
        let seq = self.lines[index].seq;
        let fails = |e: TimelineError| Failure::at(e.seq, e.reason);
        let refused = |what: &str, reason: String| Failure::at(seq, format!("{what}: {reason}"));
        if self.policy == Policy::None {
            return Err(Failure::at(
                seq,
                "an undo event, but the table allows no undo (its undo setting is none)",
            ));
        }
        let seat_of = |seat: Seat| {
            if usize::from(seat) < self.seats {
                Ok(seat)
            } else {
                Err(Failure::at(seq, format!("seat {seat} is not in the game")))
            }
        };
        match event {
            PlatformEvent::UndoRequested {
                by_seat,
                at_version,
                to_version,
                needs,
                ..
            } => {
                seat_of(*by_seat)?;
                if self.policy != Policy::Consent {
                    return Err(Failure::at(
                        seq,
                        "an undo request, but the table lets a seat take back only its own moves",
                    ));
                }
                let before = Timeline::of::<R>(&self.lines[..index]).map_err(fails)?;
                match plan(
                    &before,
                    self.policy,
                    *by_seat,
                    *at_version,
                    Some(*to_version),
                    &[],
                ) {
                    Ok(Plan::Ask { needs: asked, .. }) if asked == *needs => {}
                    Ok(Plan::Ask { needs: asked, .. }) => {
                        return Err(Failure::at(
                            seq,
                            format!(
                                "the request asks seats {needs:?}, but the moves it takes back \
                                 are those of seats {asked:?}"
                            ),
                        ));
                    }
                    Ok(Plan::Rewind { .. }) => {
                        return Err(Failure::at(
                            seq,
                            "the request asks for consent where no other seat's move is taken back",
                        ));
                    }
                    Err(refusal) => {
                        return Err(refused("an undo request undo refuses", refusal.message()));
                    }
                }
            }
            PlatformEvent::Rewound {
                by_seat,
                to_version,
                request: None,
                ..
            } => {
                seat_of(*by_seat)?;
                let before = Timeline::of::<R>(&self.lines[..index]).map_err(fails)?;
                match plan(
                    &before,
                    self.policy,
                    *by_seat,
                    before.version(),
                    Some(*to_version),
                    &[],
                ) {
                    Ok(Plan::Rewind { .. }) => {}
                    Ok(Plan::Ask { needs, .. }) => {
                        return Err(Failure::at(
                            seq,
                            format!(
                                "the rewind takes back moves of seats {needs:?} without their \
                                 consent"
                            ),
                        ));
                    }
                    Err(refusal) => {
                        return Err(refused("a rewind undo refuses", refusal.message()));
                    }
                }
            }
            PlatformEvent::UndoAnswered { seat, .. } => {
                seat_of(*seat)?;
            }
            PlatformEvent::UndoWithdrawn { by_seat, .. } => {
                seat_of(*by_seat)?;
            }
            _ => {}
        }
        // The chain (a request answered, withdrawn, lapsed or completed by the rewind that
        // names it), the rewind's target (a boundary, not before the last barrier), the
        // versions each event names.
        Timeline::of::<R>(&self.lines[..=index]).map_err(fails)
    }
}
