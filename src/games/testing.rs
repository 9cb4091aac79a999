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

use super::simulate::play_game;
use super::{Actor, BotLevel, GameRng, RuleError, Rules, Seat};

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
