//! Bot games played in-process: the `kontor simulate` command, property tests and benchmarks.
//!
//! Besides the outcome, a simulated game measures its pace (issue 37): how often it waits on
//! people. A **wait** is a moment the game cannot go on until a person acts; seats asked at
//! the same time (a simultaneous step, or seats told of an occasion to answer ahead) count
//! once, for as long as the step lasts. The bots stand in for the people. With [`Autoplay`]
//! the server plays forced moves and standing orders on its own, as the platform will, so
//! the same games can be measured before and after (`src/games/README.md`).

use super::auto::{AutoMove, Cause, Notice, OrderBook};
use super::{Actor, BotLevel, GameRng, Outcome, Rules, Seat};
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

/// A game played to its end by bots.
pub struct PlayedGame<R: Rules> {
    pub events: Vec<R::Event>,
    pub state: R::State,
    /// Every command: by people (the bots), by the server on its own, by the platform.
    pub commands: usize,
    pub outcome: Outcome,
    pub pace: Pace,
}

/// How much the server plays on its own in a simulated game.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Autoplay {
    /// Every move waits for its player: the platform before issue 37.
    #[default]
    Off,
    /// Moves without a choice (`Rules::forced`) are played at once.
    Forced,
    /// Forced moves, and the standing orders every player sets as an experienced player
    /// would (`Rules::bot_orders`, the sensible bot's policy): when it plays, and when the
    /// game tells it of an occasion to answer ahead (`Rules::order_window`).
    Orders,
    /// As `Orders`, but a player sets orders only when it plays: nobody answers ahead on
    /// being told of an occasion (the least an experienced player does).
    OrdersOwnTurn,
}

/// One moment the game could not go on until people acted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wait {
    /// How many people were asked at once (they answer in parallel).
    pub people: u8,
    /// Every seat asked had exactly one legal move (`Rules::forced`): a wait for no decision.
    pub forced: bool,
}

/// How a game went, in waits on people and moves the server played.
#[derive(Clone, Debug, Default)]
pub struct Pace {
    pub waits: Vec<Wait>,
    /// Commands the people (the bots) played.
    pub by_people: usize,
    /// Waits by the type of the command that answered them (its `type` tag; a simultaneous
    /// step counts under its first answer).
    pub waits_by_command: BTreeMap<String, usize>,
    /// Forced waits by the reason of the first seat asked.
    pub forced_by_reason: BTreeMap<String, usize>,
    /// Forced moves the server played.
    pub forced_played: usize,
    /// Moves the server played by standing orders.
    pub orders_played: usize,
    /// Orders dropped because they no longer fitted, by reason.
    pub dropped: BTreeMap<String, usize>,
}

impl Pace {
    pub fn forced_waits(&self) -> usize {
        self.waits.iter().filter(|w| w.forced).count()
    }

    /// Counts the orders dropped among `notices` (and empties it).
    fn note<O>(&mut self, notices: &mut Vec<Notice<O>>) {
        for notice in notices.drain(..) {
            if let Notice::Dropped { reason, .. } = notice {
                *self.dropped.entry(reason.code).or_default() += 1;
            }
        }
    }
}

/// How long people take to answer, for the calendar estimate: each person asked answers
/// after a log-normal time (its median and the σ of its logarithm); a wait lasts until the
/// last person asked has answered. Nights, weekends and reminders are all in the spread.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ResponseModel {
    pub median_hours: f64,
    pub sigma: f64,
}

impl Default for ResponseModel {
    fn default() -> Self {
        ResponseModel {
            median_hours: 6.0,
            sigma: 1.0,
        }
    }
}

impl ResponseModel {
    /// One answer time, in hours.
    fn answer(&self, rng: &mut GameRng) -> f64 {
        // Box-Muller: two uniforms in (0, 1) give one standard normal.
        let uniform = |rng: &mut GameRng| (f64::from(rng.next_word()) + 0.5) / 4_294_967_296.0;
        let (u1, u2) = (uniform(rng), uniform(rng));
        let z = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
        self.median_hours * (self.sigma * z).exp()
    }

    /// The calendar days a game's waits take, drawn with `rng`.
    pub fn days(&self, waits: &[Wait], rng: &mut GameRng) -> f64 {
        let hours: f64 = waits
            .iter()
            .map(|w| {
                (0..w.people.max(1))
                    .map(|_| self.answer(rng))
                    .fold(0.0, f64::max)
            })
            .sum();
        hours / 24.0
    }
}

/// Why a bot game could not be played to the end. Any of these is a rules-engine bug.
#[derive(Debug, thiserror::Error)]
pub enum PlayError {
    #[error("nobody is pending but the game has no outcome after {0} commands")]
    Stuck(usize),
    #[error("the game did not end within {0} commands")]
    TooLong(usize),
    #[error("a bot played an illegal command {command} for seat {seat}: {error}")]
    IllegalBotMove {
        seat: Seat,
        command: String,
        error: super::RuleError,
    },
}

/// Upper bound on commands in one game; real games need a few hundred.
const MAX_COMMANDS: usize = 100_000;

/// Plays one game with the given bot per seat. `on_event` sees the state after every event
/// (property tests check the game's invariants there). Randomness comes from `seed`: the
/// game's draws from per-step generators as on the server, the bots' choices from their own.
pub fn play_game<R: Rules>(
    options: &R::Options,
    bots: &[BotLevel],
    seed: u64,
    on_event: impl FnMut(&R::State, &R::Event),
) -> Result<PlayedGame<R>, PlayError> {
    play(options, bots, seed, Autoplay::Off, false, on_event)
}

/// [`play_game`], with the server playing on its own as `autoplay` says, and the waits
/// classified (forced or not, by the command that answered them) in the game's [`Pace`].
pub fn play_game_with<R: Rules>(
    options: &R::Options,
    bots: &[BotLevel],
    seed: u64,
    autoplay: Autoplay,
    on_event: impl FnMut(&R::State, &R::Event),
) -> Result<PlayedGame<R>, PlayError> {
    play(options, bots, seed, autoplay, true, on_event)
}

/// Plays a game; `classify`: whether to tell forced waits and their answers apart (which
/// costs a little at every wait, so tests and benchmarks of the engines skip it).
fn play<R: Rules>(
    options: &R::Options,
    bots: &[BotLevel],
    seed: u64,
    autoplay: Autoplay,
    classify: bool,
    mut on_event: impl FnMut(&R::State, &R::Event),
) -> Result<PlayedGame<R>, PlayError> {
    let seats = u8::try_from(bots.len()).expect("a table has few seats");
    let seed_bytes = seed_bytes(seed);
    let mut bot_rng = GameRng::from_u64(seed ^ 0x5eed_b075);
    let mut state = R::State::default();
    let mut events = Vec::new();
    let mut apply = |state: &mut R::State, new: Vec<R::Event>, events: &mut Vec<R::Event>| {
        for event in new {
            R::evolve(state, &event);
            on_event(state, &event);
            events.push(event);
        }
    };

    let mut rng = GameRng::for_step(&seed_bytes, &[], 1);
    let opening = R::setup(options, seats, &mut rng);
    apply(&mut state, opening, &mut events);

    let mut commands = 0;
    let mut pace = Pace::default();
    let mut book = OrderBook::<R::Order>::new(seats);
    let mut notices = Vec::new();
    // The last occasion to answer ahead each seat was told of.
    let mut windows: Vec<Option<String>> = vec![None; usize::from(seats)];
    // The seats asked in the current wait that have not answered yet: while the others of a
    // simultaneous step are still to answer, the game waits on them in the same wait.
    let mut waiting: Vec<Seat> = Vec::new();
    loop {
        if let Some(outcome) = R::outcome(&state) {
            return Ok(PlayedGame {
                events,
                state,
                commands,
                outcome,
                pace,
            });
        }
        if commands >= MAX_COMMANDS {
            return Err(PlayError::TooLong(commands));
        }
        let automatic = match autoplay {
            Autoplay::Off => None,
            Autoplay::Forced => {
                super::auto::next_forced::<R>(&state).map(|(seat, forced)| AutoMove {
                    seat,
                    command: forced.command,
                    cause: Cause::Forced(forced.reason),
                })
            }
            Autoplay::Orders | Autoplay::OrdersOwnTurn => {
                super::auto::next::<R>(&state, &mut book, &mut notices)
            }
        };
        pace.note(&mut notices);
        if let Some(played) = automatic {
            let step = events.len() as u64 + 1;
            let mut rng = GameRng::for_step(&seed_bytes, &[], step);
            let seat = played.seat;
            match R::decide(&state, Actor::Seat(seat), &played.command, &mut rng) {
                Ok(new) => {
                    super::auto::settle(&mut book, &played, Ok(()), &mut notices);
                    match played.cause {
                        Cause::Forced(_) => pace.forced_played += 1,
                        Cause::Order { .. } => pace.orders_played += 1,
                    }
                    waiting.retain(|&s| s != seat);
                    apply(&mut state, new, &mut events);
                    commands += 1;
                }
                Err(error) => {
                    if let Cause::Forced(_) = played.cause {
                        return Err(PlayError::IllegalBotMove {
                            seat,
                            command: format!("forced {:?}", played.command),
                            error,
                        });
                    }
                    super::auto::settle(&mut book, &played, Err(&error), &mut notices);
                }
            }
            pace.note(&mut notices);
            continue;
        }
        let pending = R::pending(&state);
        let (actor, command) = if let Some(&seat) = pending.first() {
            let level = bots[usize::from(seat)];
            let command = R::bot_command(&state, seat, level, &mut bot_rng);
            if !pending.iter().all(|s| waiting.contains(s)) {
                let forced: Vec<_> = if classify {
                    pending.iter().map(|&s| R::forced(&state, s)).collect()
                } else {
                    vec![None]
                };
                let all_forced = forced.iter().all(Option::is_some);
                let mut people = pending.len() as u8;
                if autoplay == Autoplay::Orders {
                    // The seats with an occasion to answer ahead are told now and answer in
                    // parallel: each whose orders change is one more person in this wait.
                    for other in (0..seats).filter(|s| !pending.contains(s)) {
                        let window = R::order_window(&state, other);
                        if window.is_some() && windows[usize::from(other)] != window {
                            windows[usize::from(other)] = window;
                            if set_orders::<R>(&state, other, &mut book, &mut bot_rng)? {
                                people += 1;
                            }
                        }
                    }
                }
                pace.waits.push(Wait {
                    people,
                    forced: all_forced,
                });
                if classify {
                    *pace.waits_by_command.entry(tag(&command)).or_default() += 1;
                }
                if let (true, Some(Some(first))) = (all_forced, forced.first()) {
                    *pace
                        .forced_by_reason
                        .entry(first.reason.code.clone())
                        .or_default() += 1;
                }
                waiting.clone_from(&pending);
            }
            waiting.retain(|&s| s != seat);
            pace.by_people += 1;
            (Actor::Seat(seat), command)
        } else {
            // Nobody to act: only a rules timer can move the game on.
            waiting.clear();
            match R::timer(&state) {
                Some(timer) => (Actor::System, timer.command),
                None => return Err(PlayError::Stuck(commands)),
            }
        };
        let step = events.len() as u64 + 1;
        let mut rng = GameRng::for_step(&seed_bytes, &[], step);
        let new = R::decide(&state, actor, &command, &mut rng).map_err(|error| {
            PlayError::IllegalBotMove {
                seat: match actor {
                    Actor::Seat(seat) => seat,
                    Actor::System => Seat::MAX,
                },
                command: format!("{command:?}"),
                error,
            }
        })?;
        apply(&mut state, new, &mut events);
        commands += 1;
        if let (Autoplay::Orders | Autoplay::OrdersOwnTurn, Actor::Seat(seat)) = (autoplay, actor) {
            // The seat that just played is at the game: it sets its orders for what comes.
            windows[usize::from(seat)] = R::order_window(&state, seat);
            set_orders::<R>(&state, seat, &mut book, &mut bot_rng)?;
        }
    }
}

/// Gives `seat` the orders the sensible bot sets in `state`; whether they changed. An order
/// the game refuses is a bug of the bot's policy.
fn set_orders<R: Rules>(
    state: &R::State,
    seat: Seat,
    book: &mut OrderBook<R::Order>,
    rng: &mut GameRng,
) -> Result<bool, PlayError> {
    let old = book.of(seat).to_vec();
    let new = R::bot_orders(state, seat, &old, rng);
    if new == old {
        return Ok(false);
    }
    let view = R::view(state, super::Viewer::Seat(seat));
    for order in new.iter().filter(|o| !old.contains(o)) {
        R::check_order(&view, seat, order).map_err(|error| PlayError::IllegalBotMove {
            seat,
            command: format!("order {order:?}"),
            error,
        })?;
    }
    book.replace(seat, new);
    Ok(true)
}

/// The `type` tag of a command.
fn tag(command: &impl serde::Serialize) -> String {
    serde_json::to_value(command)
        .ok()
        .and_then(|v| v.get("type")?.as_str().map(str::to_string))
        .unwrap_or_default()
}

fn seed_bytes(seed: u64) -> [u8; 32] {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_be_bytes());
    bytes
}

/// Outcome statistics over many bot games.
#[derive(Debug, Default)]
pub struct Report {
    pub games: usize,
    pub seats: usize,
    pub commands: usize,
    pub events: usize,
    /// Wins per seat (a shared win counts for each winner).
    pub wins: Vec<usize>,
    pub shared_wins: usize,
    /// Sum of final scores per seat over the games where the seat finished.
    pub score_sums: Vec<i64>,
    pub score_counts: Vec<usize>,
    /// Waits on people per game, in game order.
    pub waits: Vec<usize>,
    /// Forced waits (no decision to make) per game.
    pub forced_waits: Vec<usize>,
    pub by_people: usize,
    pub forced_played: usize,
    pub orders_played: usize,
    pub dropped: BTreeMap<String, usize>,
    pub waits_by_command: BTreeMap<String, usize>,
    pub forced_by_reason: BTreeMap<String, usize>,
    /// Estimated calendar days per game (`model`).
    pub days: Vec<f64>,
    pub autoplay: Autoplay,
    pub model: ResponseModel,
    pub elapsed: Duration,
}

/// Plays `games` games with `bots` (one per seat), seeds `first_seed..first_seed + games`.
pub fn simulate<R: Rules>(
    options: &R::Options,
    bots: &[BotLevel],
    games: usize,
    first_seed: u64,
) -> Result<Report, PlayError> {
    simulate_with::<R>(
        options,
        bots,
        games,
        first_seed,
        Autoplay::Off,
        ResponseModel::default(),
    )
}

/// [`simulate`], with the server playing on its own as `autoplay` says, and the calendar
/// estimated with `model`.
pub fn simulate_with<R: Rules>(
    options: &R::Options,
    bots: &[BotLevel],
    games: usize,
    first_seed: u64,
    autoplay: Autoplay,
    model: ResponseModel,
) -> Result<Report, PlayError> {
    let seats = bots.len();
    let mut report = Report {
        seats,
        wins: vec![0; seats],
        score_sums: vec![0; seats],
        score_counts: vec![0; seats],
        autoplay,
        model,
        ..Report::default()
    };
    let started = Instant::now();
    for game in 0..games {
        let seed = first_seed + game as u64;
        let played = play_game_with::<R>(options, bots, seed, autoplay, |_, _| {})?;
        // The answer times are drawn from the seed alone, not from the game: the same seed
        // draws the same times whatever the server plays on its own.
        let mut clock = GameRng::from_u64(seed ^ 0x0c10_c4ed);
        report.days.push(model.days(&played.pace.waits, &mut clock));
        report.waits.push(played.pace.waits.len());
        report.forced_waits.push(played.pace.forced_waits());
        report.by_people += played.pace.by_people;
        report.forced_played += played.pace.forced_played;
        report.orders_played += played.pace.orders_played;
        for (what, n) in played.pace.dropped {
            *report.dropped.entry(what).or_default() += n;
        }
        for (what, n) in played.pace.waits_by_command {
            *report.waits_by_command.entry(what).or_default() += n;
        }
        for (what, n) in played.pace.forced_by_reason {
            *report.forced_by_reason.entry(what).or_default() += n;
        }
        report.games += 1;
        report.commands += played.commands;
        report.events += played.events.len();
        if played.outcome.winners.len() > 1 {
            report.shared_wins += 1;
        }
        for &winner in &played.outcome.winners {
            report.wins[usize::from(winner)] += 1;
        }
        for (seat, score) in played.outcome.scores.iter().enumerate() {
            if let Some(score) = score {
                report.score_sums[seat] += score;
                report.score_counts[seat] += 1;
            }
        }
    }
    report.elapsed = started.elapsed();
    Ok(report)
}

impl std::fmt::Display for Report {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let games = self.games.max(1) as f64;
        let secs = self.elapsed.as_secs_f64();
        writeln!(
            f,
            "{} games, {} seats: {:.1} commands and {:.1} events a game on average",
            self.games,
            self.seats,
            self.commands as f64 / games,
            self.events as f64 / games
        )?;
        let mean = |v: &[usize]| v.iter().sum::<usize>() as f64 / games;
        let mut waits = self.waits.clone();
        waits.sort_unstable();
        let median = waits.get(waits.len() / 2).copied().unwrap_or(0);
        writeln!(
            f,
            "autoplay {:?}: {:.1} waits on people a game (min {}, median {}, max {}); forced \
             waits {:.1} a game",
            self.autoplay,
            mean(&self.waits),
            waits.first().unwrap_or(&0),
            median,
            waits.last().unwrap_or(&0),
            mean(&self.forced_waits),
        )?;
        writeln!(
            f,
            "moves a game: {:.1} by people; by the server {:.1} forced, {:.1} by standing orders",
            self.by_people as f64 / games,
            self.forced_played as f64 / games,
            self.orders_played as f64 / games,
        )?;
        let per_game = |map: &BTreeMap<String, usize>| {
            map.iter()
                .map(|(what, n)| format!("{what} {:.1}", *n as f64 / games))
                .collect::<Vec<_>>()
                .join(", ")
        };
        writeln!(
            f,
            "waits a game by the answer: {}",
            per_game(&self.waits_by_command)
        )?;
        if !self.forced_by_reason.is_empty() {
            writeln!(
                f,
                "forced waits a game by reason: {}",
                per_game(&self.forced_by_reason)
            )?;
        }
        if !self.dropped.is_empty() {
            writeln!(
                f,
                "orders dropped a game by reason: {}",
                per_game(&self.dropped)
            )?;
        }
        let mut days = self.days.clone();
        days.sort_by(f64::total_cmp);
        let quantile = |q: f64| {
            days.get(((days.len() as f64 - 1.0) * q).round() as usize)
                .copied()
                .unwrap_or(0.0)
        };
        writeln!(
            f,
            "calendar days (each person answers after a log-normal time, median {} h, sigma {}; \
             a wait lasts until the last person asked answers): mean {:.1}, median {:.1}, \
             p90 {:.1}",
            self.model.median_hours,
            self.model.sigma,
            days.iter().sum::<f64>() / games,
            quantile(0.5),
            quantile(0.9),
        )?;
        writeln!(
            f,
            "shared wins: {} ({:.1}%)",
            self.shared_wins,
            100.0 * self.shared_wins as f64 / games
        )?;
        writeln!(f, "seat  wins    win%   mean score")?;
        for seat in 0..self.seats {
            let mean = if self.score_counts[seat] == 0 {
                "-".to_string()
            } else {
                format!(
                    "{:.1}",
                    self.score_sums[seat] as f64 / self.score_counts[seat] as f64
                )
            };
            writeln!(
                f,
                "{:>4}  {:>5}  {:>5.1}%  {:>10}",
                seat,
                self.wins[seat],
                100.0 * self.wins[seat] as f64 / games,
                mean
            )?;
        }
        write!(
            f,
            "{:.2} s, {:.0} games per second",
            secs,
            if secs > 0.0 { games / secs } else { 0.0 }
        )
    }
}
