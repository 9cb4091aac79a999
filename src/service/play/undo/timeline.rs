//! A game's log as undo reads it: effective and undone events, batches, the last barrier,
//! the open request. Pure: the caller loads the lines.
//!
//! * **Effective** events (as of the last line): every event that is not of the undo family
//!   (`kontor.undo_*`, `kontor.rewound`) and not undone by a rewind. The state of the game is
//!   the fold of its effective rules events.
//! * **Batches**: what was appended together and is taken back together: the start (the
//!   `kontor.game_started` event and the setup), a command (its preface platform events, its
//!   rules events and perhaps `kontor.game_ended`), a standalone platform event
//!   (`kontor.seat_returned`, `kontor.seat_left`). A rewind's target is always the last event
//!   of an effective batch: a *boundary*.
//! * **Barriers**: a batch is a barrier when it holds a rules event the engine calls one
//!   (`Rules::barrier`), the start, a timeout, an abandonment, a return, a departure, the end,
//!   or when it is a rules timer's command (`Actor::System`). No undo reaches before the last
//!   event of the latest effective barrier batch.
//! * **The RNG key**: a command's draws are keyed by `1 + the number of effective events
//!   before its batch`, i.e. `first_seq - undone_count()` (see [`Timeline::next_step`]). For
//!   a game without undos that is its first sequence number, as it always was.

use super::is_undo_event;
use crate::games::{Actor, Rules, Seat};
use crate::service::play::events::{PlatformEvent, is_platform_event};
use chrono::{DateTime, Utc};
use serde_json::Value;

/// One event of the log as the timeline reads it.
#[derive(Clone, Copy, Debug)]
pub struct Line<'a> {
    pub seq: i64,
    /// The stored type (`kontor.…` for the platform's events).
    pub kind: &'a str,
    pub payload: &'a Value,
    /// `Some(actor)` when a command's batch begins at this line (`game_commands.first_seq`,
    /// the export's `command.actor`).
    pub command: Option<Actor>,
}

/// A log that does not read as a consistent history of undos.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("event {seq}: {reason}")]
pub struct TimelineError {
    pub seq: i64,
    pub reason: String,
}

impl TimelineError {
    pub fn at(seq: i64, reason: impl Into<String>) -> Self {
        Self {
            seq,
            reason: reason.into(),
        }
    }
}

/// What was appended together: the start, one command, or one standalone platform event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Batch {
    pub first: i64,
    /// The last event: a boundary, where a rewind may land while the batch is effective.
    pub last: i64,
    /// Who acted: `Some` for a command (its seat, or the system for a rules timer), `None`
    /// for the start and a standalone platform event.
    pub actor: Option<Actor>,
    /// The kind of the first barrier in the batch, if it is one.
    pub barrier: Option<&'static str>,
    /// Not undone by a rewind (as of the last line).
    pub effective: bool,
}

impl Batch {
    /// The seat whose command this batch is, if it is a seat's command.
    pub fn seat(&self) -> Option<Seat> {
        match self.actor {
            Some(Actor::Seat(seat)) => Some(seat),
            _ => None,
        }
    }
}

/// The request open as of the last line (`kontor.undo_requested` not yet answered with a no,
/// completed, withdrawn or lapsed).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpenRequest {
    /// Its sequence number: the name of the request.
    pub seq: i64,
    pub by_seat: Seat,
    pub at_version: i64,
    pub to_version: i64,
    /// Who must accept.
    pub needs: Vec<Seat>,
    /// Who accepted so far, in the order they answered.
    pub accepted: Vec<Seat>,
    pub deadline: DateTime<Utc>,
}

impl OpenRequest {
    /// The seats of `needs` that have not answered yet.
    pub fn waiting(&self) -> Vec<Seat> {
        self.needs
            .iter()
            .copied()
            .filter(|s| !self.accepted.contains(s))
            .collect()
    }
}

/// A `kontor.rewound` event of the log.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rewind {
    pub seq: i64,
    pub from_version: i64,
    pub to_version: i64,
    pub by_seat: Seat,
    pub request: Option<i64>,
    /// The effective command batches it took back, in order (their actors are whose moves
    /// were undone).
    pub undid: Vec<Batch>,
    /// The request that led to it, as it stood before the rewind (`None` for an own undo).
    pub consent: Option<OpenRequest>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    Effective,
    Undone,
    /// Of the undo family.
    Family,
}

/// A request that a seat declined: the answer's sequence number and who had asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decline {
    /// The `kontor.undo_answered {accept: false}` event.
    pub seq: i64,
    /// The seat that asked.
    pub requester: Seat,
}

/// What a version of the log is, as a target of an undo.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// The last event of an effective batch: an undo may land there.
    Boundary,
    /// An event of the undo family (a request, an answer, a withdrawal, a lapse, a rewind).
    UndoEvent,
    /// An event a rewind took back.
    Undone,
    /// An effective event that is not the last of its batch.
    MidMove,
}

/// A game's log read for undo, as of its last line.
#[derive(Clone, Debug)]
pub struct Timeline {
    /// By sequence number − 1.
    status: Vec<Status>,
    batches: Vec<Batch>,
    open: Option<OpenRequest>,
    rewinds: Vec<Rewind>,
    declines: Vec<Decline>,
    finished: bool,
}

/// The barrier kind of a platform event that is one.
fn platform_barrier(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "kontor.game_started" => "start",
        "kontor.turn_timed_out" => "timeout",
        "kontor.seat_abandoned" => "abandonment",
        "kontor.seat_returned" => "return",
        "kontor.seat_left" => "departure",
        "kontor.game_ended" => "end",
        _ => return None,
    })
}

/// The barrier kind of a rules timer's command.
pub const TIMER_BARRIER: &str = "timer";

impl Timeline {
    /// Reads `lines` (the whole log, `seq` 1, 2, … in order) of a game of `R`.
    pub fn of<R: Rules>(lines: &[Line<'_>]) -> Result<Self, TimelineError> {
        Self::with_barriers(lines, |line| {
            serde_json::from_value::<R::Event>(line.payload.clone())
                .map(|event| R::barrier(&event))
                .map_err(|e| {
                    TimelineError::at(
                        line.seq,
                        format!("the {} event does not decode: {e}", line.kind),
                    )
                })
        })
    }

    /// Reads `lines` with `barrier` saying which rules events are barriers (of which kind).
    pub fn with_barriers(
        lines: &[Line<'_>],
        barrier: impl Fn(&Line<'_>) -> Result<Option<&'static str>, TimelineError>,
    ) -> Result<Self, TimelineError> {
        let mut timeline = Timeline {
            status: Vec::with_capacity(lines.len()),
            batches: Vec::new(),
            open: None,
            rewinds: Vec::new(),
            declines: Vec::new(),
            finished: false,
        };
        // Whether the last batch still takes events (no undo event came after it).
        let mut open_batch = false;
        for (index, line) in lines.iter().enumerate() {
            let seq = line.seq;
            if seq != index as i64 + 1 {
                return Err(TimelineError::at(
                    seq,
                    format!("expected sequence number {}", index + 1),
                ));
            }
            if timeline.finished {
                return Err(TimelineError::at(seq, "an event after kontor.game_ended"));
            }
            if is_undo_event(line.kind) {
                let event = decode_platform(line)?;
                if let Some(actor) = line.command {
                    // Only a lapse by a move begins a command's batch (its first preface).
                    if !matches!(
                        event,
                        PlatformEvent::UndoLapsed {
                            reason: crate::service::play::events::UndoLapse::Moved,
                            ..
                        }
                    ) {
                        return Err(TimelineError::at(
                            seq,
                            "a command begins with an undo event other than a lapse by a move",
                        ));
                    }
                    timeline.begin(seq, Some(actor));
                    if actor == Actor::System {
                        timeline.mark_barrier(TIMER_BARRIER);
                    }
                    open_batch = true;
                } else {
                    if matches!(
                        event,
                        PlatformEvent::UndoLapsed {
                            reason: crate::service::play::events::UndoLapse::Moved,
                            ..
                        }
                    ) {
                        return Err(TimelineError::at(
                            seq,
                            "a request lapsed by a move, but no command begins here",
                        ));
                    }
                    open_batch = false;
                }
                timeline.status.push(Status::Family);
                timeline.undo_event(seq, event)?;
                continue;
            }
            let platform = is_platform_event(line.kind);
            if let Some(actor) = line.command {
                if line.kind == "kontor.game_started" {
                    return Err(TimelineError::at(seq, "a command begins with the start"));
                }
                timeline.begin(seq, Some(actor));
                open_batch = true;
                if actor == Actor::System {
                    timeline.mark_barrier(TIMER_BARRIER);
                }
            } else if line.kind == "kontor.game_started" {
                if seq != 1 {
                    return Err(TimelineError::at(seq, "a second kontor.game_started"));
                }
                timeline.begin(seq, None);
                open_batch = true;
            } else if matches!(line.kind, "kontor.seat_returned" | "kontor.seat_left") {
                timeline.begin(seq, None);
                // Nothing joins a standalone event.
                open_batch = false;
            } else if open_batch
                || (line.kind == "kontor.game_ended" && !timeline.batches.is_empty())
            {
                // Joins the batch under way; an end after a standalone event ends its batch.
                let last = timeline.batches.last_mut().expect("a batch is under way");
                last.last = seq;
            } else {
                return Err(TimelineError::at(
                    seq,
                    "this event belongs to no batch: no command or start precedes it",
                ));
            }
            if seq == 1 && line.kind != "kontor.game_started" {
                return Err(TimelineError::at(
                    1,
                    "the first event is not kontor.game_started",
                ));
            }
            let kind = if platform {
                platform_barrier(line.kind)
            } else {
                barrier(line)?
            };
            if let Some(kind) = kind {
                timeline.mark_barrier(kind);
            }
            if line.kind == "kontor.game_ended" {
                timeline.finished = true;
            }
            timeline.status.push(Status::Effective);
        }
        Ok(timeline)
    }

    fn begin(&mut self, seq: i64, actor: Option<Actor>) {
        self.batches.push(Batch {
            first: seq,
            last: seq,
            actor,
            barrier: None,
            effective: true,
        });
    }

    fn mark_barrier(&mut self, kind: &'static str) {
        if let Some(batch) = self.batches.last_mut() {
            batch.barrier.get_or_insert(kind);
        }
    }

    /// Applies an undo event (already decoded) at `seq`.
    fn undo_event(&mut self, seq: i64, event: PlatformEvent) -> Result<(), TimelineError> {
        let no_request = |request: i64| {
            TimelineError::at(
                seq,
                format!("request {request} is not the open request of the game"),
            )
        };
        match event {
            PlatformEvent::UndoRequested {
                by_seat,
                at_version,
                to_version,
                needs,
                deadline,
            } => {
                if let Some(open) = &self.open {
                    return Err(TimelineError::at(
                        seq,
                        format!("a request while request {} is still open", open.seq),
                    ));
                }
                if at_version != seq - 1 {
                    return Err(TimelineError::at(
                        seq,
                        format!(
                            "the request names version {at_version}, but the game was at {}",
                            seq - 1
                        ),
                    ));
                }
                self.check_target(seq, to_version)?;
                let mut sorted = needs.clone();
                sorted.sort_unstable();
                sorted.dedup();
                if sorted.len() != needs.len() || needs.contains(&by_seat) || needs.is_empty() {
                    return Err(TimelineError::at(
                        seq,
                        "a request must need one or more other seats, each once",
                    ));
                }
                self.open = Some(OpenRequest {
                    seq,
                    by_seat,
                    at_version,
                    to_version,
                    needs,
                    accepted: Vec::new(),
                    deadline,
                });
            }
            PlatformEvent::UndoAnswered {
                request,
                seat,
                accept,
            } => {
                let open = self
                    .open
                    .as_mut()
                    .filter(|o| o.seq == request)
                    .ok_or_else(|| no_request(request))?;
                if !open.needs.contains(&seat) || open.accepted.contains(&seat) {
                    return Err(TimelineError::at(
                        seq,
                        format!("seat {seat} was not asked, or answered already"),
                    ));
                }
                if accept {
                    open.accepted.push(seat);
                } else {
                    self.declines.push(Decline {
                        seq,
                        requester: open.by_seat,
                    });
                    self.open = None;
                }
            }
            PlatformEvent::UndoWithdrawn { request, by_seat } => {
                let open = self
                    .open
                    .as_ref()
                    .filter(|o| o.seq == request)
                    .ok_or_else(|| no_request(request))?;
                if open.by_seat != by_seat {
                    return Err(TimelineError::at(
                        seq,
                        format!(
                            "seat {by_seat} withdraws a request of seat {}",
                            open.by_seat
                        ),
                    ));
                }
                self.open = None;
            }
            PlatformEvent::UndoLapsed { request, .. } => {
                self.open
                    .as_ref()
                    .filter(|o| o.seq == request)
                    .ok_or_else(|| no_request(request))?;
                self.open = None;
            }
            PlatformEvent::Rewound {
                from_version,
                to_version,
                by_seat,
                request,
            } => {
                if from_version != seq - 1 {
                    return Err(TimelineError::at(
                        seq,
                        format!(
                            "the rewind says it was at version {from_version}, but the game \
                             was at {}",
                            seq - 1
                        ),
                    ));
                }
                self.check_target(seq, to_version)?;
                let consent = match request {
                    None => {
                        if let Some(open) = &self.open {
                            return Err(TimelineError::at(
                                seq,
                                format!(
                                    "a rewind without consent while request {} is open",
                                    open.seq
                                ),
                            ));
                        }
                        None
                    }
                    Some(request) => {
                        let open = self
                            .open
                            .take()
                            .filter(|o| o.seq == request)
                            .ok_or_else(|| no_request(request))?;
                        if !open.waiting().is_empty() {
                            return Err(TimelineError::at(
                                seq,
                                format!("a rewind before seats {:?} accepted", open.waiting()),
                            ));
                        }
                        if open.to_version != to_version || open.by_seat != by_seat {
                            return Err(TimelineError::at(
                                seq,
                                "the rewind is not the one its request asked for",
                            ));
                        }
                        Some(open)
                    }
                };
                let undid: Vec<Batch> = self
                    .batches
                    .iter()
                    .filter(|b| b.effective && b.last > to_version)
                    .cloned()
                    .collect();
                if undid.is_empty() {
                    return Err(TimelineError::at(seq, "a rewind that takes nothing back"));
                }
                for batch in self.batches.iter_mut().filter(|b| b.first > to_version) {
                    batch.effective = false;
                }
                for status in &mut self.status[to_version as usize..] {
                    if *status == Status::Effective {
                        *status = Status::Undone;
                    }
                }
                self.rewinds.push(Rewind {
                    seq,
                    from_version,
                    to_version,
                    by_seat,
                    request,
                    undid,
                    consent,
                });
            }
            _ => unreachable!("only undo events come here"),
        }
        Ok(())
    }

    /// A target of a request or rewind at `seq`: a boundary not before the last barrier.
    fn check_target(&self, seq: i64, to_version: i64) -> Result<(), TimelineError> {
        let (barrier, kind) = self.last_barrier();
        if to_version < barrier {
            return Err(TimelineError::at(
                seq,
                format!(
                    "it reaches back to version {to_version}, across the {kind} barrier at {barrier}"
                ),
            ));
        }
        if !self.is_boundary(to_version) {
            return Err(TimelineError::at(
                seq,
                format!("version {to_version} is not the end of an effective batch"),
            ));
        }
        Ok(())
    }

    /// The version (the last line's sequence number; 0 for no lines).
    pub fn version(&self) -> i64 {
        self.status.len() as i64
    }

    /// Whether the log ends with `kontor.game_ended`.
    pub fn finished(&self) -> bool {
        self.finished
    }

    fn status(&self, seq: i64) -> Option<Status> {
        usize::try_from(seq - 1)
            .ok()
            .and_then(|i| self.status.get(i))
            .copied()
    }

    /// Whether the event `seq` counts for the state (as of the last line).
    pub fn effective(&self, seq: i64) -> bool {
        self.status(seq) == Some(Status::Effective)
    }

    /// Whether the event `seq` was taken back by a rewind (not an undo event itself): the
    /// history views mark these.
    pub fn undone(&self, seq: i64) -> bool {
        self.status(seq) == Some(Status::Undone)
    }

    /// How many events do not count (undone ones and the undo family): `games.undone_events`.
    pub fn undone_count(&self) -> i64 {
        self.status
            .iter()
            .filter(|s| **s != Status::Effective)
            .count() as i64
    }

    /// The RNG step of a batch appended next (at `version() + 1`): one more than the
    /// effective events before it.
    pub fn next_step(&self) -> i64 {
        self.version() + 1 - self.undone_count()
    }

    /// Every batch, effective or not, in order.
    pub fn batches(&self) -> &[Batch] {
        &self.batches
    }

    /// The effective batches, in order.
    pub fn effective_batches(&self) -> impl DoubleEndedIterator<Item = &Batch> {
        self.batches.iter().filter(|b| b.effective)
    }

    /// Whether `version` is the last event of an effective batch (a rewind may land there).
    pub fn is_boundary(&self, version: i64) -> bool {
        self.effective_batches().any(|b| b.last == version)
    }

    /// What `version` (one of the log's, 1 or more) is as an undo's target.
    pub fn target(&self, version: i64) -> Target {
        if self.is_boundary(version) {
            return Target::Boundary;
        }
        match self.status(version) {
            Some(Status::Family) => Target::UndoEvent,
            Some(Status::Undone) => Target::Undone,
            _ => Target::MidMove,
        }
    }

    /// The latest boundary before `version` (0 when none).
    pub fn boundary_before(&self, version: i64) -> i64 {
        self.effective_batches()
            .rev()
            .map(|b| b.last)
            .find(|&last| last < version)
            .unwrap_or(0)
    }

    /// The decline of `seat`'s latest request, if nothing moved the game since: no batch
    /// begun (a move, a return, a departure) and no rewind after it. While it stands the seat
    /// may not ask again (one declined request per position).
    pub fn declined_here(&self, seat: Seat) -> Option<Decline> {
        let last = *self.declines.iter().rev().find(|d| d.requester == seat)?;
        let moved = self.batches.iter().any(|b| b.first > last.seq)
            || self.rewinds.iter().any(|r| r.seq > last.seq);
        (!moved).then_some(last)
    }

    /// The last event of the latest effective batch that is a barrier, and the barrier's
    /// kind: no undo reaches before it. `(0, "start")` before anything happened.
    pub fn last_barrier(&self) -> (i64, &'static str) {
        self.effective_batches()
            .rev()
            .find_map(|b| b.barrier.map(|kind| (b.last, kind)))
            .unwrap_or((0, "start"))
    }

    /// The effective batches after the last barrier (commands of seats), in order: what
    /// undo may take back.
    pub fn since_barrier(&self) -> Vec<&Batch> {
        let (barrier, _) = self.last_barrier();
        self.effective_batches()
            .filter(|b| b.first > barrier)
            .collect()
    }

    /// The request open as of the last line.
    pub fn open_request(&self) -> Option<&OpenRequest> {
        self.open.as_ref()
    }

    /// The rewinds of the log, in order.
    pub fn rewinds(&self) -> &[Rewind] {
        &self.rewinds
    }

    /// The lines of `lines` (the ones this timeline was read from) that are effective rules
    /// events, in order: what a fold takes.
    pub fn effective_rules<'l, 'a>(&self, lines: &'l [Line<'a>]) -> Vec<&'l Line<'a>> {
        lines
            .iter()
            .filter(|l| self.effective(l.seq) && !is_platform_event(l.kind))
            .collect()
    }
}

fn decode_platform(line: &Line<'_>) -> Result<PlatformEvent, TimelineError> {
    let event: PlatformEvent = serde_json::from_value(line.payload.clone()).map_err(|e| {
        TimelineError::at(
            line.seq,
            format!("the {} event does not decode: {e}", line.kind),
        )
    })?;
    if event.type_name() != line.kind {
        return Err(TimelineError::at(
            line.seq,
            format!("a {} event stored as {}", event.type_name(), line.kind),
        ));
    }
    Ok(event)
}

/// Which events a fold skips, from the rewinds alone (no batches, no barriers, no rules):
/// what the folds of the service and the refold of `kontor replay` need.
#[derive(Clone, Debug, Default)]
pub struct Skip {
    /// `(to_version, rewind seq)` of each rewind, in order.
    rewinds: Vec<(i64, i64)>,
}

impl Skip {
    /// The rewinds among `events` (sequence number, type, payload).
    pub fn of<'a>(
        events: impl IntoIterator<Item = (i64, &'a str, &'a Value)>,
    ) -> Result<Self, TimelineError> {
        let mut skip = Skip::default();
        for (seq, kind, payload) in events {
            if kind != "kontor.rewound" {
                continue;
            }
            match serde_json::from_value::<PlatformEvent>(payload.clone()) {
                Ok(PlatformEvent::Rewound { to_version, .. }) if to_version < seq => {
                    skip.rewinds.push((to_version, seq));
                }
                _ => {
                    return Err(TimelineError::at(
                        seq,
                        "a kontor.rewound event does not decode",
                    ));
                }
            }
        }
        Ok(skip)
    }

    /// Whether there is no rewind at all (every non-undo event counts).
    pub fn is_empty(&self) -> bool {
        self.rewinds.is_empty()
    }

    /// Whether the event `seq` of type `kind` counts for the state as of version `as_of`.
    pub fn keeps(&self, seq: i64, kind: &str, as_of: i64) -> bool {
        !is_undo_event(kind)
            && seq <= as_of
            && !self
                .rewinds
                .iter()
                .any(|&(to, at)| at <= as_of && to < seq && seq < at)
    }

    /// Whether the event `seq` (not an undo event) was taken back as of version `as_of`.
    pub fn undone(&self, seq: i64, as_of: i64) -> bool {
        self.rewinds
            .iter()
            .any(|&(to, at)| at <= as_of && to < seq && seq < at)
    }

    /// The rewinds' sequence numbers, in order.
    pub fn rewind_seqs(&self) -> impl Iterator<Item = i64> + '_ {
        self.rewinds.iter().map(|&(_, at)| at)
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::service::play::events::UndoLapse;
    use serde_json::json;

    /// A hand-built log: each entry a type, a payload and the command that begins there.
    /// Rules events are `{"type": "move"}` (no barrier) or `{"type": "draw"}` (a barrier).
    pub(crate) struct Log {
        pub entries: Vec<(String, Value, Option<Actor>)>,
    }

    impl Log {
        pub fn started() -> Self {
            let mut log = Log {
                entries: Vec::new(),
            };
            log.push(
                "kontor.game_started",
                json!({"type": "kontor.game_started"}),
                None,
            );
            log.push("deal", json!({"type": "deal"}), None);
            log
        }

        pub fn push(&mut self, kind: &str, payload: Value, command: Option<Actor>) -> i64 {
            self.entries.push((kind.to_string(), payload, command));
            self.entries.len() as i64
        }

        /// A command of `seat` with `n` rules events of type `kind`; its last seq.
        pub fn command(&mut self, seat: Seat, kind: &str, n: usize) -> i64 {
            let mut last = 0;
            for i in 0..n {
                let command = (i == 0).then_some(Actor::Seat(seat));
                last = self.push(kind, json!({"type": kind, "seat": seat}), command);
            }
            last
        }

        pub fn platform(&mut self, event: PlatformEvent, command: Option<Actor>) -> i64 {
            let payload = serde_json::to_value(&event).unwrap();
            self.push(event.type_name(), payload, command)
        }

        pub fn version(&self) -> i64 {
            self.entries.len() as i64
        }

        pub fn lines(&self) -> Vec<Line<'_>> {
            self.entries
                .iter()
                .enumerate()
                .map(|(i, (kind, payload, command))| Line {
                    seq: i as i64 + 1,
                    kind,
                    payload,
                    command: *command,
                })
                .collect()
        }

        pub fn timeline(&self) -> Result<Timeline, TimelineError> {
            Timeline::with_barriers(&self.lines(), |line| {
                Ok(matches!(line.kind, "draw" | "deal").then_some("draw"))
            })
        }

        pub fn rewind(&mut self, to_version: i64, by_seat: Seat, request: Option<i64>) -> i64 {
            let from_version = self.version();
            self.platform(
                PlatformEvent::Rewound {
                    from_version,
                    to_version,
                    by_seat,
                    request,
                },
                None,
            )
        }

        pub fn request(&mut self, by_seat: Seat, to_version: i64, needs: Vec<Seat>) -> i64 {
            let at_version = self.version();
            self.platform(
                PlatformEvent::UndoRequested {
                    by_seat,
                    at_version,
                    to_version,
                    needs,
                    deadline: DateTime::UNIX_EPOCH,
                },
                None,
            )
        }

        pub fn answer(&mut self, request: i64, seat: Seat, accept: bool) -> i64 {
            self.platform(
                PlatformEvent::UndoAnswered {
                    request,
                    seat,
                    accept,
                },
                None,
            )
        }
    }

    #[test]
    fn a_log_without_undos_is_all_effective_and_keys_by_sequence_number() {
        let mut log = Log::started();
        let a = log.command(0, "move", 2);
        let b = log.command(1, "move", 1);
        let t = log.timeline().unwrap();
        assert_eq!(t.version(), 5);
        assert!((1..=5).all(|s| t.effective(s) && !t.undone(s)));
        assert_eq!(t.undone_count(), 0);
        assert_eq!(t.next_step(), 6);
        // The start batch (the deal) is the first barrier of every game.
        assert_eq!(t.last_barrier(), (2, "start"));
        assert_eq!(
            t.since_barrier()
                .iter()
                .map(|b| (b.last, b.seat()))
                .collect::<Vec<_>>(),
            vec![(a, Some(0)), (b, Some(1))]
        );
        assert!(t.is_boundary(2) && t.is_boundary(a) && !t.is_boundary(3));
        assert!(t.open_request().is_none());
    }

    #[test]
    fn a_rewind_undoes_the_range_and_the_next_step_key_ignores_it() {
        let mut log = Log::started();
        let a = log.command(0, "move", 1);
        let misclick = log.command(1, "move", 2);
        let r = log.rewind(a, 1, None);
        let t = log.timeline().unwrap();
        assert!(t.effective(a));
        assert!((a + 1..=misclick).all(|s| t.undone(s) && !t.effective(s)));
        assert!(!t.undone(r) && !t.effective(r));
        assert_eq!(t.undone_count(), 3);
        // The same key as a next step right after `a`.
        assert_eq!(t.next_step(), a + 1);
        assert_eq!(t.rewinds().len(), 1);
        assert_eq!(t.rewinds()[0].undid.len(), 1);
        assert_eq!(t.rewinds()[0].undid[0].seat(), Some(1));
        // The undone batch is no longer a boundary; its start is.
        assert!(!t.is_boundary(misclick) && t.is_boundary(a));
        let kept: Vec<i64> = t
            .effective_rules(&log.lines())
            .iter()
            .map(|l| l.seq)
            .collect();
        assert_eq!(kept, vec![2, a]);
    }

    #[test]
    fn barriers_come_from_the_rules_and_the_platform() {
        let mut log = Log::started();
        log.command(0, "move", 1);
        let drew = log.command(1, "draw", 2);
        log.command(2, "move", 1);
        assert_eq!(log.timeline().unwrap().last_barrier(), (drew, "draw"));
        // A rules timer's command is a barrier.
        let timer = log.push("move", json!({"type": "move"}), Some(Actor::System));
        assert_eq!(log.timeline().unwrap().last_barrier(), (timer, "timer"));
        // A standalone return is one.
        let back = log.platform(PlatformEvent::SeatReturned { seat: 1 }, None);
        assert_eq!(log.timeline().unwrap().last_barrier(), (back, "return"));
        // A command beginning with a timeout is one, up to its last event.
        log.platform(
            PlatformEvent::TurnTimedOut {
                seat: 2,
                consecutive: 1,
                played: crate::service::play::events::TimeoutPlay::Pass,
            },
            Some(Actor::Seat(2)),
        );
        let passed = log.push("move", json!({"type": "move"}), None);
        assert_eq!(log.timeline().unwrap().last_barrier(), (passed, "timeout"));
    }

    #[test]
    fn a_rewind_across_a_barrier_or_to_a_non_boundary_does_not_read() {
        let mut log = Log::started();
        let a = log.command(0, "move", 2);
        log.command(1, "draw", 1);
        let mut across = Log {
            entries: log.entries.clone(),
        };
        across.rewind(a, 1, None);
        let error = across.timeline().unwrap_err();
        assert!(error.reason.contains("across the draw barrier"), "{error}");

        let mut log = Log::started();
        let a = log.command(0, "move", 2);
        log.command(1, "move", 1);
        log.rewind(a - 1, 1, None);
        let error = log.timeline().unwrap_err();
        assert!(
            error.reason.contains("not the end of an effective batch"),
            "{error}"
        );
    }

    #[test]
    fn a_request_is_open_until_answered_withdrawn_lapsed_or_completed() {
        let mut log = Log::started();
        let a = log.command(0, "move", 1);
        log.command(1, "move", 1);
        log.command(2, "move", 1);
        let q = log.request(0, 2, vec![1, 2]);
        let t = log.timeline().unwrap();
        let open = t.open_request().unwrap();
        assert_eq!(
            (open.seq, open.to_version, open.waiting()),
            (q, 2, vec![1, 2])
        );
        log.answer(q, 2, true);
        assert_eq!(
            log.timeline().unwrap().open_request().unwrap().accepted,
            vec![2]
        );
        // A seat that answered may not answer again.
        let mut again = Log {
            entries: log.entries.clone(),
        };
        again.answer(q, 2, true);
        assert!(again.timeline().is_err());
        // A no ends it.
        let mut no = Log {
            entries: log.entries.clone(),
        };
        no.answer(q, 1, false);
        assert!(no.timeline().unwrap().open_request().is_none());
        // A move lapses it: the lapse is the command's first preface.
        let mut moved = Log {
            entries: log.entries.clone(),
        };
        moved.platform(
            PlatformEvent::UndoLapsed {
                request: q,
                reason: UndoLapse::Moved,
            },
            Some(Actor::Seat(0)),
        );
        let played = moved.push("move", json!({"type": "move"}), None);
        let t = moved.timeline().unwrap();
        assert!(t.open_request().is_none());
        assert_eq!(t.batches().last().unwrap().first, played - 1);
        // The request, the answer and the lapse.
        assert_eq!(t.undone_count(), 3);
        // The last yes, then the rewind in the same append.
        log.answer(q, 1, true);
        log.rewind(2, 0, Some(q));
        let t = log.timeline().unwrap();
        assert!(t.open_request().is_none());
        assert!(t.undone(a) && t.effective(2));
        let rewind = &t.rewinds()[0];
        assert_eq!(rewind.consent.as_ref().unwrap().accepted, vec![2, 1]);
        assert_eq!(
            rewind.undid.iter().map(Batch::seat).collect::<Vec<_>>(),
            vec![Some(0), Some(1), Some(2)]
        );
    }

    #[test]
    fn a_rewind_needs_its_request_complete() {
        let mut log = Log::started();
        log.command(0, "move", 1);
        log.command(1, "move", 1);
        let q = log.request(0, 2, vec![1]);
        let mut early = Log {
            entries: log.entries.clone(),
        };
        early.rewind(2, 0, Some(q));
        assert!(early.timeline().is_err());
        // Nor may an own rewind pass an open request by.
        let mut own = Log {
            entries: log.entries.clone(),
        };
        own.rewind(2, 0, None);
        assert!(own.timeline().is_err());
        // A second request while one is open does not read.
        log.request(1, 2, vec![0]);
        assert!(log.timeline().is_err());
    }

    #[test]
    fn a_later_rewind_may_reach_over_an_earlier_one() {
        let mut log = Log::started();
        let a = log.command(0, "move", 1);
        log.command(1, "move", 1);
        log.rewind(a, 1, None);
        let b = log.command(1, "move", 1);
        log.command(0, "move", 1);
        log.rewind(b, 0, None);
        let t = log.timeline().unwrap();
        assert_eq!(t.next_step(), b + 1 - 2);
        assert_eq!(
            t.effective_batches().map(|b| b.last).collect::<Vec<_>>(),
            vec![2, a, b]
        );
        // Back to `a` over both rewinds.
        log.rewind(a, 1, None);
        let t = log.timeline().unwrap();
        assert_eq!(
            t.effective_batches().map(|b| b.last).collect::<Vec<_>>(),
            vec![2, a]
        );
        assert_eq!(t.next_step(), a + 1);
        let skip = Skip::of(
            log.entries
                .iter()
                .enumerate()
                .map(|(i, (k, p, _))| (i as i64 + 1, k.as_str(), p)),
        )
        .unwrap();
        for (i, (kind, _, _)) in log.entries.iter().enumerate() {
            let seq = i as i64 + 1;
            assert_eq!(
                skip.keeps(seq, kind, log.version()),
                t.effective(seq),
                "{seq}"
            );
        }
        // As of before the second rewind, `b` counted.
        assert!(skip.keeps(b, "move", b) && !skip.keeps(b, "move", log.version()));
    }

    #[test]
    fn events_outside_any_batch_do_not_read() {
        let mut log = Log::started();
        log.command(0, "move", 1);
        log.request(0, 2, vec![]);
        assert!(log.timeline().is_err());
        let mut log = Log::started();
        let a = log.command(0, "move", 1);
        log.command(1, "move", 1);
        log.rewind(a, 1, None);
        // A rules event with no command after an undo event.
        log.push("move", json!({"type": "move"}), None);
        assert!(log.timeline().is_err());
    }
}
