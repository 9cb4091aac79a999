//! The Flying Dutchman engine: whole bot games and log replays.
//!
//! Targets (release, one core): at least 1,000 complete 4-player random-bot games a second,
//! and a whole game's already-decoded events replayed in under 100 µs.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kontor::games::flying_dutchman::{FlyingDutchman, Options};
use kontor::games::simulate::play_game;
use kontor::games::{BotLevel, Rules};
use std::hint::black_box;

fn games(c: &mut Criterion) {
    let options = Options::default();
    let mut group = c.benchmark_group("flying_dutchman");
    group.throughput(Throughput::Elements(1));

    let random = [BotLevel::Random; 4];
    let mut seed = 0u64;
    group.bench_function("game_4p_random_bots", |b| {
        b.iter(|| {
            seed += 1;
            let played = play_game::<FlyingDutchman>(&options, &random, seed, |_, _| {})
                .expect("a bot game ends");
            black_box(played.events.len())
        })
    });

    let sensible = [BotLevel::Sensible; 4];
    group.bench_function("game_4p_sensible_bots", |b| {
        b.iter(|| {
            seed += 1;
            let played = play_game::<FlyingDutchman>(&options, &sensible, seed, |_, _| {})
                .expect("a bot game ends");
            black_box(played.events.len())
        })
    });

    // Replay: fold a whole game's decoded events onto the empty state.
    let played = play_game::<FlyingDutchman>(&options, &random, 42, |_, _| {}).unwrap();
    let events = played.events;
    group.bench_function(format!("replay_4p_game_{}_events", events.len()), |b| {
        b.iter(|| black_box(FlyingDutchman::fold(black_box(&events))))
    });
    group.finish();
}

criterion_group!(benches, games);
criterion_main!(benches);
