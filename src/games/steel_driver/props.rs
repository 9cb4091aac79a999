//! Property tests over many bot games (random and sensible bots mixed): every game ends
//! after round 5 and the goods phase, the invariants hold after every event, folding the
//! events rebuilds the final state, and every event and the final state survive a serde
//! round trip unchanged.
//!
//! Numbers: `GAMES_PER_SEAT_COUNT` games for each of 3, 4, 5 and 6 players (2,000 games in
//! all), the bots of game `g` at seat `s` sensible when bit `s` of `g` is set, so all-random,
//! all-sensible and mixed tables all occur.

use super::state::{Phase, ROUNDS};
use super::*;
use crate::games::simulate::play_game;

const GAMES_PER_SEAT_COUNT: u64 = 500;

fn bots_for(game: u64, seats: u8) -> Vec<BotLevel> {
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

fn play_many(seats: u8) {
    let options = Options::default();
    let mut transcontinentals = 0;
    let mut ties = 0;
    for game in 0..GAMES_PER_SEAT_COUNT {
        let seed = u64::from(seats) * 1_000_000 + game;
        let bots = bots_for(game, seats);
        let mut previous = State::default();
        let mut failure: Option<String> = None;
        let played = play_game::<SteelDriver>(&options, &bots, seed, |state, event| {
            if failure.is_some() {
                return;
            }
            let checked = check_invariants(state)
                .and_then(|()| check_progress(&previous, state))
                .and_then(|()| {
                    let json = serde_json::to_string(event).map_err(|e| e.to_string())?;
                    let back: Event = serde_json::from_str(&json).map_err(|e| e.to_string())?;
                    if &back == event {
                        Ok(())
                    } else {
                        Err(format!("event round trip changed {json}"))
                    }
                });
            if let Err(e) = checked {
                failure = Some(format!("after {event:?}: {e}"));
            }
            previous.clone_from(state);
        })
        .unwrap_or_else(|e| panic!("seed {seed}, {seats} seats: {e}"));
        if let Some(f) = failure {
            panic!("seed {seed}, {seats} seats: {f}");
        }

        let state = &played.state;
        assert_eq!(state.round, ROUNDS, "seed {seed}");
        assert_eq!(state.phase, Phase::Finished, "seed {seed}");
        assert!(SteelDriver::pending(state).is_empty());
        assert!(
            played
                .events
                .iter()
                .any(|e| matches!(e, Event::RoundEnded { round: 5, .. })),
            "seed {seed}: no end of round 5"
        );
        assert!(matches!(
            played.events.last(),
            Some(Event::GameEnded { .. })
        ));
        assert_eq!(played.outcome.scores.len(), usize::from(seats));
        assert!(!played.outcome.winners.is_empty());

        let replayed = SteelDriver::fold(&played.events);
        assert_eq!(&replayed, state, "seed {seed}: fold differs");

        let json = serde_json::to_string(state).unwrap();
        let back: State = serde_json::from_str(&json).unwrap();
        assert_eq!(&back, state, "seed {seed}: state round trip");

        if state.transcontinental.is_some() {
            transcontinentals += 1;
        }
        if played
            .events
            .iter()
            .any(|e| matches!(e, Event::TranscontinentalTie { .. }))
        {
            ties += 1;
        }
    }
    // The games must exercise the bonus, or the test proves little about it.
    assert!(
        transcontinentals > 0,
        "{seats} seats: no game paid the transcontinental bonus"
    );
    eprintln!(
        "{seats} seats: {GAMES_PER_SEAT_COUNT} games, {transcontinentals} with the bonus, {ties} with a tie"
    );
}

#[test]
fn bot_games_with_3_players_keep_every_rule() {
    play_many(3);
}

#[test]
fn bot_games_with_4_players_keep_every_rule() {
    play_many(4);
}

#[test]
fn bot_games_with_5_players_keep_every_rule() {
    play_many(5);
}

#[test]
fn bot_games_with_6_players_keep_every_rule() {
    play_many(6);
}
