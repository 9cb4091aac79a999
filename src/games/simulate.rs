//! Bot games played in-process: the `kontor simulate` command, property tests and benchmarks.

use super::{Actor, BotLevel, GameRng, Outcome, Rules, Seat};
use std::time::{Duration, Instant};

/// A game played to its end by bots.
pub struct PlayedGame<R: Rules> {
    pub events: Vec<R::Event>,
    pub state: R::State,
    pub commands: usize,
    pub outcome: Outcome,
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
    loop {
        if let Some(outcome) = R::outcome(&state) {
            return Ok(PlayedGame {
                events,
                state,
                commands,
                outcome,
            });
        }
        if commands >= MAX_COMMANDS {
            return Err(PlayError::TooLong(commands));
        }
        let (actor, command) = match R::pending(&state).first() {
            Some(&seat) => {
                let level = bots[usize::from(seat)];
                (
                    Actor::Seat(seat),
                    R::bot_command(&state, seat, level, &mut bot_rng),
                )
            }
            // Nobody to act: only a rules timer can move the game on.
            None => match R::timer(&state) {
                Some(timer) => (Actor::System, timer.command),
                None => return Err(PlayError::Stuck(commands)),
            },
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
    }
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
    pub elapsed: Duration,
}

/// Plays `games` games with `bots` (one per seat), seeds `first_seed..first_seed + games`.
pub fn simulate<R: Rules>(
    options: &R::Options,
    bots: &[BotLevel],
    games: usize,
    first_seed: u64,
) -> Result<Report, PlayError> {
    let seats = bots.len();
    let mut report = Report {
        seats,
        wins: vec![0; seats],
        score_sums: vec![0; seats],
        score_counts: vec![0; seats],
        ..Report::default()
    };
    let started = Instant::now();
    for game in 0..games {
        let played = play_game::<R>(options, bots, first_seed + game as u64, |_, _| {})?;
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
