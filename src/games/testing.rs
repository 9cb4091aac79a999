//! The test harness every game's rules tests share.
//!
//! Scenario tests read as given / when / then, after the `TestFramework` of the cqrs crate:
//!
//! ```ignore
//! given::<FlyingDutchman>(&state)
//!     .when(0, Command::Pass)
//!     .then_refused("too_many_horseshoes_to_pass");
//! let (state, events) = given::<SteelDriver>(&state).when(1, build("SEA-POR")).then_accepted();
//! ```
//!
//! An accepted command's events are folded onto the position and the game's invariants are
//! checked after every event, so a scenario also proves that the rules keep their own facts.
//! The referees of both games judge bot games through [`judge_bot_games`].

use super::auto::{self, AutoMove, Notice, OrderBook};
use super::simulate::play_game;
use super::{Actor, BotLevel, GameRng, Reason, RuleError, Rules, Seat};

/// A game whose positions can be checked for the facts its rules promise (its invariants).
pub trait Checked: Rules {
    fn check(state: &Self::State) -> Result<(), String>;
}

/// A position to submit commands to.
pub struct Given<R: Rules> {
    state: R::State,
    rng_seed: u64,
}

/// The position `state` (a clone: the scenario's own position is left as it was).
pub fn given<R: Checked>(state: &R::State) -> Given<R> {
    Given {
        state: state.clone(),
        rng_seed: 1,
    }
}

/// The position the events lead to from the empty state.
pub fn given_events<R: Checked>(events: &[R::Event]) -> Given<R> {
    Given {
        state: R::fold(events),
        rng_seed: 1,
    }
}

impl<R: Checked> Given<R> {
    /// The seed of the generator the command draws from (default 1).
    pub fn rng(mut self, seed: u64) -> Self {
        self.rng_seed = seed;
        self
    }

    /// `seat` submits `command`.
    pub fn when(self, seat: Seat, command: R::Command) -> When<R> {
        self.when_actor(Actor::Seat(seat), command)
    }

    /// The platform submits `command` (a rules timer, a timeout).
    pub fn when_system(self, command: R::Command) -> When<R> {
        self.when_actor(Actor::System, command)
    }

    fn when_actor(self, actor: Actor, command: R::Command) -> When<R> {
        let mut rng = GameRng::from_u64(self.rng_seed);
        let result = R::decide(&self.state, actor, &command, &mut rng);
        When {
            state: self.state,
            actor,
            command,
            result,
        }
    }
}

/// A command's answer, to be asserted.
#[must_use = "a scenario asserts its answer with one of the then_ methods"]
pub struct When<R: Rules> {
    state: R::State,
    actor: Actor,
    command: R::Command,
    result: Result<Vec<R::Event>, RuleError>,
}

impl<R: Checked> When<R> {
    /// The command was accepted: the position after its events, and the events.
    pub fn then_accepted(self) -> (R::State, Vec<R::Event>) {
        let events = match self.result {
            Ok(events) => events,
            Err(e) => panic!("{:?} {:?} was refused: {e}", self.actor, self.command),
        };
        let mut state = self.state;
        for event in &events {
            R::evolve(&mut state, event);
            if let Err(e) = R::check(&state) {
                panic!(
                    "invariant broken by {event:?} after {:?}: {e}",
                    self.command
                );
            }
        }
        (state, events)
    }

    /// The command was accepted with exactly these events; the position after them.
    pub fn then_events(self, expected: &[R::Event]) -> R::State {
        let command = self.command.clone();
        let (state, events) = self.then_accepted();
        assert_eq!(events, expected, "the events of {command:?}");
        state
    }

    /// The command was refused with this code; the refusal, for a look at its message.
    pub fn then_refused(self, code: &str) -> RuleError {
        let error = self.refusal();
        assert_eq!(error.code, code, "the refusal of the command: {error}");
        error
    }

    /// The command was refused (with whatever code).
    pub fn refusal(self) -> RuleError {
        match self.result {
            Ok(events) => panic!(
                "{:?} {:?} was accepted: {events:?}",
                self.actor, self.command
            ),
            Err(e) => e,
        }
    }

    /// The raw answer, for tests that only ask whether it was accepted.
    pub fn result(self) -> Result<Vec<R::Event>, RuleError> {
        self.result
    }
}

/// The bots of one table: seat `s` is sensible when bit `s` of `game` is set, else random,
/// so consecutive games cover every mix of strengths.
pub fn bot_mix(game: u64, seats: u8) -> Vec<BotLevel> {
    (0..seats)
        .map(|s| {
            if (game >> s) & 1 == 1 {
                BotLevel::Sensible
            } else {
                BotLevel::Random
            }
        })
        .collect()
}

/// Plays `games` bot games for every seat count the game allows, with seeds from
/// `first_seed` and the options `options(game)`, and calls `judge(notes, before, after,
/// event)` for every event with the positions before and after it and the judge's own notes
/// (fresh for each game). Panics with the seats, the seed and the judge's complaint at the
/// first event the judge refuses.
pub fn judge_bot_games<R: Rules, Notes: Default>(
    first_seed: u64,
    games: u64,
    options: impl Fn(u64) -> R::Options,
    judge: impl Fn(&mut Notes, &R::State, &R::State, &R::Event) -> Result<(), String>,
) {
    for seats in R::MIN_SEATS..=R::MAX_SEATS {
        for game in 0..games {
            let seed = first_seed + u64::from(seats) * 10_000 + game;
            let mut notes = Notes::default();
            let mut before = R::State::default();
            let mut failure = None;
            play_game::<R>(
                &options(game),
                &bot_mix(game, seats),
                seed,
                |state, event| {
                    if failure.is_none()
                        && let Err(e) = judge(&mut notes, &before, state, event)
                    {
                        failure = Some(format!("{e} at {event:?}"));
                    }
                    before.clone_from(state);
                },
            )
            .unwrap_or_else(|e| panic!("seats {seats} seed {seed}: {e}"));
            if let Some(f) = failure {
                panic!("seats {seats} seed {seed}: {f}");
            }
        }
    }
}

/// What the server played on its own from a position ([`run_auto`]).
pub struct AutoRun<R: Rules> {
    pub state: R::State,
    /// Each move, in order, with its cause.
    pub played: Vec<AutoMove<R::Command, R::Order>>,
    pub events: Vec<R::Event>,
    /// What became of the orders on the way.
    pub notices: Vec<Notice<R::Order>>,
}

impl<R: Rules> AutoRun<R> {
    /// The seats and commands played, in order.
    pub fn moves(&self) -> Vec<(Seat, R::Command)> {
        self.played
            .iter()
            .map(|m| (m.seat, m.command.clone()))
            .collect()
    }

    /// The reasons of the orders dropped, with the seat.
    pub fn dropped(&self) -> Vec<(Seat, Reason)> {
        self.notices
            .iter()
            .filter_map(|n| match n {
                Notice::Dropped { seat, reason, .. } => Some((*seat, reason.clone())),
                Notice::Done { .. } => None,
            })
            .collect()
    }
}

/// Plays what the server plays on its own from `state` with the orders of `book` (forced
/// moves, then orders) until nothing is left, as the platform does after an accepted
/// command: each move through `decide`, its events folded with the invariants checked.
pub fn run_auto<R: Checked>(state: &R::State, book: &mut OrderBook<R::Order>) -> AutoRun<R> {
    let mut run = AutoRun {
        state: state.clone(),
        played: Vec::new(),
        events: Vec::new(),
        notices: Vec::new(),
    };
    while let Some(played) = auto::next::<R>(&run.state, book, &mut run.notices) {
        assert!(run.played.len() < 10_000, "the server plays on forever");
        let mut rng = GameRng::from_u64(run.played.len() as u64 + 1);
        match R::decide(
            &run.state,
            Actor::Seat(played.seat),
            &played.command,
            &mut rng,
        ) {
            Ok(events) => {
                auto::settle(book, &played, Ok(()), &mut run.notices);
                for event in events {
                    R::evolve(&mut run.state, &event);
                    if let Err(e) = R::check(&run.state) {
                        panic!("invariant broken by {event:?} after {played:?}: {e}");
                    }
                    run.events.push(event);
                }
                run.played.push(played);
            }
            Err(error) => {
                assert!(
                    matches!(played.cause, auto::Cause::Order { .. }),
                    "a forced move was refused: {played:?}: {error}"
                );
                auto::settle(book, &played, Err(&error), &mut run.notices);
            }
        }
    }
    run
}

/// Plays one bot game (bots as in [`bot_mix`] for `game`) and calls `at` with every position
/// between two commands, the first after the setup included; never with a position between
/// two events of one command.
pub fn bot_game_positions<R: Rules>(
    options: &R::Options,
    seats: u8,
    game: u64,
    seed: u64,
    mut at: impl FnMut(&R::State),
) {
    let bots = bot_mix(game, seats);
    let mut bot_rng = GameRng::from_u64(seed ^ 0xb075);
    let mut state = R::fold(&R::setup(options, seats, &mut GameRng::from_u64(seed)));
    for step in 1.. {
        at(&state);
        if R::outcome(&state).is_some() {
            return;
        }
        assert!(step < 100_000, "seed {seed}: the game does not end");
        let (actor, command) = match R::pending(&state).first() {
            Some(&seat) => {
                let level = bots[usize::from(seat)];
                let command = R::bot_command(&state, seat, level, &mut bot_rng);
                (Actor::Seat(seat), command)
            }
            None => {
                let timer = R::timer(&state).expect("a timer when nobody is to act");
                (Actor::System, timer.command)
            }
        };
        let mut rng = GameRng::from_u64(seed.wrapping_mul(31).wrapping_add(step));
        let events = R::decide(&state, actor, &command, &mut rng)
            .unwrap_or_else(|e| panic!("seed {seed}: {command:?} refused: {e}"));
        for event in &events {
            R::evolve(&mut state, event);
        }
    }
}

// ---------------------------------------------------------------- undo barriers

/// What the undo-barrier check saw over its games, for the engine's test to assert that the
/// check was not vacuous.
#[derive(Debug, Default)]
pub struct BarrierReport {
    pub games: u64,
    pub commands: u64,
    /// Commands whose `decide` drew from the generator.
    pub drawing_commands: u64,
    /// Events that are not barriers (each checked for what it shows and reveals).
    pub open_events: u64,
    /// Open events that show their actor something a spectator does not see.
    pub private_open_events: u64,
    /// Barrier kinds seen, with how often.
    pub kinds: std::collections::BTreeMap<&'static str, u64>,
}

/// Plays `games` bot games for every seat count the game allows (seeds from `first_seed`,
/// options `options(game)`, bot mixes as [`judge_bot_games`]) and checks the undo barriers
/// of `R` at every step, from the engine's behaviour alone:
///
/// * every step whose generator gave out a word (the setup, any command) records at least
///   one barrier event, so an undo can never re-roll anything;
/// * every barrier kind is one of `kinds` (the stable names the docs list);
/// * an event that is not a barrier shows no seat other than its actor more than a
///   spectator sees of it, and what it shows its actor beyond that is made of what the actor
///   submitted (their own sealed choice, never a drawn card);
/// * an event that is not a barrier reveals nothing hidden: for every seat and a spectator,
///   no value the viewer's `view` hid (a leaf of the omniscient view the viewer's view did
///   not show as it is) is shown as it is after the event.
///
/// Panics with the seats, the seed, the step and the complaint at the first breach.
pub fn check_undo_barriers<R: Rules>(
    first_seed: u64,
    games: u64,
    options: impl Fn(u64) -> R::Options,
    kinds: &[&'static str],
) -> BarrierReport {
    use super::Viewer;
    let mut report = BarrierReport::default();
    for seats in R::MIN_SEATS..=R::MAX_SEATS {
        for game in 0..games {
            let seed = first_seed + u64::from(seats) * 10_000 + game;
            let fail = |what: String| -> ! { panic!("seats {seats} seed {seed}: {what}") };
            let bots = bot_mix(game, seats);
            let viewers: Vec<Viewer> = (0..seats)
                .map(Viewer::Seat)
                .chain([Viewer::Spectator])
                .collect();
            let mut bot_rng = GameRng::from_u64(seed ^ 0xba44_1e45);
            let mut state = R::State::default();
            let mut steps: u64 = 0;
            // The views of the current state (omniscient first, then `viewers`), when known.
            let mut cache: Option<Vec<serde_json::Value>> = None;
            let mut step = |state: &mut R::State,
                            actor: Option<(Actor, &R::Command)>,
                            rng: &mut GameRng,
                            events: Vec<R::Event>,
                            report: &mut BarrierReport| {
                let what = match actor {
                    Some((actor, command)) => format!("step {steps}: {actor:?} {command:?}"),
                    None => "the setup".to_string(),
                };
                let barriers: Vec<&'static str> = events.iter().filter_map(R::barrier).collect();
                if rng.words_drawn() > 0 {
                    report.drawing_commands += u64::from(actor.is_some());
                    if barriers.is_empty() {
                        fail(format!(
                            "{what} drew from the generator but records no barrier: {events:?}"
                        ));
                    }
                }
                for kind in &barriers {
                    if !kinds.contains(kind) {
                        fail(format!(
                            "{what}: barrier kind `{kind}` is not among {kinds:?}"
                        ));
                    }
                    *report.kinds.entry(kind).or_default() += 1;
                }
                let command_leaves: Vec<serde_json::Value> = actor
                    .map(|(_, c)| leaves(&json(c)).into_values().collect())
                    .unwrap_or_default();
                let acting = match actor {
                    Some((Actor::Seat(seat), _)) => Some(seat),
                    _ => None,
                };
                for event in &events {
                    let before = std::mem::take(state);
                    let mut after = before.clone();
                    R::evolve(&mut after, event);
                    if R::barrier(event).is_some() {
                        cache = None;
                    } else {
                        report.open_events += 1;
                        let spectator = leaves(&json(&R::redact(event, Viewer::Spectator)));
                        for &viewer in &viewers {
                            let seen = leaves(&json(&R::redact(event, viewer)));
                            let extra: Vec<&serde_json::Value> = seen
                                .iter()
                                .filter(|(path, value)| spectator.get(*path) != Some(*value))
                                .map(|(_, value)| value)
                                .collect();
                            if extra.is_empty() {
                                continue;
                            }
                            if viewer != Viewer::Seat(acting.unwrap_or(Seat::MAX)) {
                                fail(format!(
                                    "{what}: {event:?} is no barrier but shows {viewer:?} more \
                                     than a spectator: {extra:?}"
                                ));
                            }
                            report.private_open_events += 1;
                            let mut submitted = command_leaves.clone();
                            for value in extra {
                                match submitted.iter().position(|v| v == value) {
                                    Some(i) => {
                                        submitted.swap_remove(i);
                                    }
                                    None => fail(format!(
                                        "{what}: {event:?} is no barrier but shows its actor \
                                         {value} which the command did not hold"
                                    )),
                                }
                            }
                        }
                        let views_before = match cache.take() {
                            Some(views) => views,
                            None => views_of::<R>(&before, &viewers),
                        };
                        let views_after = views_of::<R>(&after, &viewers);
                        for (i, &viewer) in viewers.iter().enumerate() {
                            // A hidden hand, pile, sealed bid or choice shown whole in the
                            // event (as revealed bids would be), unless the actor submitted it.
                            let mut hidden = Vec::new();
                            hidden_wholes(
                                &views_before[0],
                                Some(&views_before[i + 1]),
                                &mut hidden,
                            );
                            let shown = json(&R::redact(event, viewer));
                            let own = |part: &serde_json::Value| {
                                viewer == Viewer::Seat(acting.unwrap_or(Seat::MAX))
                                    && actor.is_some_and(|(_, c)| contains(&json(c), part))
                            };
                            if let Some(part) = hidden
                                .iter()
                                .find(|part| contains(&shown, part) && !own(part))
                            {
                                fail(format!(
                                    "{what}: {event:?} is no barrier but shows {viewer:?} \
                                     {part} which its view hid"
                                ));
                            }
                            let mut revealed = Vec::new();
                            find_revealed(
                                Some(&views_before[0]),
                                Some(&views_before[i + 1]),
                                Some(&views_after[0]),
                                Some(&views_after[i + 1]),
                                &mut String::new(),
                                &mut revealed,
                            );
                            if !revealed.is_empty() {
                                fail(format!(
                                    "{what}: {event:?} is no barrier but its fold shows \
                                     {viewer:?} what was hidden: {revealed:?}"
                                ));
                            }
                        }
                        cache = Some(views_after);
                    }
                    *state = after;
                }
                steps += 1;
            };
            let mut rng = GameRng::for_step(&[7; 32], &[], seed);
            let opening = R::setup(&options(game), seats, &mut rng);
            step(&mut state, None, &mut rng, opening, &mut report);
            loop {
                if R::outcome(&state).is_some() {
                    break;
                }
                let (actor, command) = match R::pending(&state).first() {
                    Some(&seat) => (
                        Actor::Seat(seat),
                        R::bot_command(&state, seat, bots[usize::from(seat)], &mut bot_rng),
                    ),
                    None => match R::timer(&state) {
                        Some(timer) => (Actor::System, timer.command),
                        None => fail("nobody is pending and no timer runs".to_string()),
                    },
                };
                let mut rng =
                    GameRng::for_step(&[7; 32], &[], seed.wrapping_mul(7919) + report.commands);
                let events = R::decide(&state, actor, &command, &mut rng)
                    .unwrap_or_else(|e| fail(format!("a bot's {command:?} was refused: {e}")));
                report.commands += 1;
                step(
                    &mut state,
                    Some((actor, &command)),
                    &mut rng,
                    events,
                    &mut report,
                );
            }
            report.games += 1;
        }
    }
    report
}

fn views_of<R: Rules>(state: &R::State, viewers: &[super::Viewer]) -> Vec<serde_json::Value> {
    std::iter::once(super::Viewer::Omniscient)
        .chain(viewers.iter().copied())
        .map(|viewer| json(&R::view(state, viewer)))
        .collect()
}

/// The paths of the scalars a viewer's view hid before (`seen` differs from `all` there) and
/// shows as they are after. Walks the four views together; a subtree the viewer saw whole is
/// skipped.
fn find_revealed(
    all_before: Option<&serde_json::Value>,
    seen_before: Option<&serde_json::Value>,
    all_after: Option<&serde_json::Value>,
    seen_after: Option<&serde_json::Value>,
    path: &mut String,
    out: &mut Vec<String>,
) {
    use serde_json::Value;
    let Some(all) = all_before else { return };
    if seen_before == Some(all) {
        return;
    }
    let len = path.len();
    match all {
        Value::Object(map) => {
            for (key, value) in map {
                path.push('/');
                path.push_str(key);
                find_revealed(
                    Some(value),
                    seen_before.and_then(|v| v.get(key)),
                    all_after.and_then(|v| v.get(key)),
                    seen_after.and_then(|v| v.get(key)),
                    path,
                    out,
                );
                path.truncate(len);
            }
        }
        Value::Array(items) => {
            for (i, value) in items.iter().enumerate() {
                path.push('/');
                path.push_str(&i.to_string());
                find_revealed(
                    Some(value),
                    seen_before.and_then(|v| v.get(i)),
                    all_after.and_then(|v| v.get(i)),
                    seen_after.and_then(|v| v.get(i)),
                    path,
                    out,
                );
                path.truncate(len);
            }
        }
        _ => {
            if all_after.is_some() && seen_after == all_after {
                out.push(path.clone());
            }
        }
    }
}

/// The arrays (of two or more items) and objects of the omniscient view that a viewer's view
/// does not show at all.
fn hidden_wholes<'a>(
    all: &'a serde_json::Value,
    seen: Option<&serde_json::Value>,
    out: &mut Vec<&'a serde_json::Value>,
) {
    use serde_json::Value;
    if seen == Some(all) {
        return;
    }
    let missing = seen.is_none_or(Value::is_null);
    match all {
        Value::Object(map) => {
            if missing && !map.is_empty() {
                out.push(all);
            }
            for (key, value) in map {
                hidden_wholes(value, seen.and_then(|v| v.get(key)), out);
            }
        }
        Value::Array(items) => {
            if missing && items.len() >= 2 {
                out.push(all);
            }
            for (i, value) in items.iter().enumerate() {
                hidden_wholes(value, seen.and_then(|v| v.get(i)), out);
            }
        }
        _ => {}
    }
}

/// Whether `part` is `whole` or one of its subtrees.
fn contains(whole: &serde_json::Value, part: &serde_json::Value) -> bool {
    whole == part
        || match whole {
            serde_json::Value::Object(map) => map.values().any(|v| contains(v, part)),
            serde_json::Value::Array(items) => items.iter().any(|v| contains(v, part)),
            _ => false,
        }
}

fn json(value: &impl serde::Serialize) -> serde_json::Value {
    serde_json::to_value(value).expect("the game's types serialise")
}

/// Every scalar of a JSON value by its JSON pointer (`/players/2/shares/0`).
pub fn leaves(value: &serde_json::Value) -> std::collections::BTreeMap<String, serde_json::Value> {
    fn walk(
        value: &serde_json::Value,
        path: &mut String,
        out: &mut std::collections::BTreeMap<String, serde_json::Value>,
    ) {
        let len = path.len();
        match value {
            serde_json::Value::Object(map) => {
                for (key, v) in map {
                    path.push('/');
                    path.push_str(key);
                    walk(v, path, out);
                    path.truncate(len);
                }
            }
            serde_json::Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    path.push('/');
                    path.push_str(&i.to_string());
                    walk(v, path, out);
                    path.truncate(len);
                }
            }
            scalar => {
                out.insert(path.clone(), scalar.clone());
            }
        }
    }
    let mut out = std::collections::BTreeMap::new();
    walk(value, &mut String::new(), &mut out);
    out
}

// ---------------------------------------------------------------- a log with undos

/// A game's log as the platform stores it (rows with sequence numbers, the platform's start
/// and end events, the command that begins each batch), played command by command with the
/// engine's pure `decide` and the step key of the design (`1 +` the effective events before
/// the batch), and undone through the pure planner `service::play::undo::plan` with the events the
/// service appends. `state` is the state of the game as the service keeps it: after a rewind,
/// the fold of the effective log (`service::fold_effective`).
pub struct UndoLog<R: Rules> {
    pub rows: Vec<crate::store::events::EventRow>,
    commands: std::collections::BTreeMap<i64, Actor>,
    pub state: R::State,
    seed: [u8; 32],
    bots: GameRng,
    /// Events no longer effective (`games.undone_events`).
    undone: i64,
}

impl<R: Rules> UndoLog<R> {
    /// `kontor.game_started` and the setup of a game with these options and seats.
    pub fn start(options: &R::Options, seats: u8, seed: u64) -> Self {
        let mut bytes = [0u8; 32];
        bytes[..8].copy_from_slice(&seed.to_be_bytes());
        let mut log = UndoLog {
            rows: Vec::new(),
            commands: Default::default(),
            state: R::State::default(),
            seed: bytes,
            bots: GameRng::from_u64(seed ^ 0x0b07),
            undone: 0,
        };
        log.push(
            "kontor.game_started",
            serde_json::json!({"type": "kontor.game_started"}),
        );
        let mut rng = GameRng::for_step(&log.seed, &[], 2);
        for event in R::setup(options, seats, &mut rng) {
            R::evolve(&mut log.state, &event);
            log.push_rules(&event);
        }
        log
    }

    fn push(&mut self, kind: &str, payload: serde_json::Value) -> i64 {
        let seq = self.version() + 1;
        self.rows.push(crate::store::events::EventRow {
            seq,
            kind: kind.to_string(),
            payload,
            audience: None,
            actor: None,
            created_at: chrono::DateTime::UNIX_EPOCH,
            auto: None,
        });
        seq
    }

    fn push_rules(&mut self, event: &R::Event) -> i64 {
        let payload = json(event);
        let kind = payload["type"]
            .as_str()
            .expect("events are tagged")
            .to_string();
        self.push(&kind, payload)
    }

    /// Appends a platform event; its seq.
    pub fn platform(&mut self, event: crate::service::play::events::PlatformEvent) -> i64 {
        self.push(event.type_name(), json(&event))
    }

    pub fn version(&self) -> i64 {
        self.rows.len() as i64
    }

    pub fn finished(&self) -> bool {
        R::outcome(&self.state).is_some()
    }

    /// `actor` submits `command`: the first and last seq of its batch.
    pub fn act(&mut self, actor: Actor, command: &R::Command) -> Result<(i64, i64), RuleError> {
        let step = self.version() + 1 - self.undone;
        let mut rng = GameRng::for_step(&self.seed, &[], step as u64);
        let events = R::decide(&self.state, actor, command, &mut rng)?;
        let first = self.version() + 1;
        self.commands.insert(first, actor);
        for event in &events {
            R::evolve(&mut self.state, event);
            self.push_rules(event);
        }
        if self.finished() {
            self.push(
                "kontor.game_ended",
                serde_json::json!({"type": "kontor.game_ended"}),
            );
        }
        Ok((first, self.version()))
    }

    /// The first pending seat plays a random bot's command (or the platform a due rules
    /// timer's): the actor and the first and last seq of the batch.
    pub fn bot(&mut self) -> (Actor, i64, i64) {
        let (actor, command) = match R::pending(&self.state).first() {
            Some(&seat) => (
                Actor::Seat(seat),
                R::bot_command(&self.state, seat, BotLevel::Random, &mut self.bots),
            ),
            None => (
                Actor::System,
                R::timer(&self.state)
                    .expect("a game nobody must act in waits for a timer")
                    .command,
            ),
        };
        let (first, last) = self
            .act(actor, &command)
            .unwrap_or_else(|e| panic!("a bot's {command:?} was refused: {e}"));
        (actor, first, last)
    }

    /// The log as the timeline reads it.
    pub fn lines(&self) -> Vec<crate::service::play::undo::Line<'_>> {
        self.rows
            .iter()
            .map(|row| crate::service::play::undo::Line {
                seq: row.seq,
                kind: &row.kind,
                payload: &row.payload,
                command: self.commands.get(&row.seq).copied(),
            })
            .collect()
    }

    pub fn timeline(&self) -> crate::service::play::undo::Timeline {
        crate::service::play::undo::Timeline::of::<R>(&self.lines())
            .unwrap_or_else(|e| panic!("the log does not read: {e}"))
    }

    /// What the planner decides for an undo by `seat` now.
    pub fn plan(
        &self,
        policy: crate::service::play::undo::Policy,
        seat: Seat,
        to_version: Option<i64>,
    ) -> Result<crate::service::play::undo::Plan, crate::service::play::undo::Refusal> {
        crate::service::play::undo::plan(
            &self.timeline(),
            policy,
            seat,
            self.version(),
            to_version,
            &[],
        )
    }

    /// An undo by `seat` under `policy` that every seat asked accepts, appended as the
    /// service appends it (the rewind at once, or the request, the answers and the rewind):
    /// the target version.
    pub fn undo_with_consent(
        &mut self,
        policy: crate::service::play::undo::Policy,
        seat: Seat,
        to_version: Option<i64>,
    ) -> Result<i64, crate::service::play::undo::Refusal> {
        use crate::service::play::events::PlatformEvent;
        use crate::service::play::undo::{Answer, Plan, answer};
        let target = match self.plan(policy, seat, to_version)? {
            Plan::Rewind { to_version } => {
                let from_version = self.version();
                self.platform(PlatformEvent::Rewound {
                    from_version,
                    to_version,
                    by_seat: seat,
                    request: None,
                });
                to_version
            }
            Plan::Ask {
                to_version, needs, ..
            } => {
                let at_version = self.version();
                let request = self.platform(PlatformEvent::UndoRequested {
                    by_seat: seat,
                    at_version,
                    to_version,
                    needs: needs.clone(),
                    deadline: chrono::DateTime::UNIX_EPOCH,
                });
                for asked in needs {
                    let answered = answer(&self.timeline(), asked, request, true)?;
                    self.platform(PlatformEvent::UndoAnswered {
                        request,
                        seat: asked,
                        accept: true,
                    });
                    if let Answer::Rewind {
                        to_version,
                        by_seat,
                        request,
                    } = answered
                    {
                        let from_version = self.version();
                        self.platform(PlatformEvent::Rewound {
                            from_version,
                            to_version,
                            by_seat,
                            request: Some(request),
                        });
                    }
                }
                to_version
            }
        };
        self.state = self.state_at(self.version());
        self.undone = self.timeline().undone_count();
        Ok(target)
    }

    /// The state at `version` as every fold of the service computes it.
    pub fn state_at(&self, version: i64) -> R::State {
        crate::service::play::log::fold_effective::<R>(&self.rows, version)
            .unwrap_or_else(|e| panic!("the log does not fold at {version}: {e}"))
    }

    /// The rules events with seq up to `version`, folded as they stand: the log cut there
    /// (meaningful for a version before any undo).
    pub fn fold_cut(&self, version: i64) -> R::State {
        let events: Vec<R::Event> = self
            .rows
            .iter()
            .take_while(|row| row.seq <= version)
            .filter(|row| !row.kind.starts_with("kontor."))
            .map(|row| serde_json::from_value(row.payload.clone()).expect("events decode"))
            .collect();
        R::fold(&events)
    }
}

/// Asserts that two positions look alike to everybody: `pending`, `legal` for every seat,
/// `view` for every seat, a spectator and the omniscient viewer, `outcome` and `timer`.
pub fn assert_same_for_everyone<R: Rules>(seats: u8, a: &R::State, b: &R::State, what: &str) {
    use super::Viewer;
    assert_eq!(R::pending(a), R::pending(b), "{what}: pending");
    assert_eq!(R::outcome(a), R::outcome(b), "{what}: outcome");
    assert_eq!(
        R::timer(a).map(|t| t.key),
        R::timer(b).map(|t| t.key),
        "{what}: timer"
    );
    for seat in 0..seats {
        assert_eq!(
            json(&R::legal(a, seat)),
            json(&R::legal(b, seat)),
            "{what}: legal for seat {seat}"
        );
    }
    for viewer in (0..seats)
        .map(Viewer::Seat)
        .chain([Viewer::Spectator, Viewer::Omniscient])
    {
        assert_eq!(
            json(&R::view(a, viewer)),
            json(&R::view(b, viewer)),
            "{what}: view of {viewer:?}"
        );
    }
}

/// The kinds of the barrier events among the rows `first..=last` (rules events only).
fn batch_barriers<R: Rules>(log: &UndoLog<R>, first: i64, last: i64) -> Vec<&'static str> {
    log.rows[(first - 1) as usize..last as usize]
        .iter()
        .filter(|row| !row.kind.starts_with("kontor."))
        .filter_map(|row| {
            R::barrier(&serde_json::from_value(row.payload.clone()).expect("events decode"))
        })
        .collect()
}

/// Plays bot games of `R` (seeds `seeds`, `seats` seats) through an [`UndoLog`] and asks the
/// pure planner at every command: right after a batch holding a barrier, no seat may undo
/// across it (`undo_barrier` naming the batch's last seq and its first barrier's kind, also
/// for the seat whose command it was); right after a batch without one, its seat may take it
/// back at once under `own`. At the end, nothing may be undone (`undo_disabled`). Returns
/// how often each barrier kind was refused across (kinds of the start batch are refused as
/// the platform's `start`).
pub fn check_barrier_refusals<R: Rules>(
    options: &R::Options,
    seats: u8,
    seeds: std::ops::Range<u64>,
) -> std::collections::BTreeMap<&'static str, u64> {
    use crate::service::play::undo::{Plan, Policy, Refusal};
    let mut refused = std::collections::BTreeMap::new();
    for seed in seeds {
        let mut log = UndoLog::<R>::start(options, seats, seed);
        let start = log.version();
        let mut moved: Vec<Seat> = Vec::new();
        let mut first_move = true;
        while !log.finished() {
            let (actor, first, last) = log.bot();
            let what = format!("seats {seats} seed {seed}, batch {first}..={last} of {actor:?}");
            if log.finished() {
                break;
            }
            let kinds = batch_barriers(&log, first, last);
            let seat = match actor {
                Actor::Seat(seat) => seat,
                Actor::System => {
                    assert_eq!(log.timeline().last_barrier(), (last, "timer"), "{what}");
                    continue;
                }
            };
            if first_move {
                // Nothing reaches into the start: the deal, the shuffles, the first draws.
                first_move = false;
                for to in 1..start {
                    assert_eq!(
                        log.plan(Policy::Consent, seat, Some(to)),
                        Err(Refusal::Barrier {
                            barrier_version: if kinds.is_empty() { start } else { last },
                            barrier: kinds.first().copied().unwrap_or("start"),
                        }),
                        "{what}: into the start batch"
                    );
                }
                if kinds.is_empty() {
                    *refused.entry("start").or_default() += 1;
                }
            }
            match kinds.first() {
                Some(&kind) => {
                    let across = Err(Refusal::Barrier {
                        barrier_version: last,
                        barrier: kind,
                    });
                    assert_eq!(log.timeline().last_barrier(), (last, kind), "{what}");
                    assert_eq!(log.plan(Policy::Own, seat, None), across, "{what}: own");
                    for &other in moved.iter().chain([&seat]) {
                        for policy in [Policy::Own, Policy::Consent] {
                            assert_eq!(
                                log.plan(policy, other, Some(first - 1)),
                                across,
                                "{what}: seat {other} across"
                            );
                        }
                    }
                    for kind in kinds {
                        *refused.entry(kind).or_default() += 1;
                    }
                }
                None => assert_eq!(
                    log.plan(Policy::Own, seat, None),
                    Ok(Plan::Rewind {
                        to_version: first - 1
                    }),
                    "{what}: an open move taken back at once"
                ),
            }
            if !moved.contains(&seat) {
                moved.push(seat);
            }
        }
        for seat in 0..seats {
            assert_eq!(
                log.plan(Policy::Consent, seat, None),
                Err(Refusal::Disabled),
                "seed {seed}: after the end"
            );
        }
    }
    refused
}

/// Plays bot games of `R` through an [`UndoLog`]; whenever two or more seats have moved
/// since the last barrier, the first of them undoes back to the barrier under `consent`,
/// everyone asked accepts, and the game goes on from there (at most `per_game` times a
/// game). After every rewind the game is exactly as it was at the target version: the state
/// (the service's fold of the effective log, and for the first rewind also the fold of the
/// log cut at the target), `pending`, `legal` for every seat, `view` for every seat, a
/// spectator and the omniscient viewer. Returns the number of consented rewinds.
pub fn check_consented_rewinds<R: Rules>(
    options: &R::Options,
    seats: u8,
    seeds: std::ops::Range<u64>,
    per_game: usize,
) -> usize {
    use crate::service::play::undo::{Plan, Policy};
    let mut rewinds = 0;
    for seed in seeds {
        let mut log = UndoLog::<R>::start(options, seats, seed);
        let mut states = std::collections::BTreeMap::new();
        states.insert(log.version(), log.state.clone());
        let mut done = 0;
        let mut steps = 0;
        while !log.finished() {
            steps += 1;
            assert!(steps < 20_000, "seed {seed}: the game does not end");
            log.bot();
            if log.finished() {
                break;
            }
            states.insert(log.version(), log.state.clone());
            if done >= per_game {
                continue;
            }
            let timeline = log.timeline();
            let since = timeline.since_barrier();
            let Some(seat) = since.first().and_then(|b| b.seat()) else {
                continue;
            };
            if !since.iter().any(|b| b.seat().is_some_and(|s| s != seat)) {
                continue;
            }
            let to = timeline.last_barrier().0;
            let what = format!("seats {seats} seed {seed}: seat {seat} back to {to}");
            let Ok(Plan::Ask { needs, .. }) = log.plan(Policy::Consent, seat, Some(to)) else {
                panic!("{what}: consent is needed");
            };
            assert!(!needs.is_empty() && !needs.contains(&seat), "{what}");
            assert_eq!(
                log.undo_with_consent(Policy::Consent, seat, Some(to)),
                Ok(to),
                "{what}"
            );
            let rewound = log.version();
            assert_eq!(
                log.timeline()
                    .rewinds()
                    .last()
                    .map(|r| (r.seq, r.to_version)),
                Some((rewound, to)),
                "{what}"
            );
            let expected = &states[&to];
            assert_eq!(&log.state, expected, "{what}: the state");
            if done == 0 {
                assert_eq!(
                    log.fold_cut(to),
                    *expected,
                    "{what}: the log cut at the target"
                );
            }
            assert_same_for_everyone::<R>(seats, &log.state, expected, &what);
            states.retain(|&v, _| v <= to);
            states.insert(rewound, log.state.clone());
            done += 1;
            rewinds += 1;
        }
        assert_eq!(
            log.state,
            log.state_at(log.version()),
            "seed {seed}: the end"
        );
    }
    rewinds
}

/// The barrier table of a game's `RULES.md` (section "Undo barriers"): event type → kind.
pub fn documented_barriers(rules: &str) -> std::collections::BTreeMap<String, String> {
    let section = rules
        .split("\n## ")
        .find(|s| s.contains("Undo barriers\n"))
        .expect("RULES.md has a section \"Undo barriers\"");
    let mut table = std::collections::BTreeMap::new();
    for line in section.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let kind = cells[2].trim_matches('`').to_string();
        for event in cells[1].split(',') {
            table.insert(event.trim().trim_matches('`').to_string(), kind.clone());
        }
    }
    table
}

/// Plays `games` bot games per table size and checks every event against the documented
/// table: an event listed there is a barrier of that kind, any other is none. Returns the
/// event types seen.
pub fn check_documented_barriers<R: Rules>(
    rules: &str,
    games: u64,
    options: impl Fn(u64) -> R::Options,
) -> std::collections::BTreeSet<String> {
    let table = documented_barriers(rules);
    let mut seen = std::collections::BTreeSet::new();
    for seats in R::MIN_SEATS..=R::MAX_SEATS {
        for game in 0..games {
            play_game::<R>(&options(game), &bot_mix(game, seats), game, |_, event| {
                let kind = json(event)["type"].as_str().unwrap().to_string();
                assert_eq!(
                    R::barrier(event),
                    table.get(&kind).map(String::as_str),
                    "the barrier of `{kind}` is not as RULES.md says"
                );
                seen.insert(kind);
            })
            .unwrap_or_else(|e| panic!("seats {seats} game {game}: {e}"));
        }
    }
    for kind in table.keys() {
        assert!(
            seen.contains(kind),
            "RULES.md lists `{kind}`, no game had one"
        );
    }
    seen
}
