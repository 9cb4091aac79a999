use super::super::*;
use crate::games::simulate::play_game;
use crate::games::{BotLevel, Rules};

#[test]
fn smoke() {
    for seats in 3..=6u8 {
        for seed in 0..20u64 {
            let bots: Vec<BotLevel> = (0..seats)
                .map(|i| {
                    if (i as u64 + seed) % 2 == 0 {
                        BotLevel::Random
                    } else {
                        BotLevel::Sensible
                    }
                })
                .collect();
            let mut failure = None;
            let played =
                play_game::<FlyingDutchman>(&Options::default(), &bots, seed, |state, event| {
                    if failure.is_none() {
                        if let Err(e) = check_invariants(state) {
                            failure = Some(format!("{e} after {event:?}"));
                        }
                    }
                })
                .unwrap_or_else(|e| panic!("seats {seats} seed {seed}: {e}"));
            assert!(failure.is_none(), "seats {seats} seed {seed}: {failure:?}");
            let rebuilt = FlyingDutchman::fold(&played.events);
            assert_eq!(rebuilt, played.state);
            eprintln!(
                "{seats} {seed}: {} events, {} commands, {:?}",
                played.events.len(),
                played.commands,
                played.outcome
            );
        }
    }
}
