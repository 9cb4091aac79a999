//! Steel Driver engine speed: whole 4-player games between random bots (setup, every
//! decision, every `decide` and `evolve`, the per-step game RNG), and replaying the events of
//! one whole game that are already decoded (`Rules::fold`).
//!
//! Targets on one core: at least 1,000 games a second; a replay under 100 µs.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use kontor::games::simulate::play_game;
use kontor::games::steel_driver::{Event, Options, SteelDriver};
use kontor::games::{BotLevel, Rules};
use std::hint::black_box;

fn games(c: &mut Criterion) {
    let options = Options::default();
    let bots = [BotLevel::Random; 4];
    let mut group = c.benchmark_group("steel_driver");
    group.throughput(Throughput::Elements(1));
    let mut seed = 0u64;
    group.bench_function("random_4p_game", |b| {
        b.iter(|| {
            seed += 1;
            let played = play_game::<SteelDriver>(&options, &bots, seed, |_, _| {})
                .expect("bots play legal games");
            black_box(played.outcome)
        })
    });

    // One game's log, encoded and decoded as the server would load it.
    let played = play_game::<SteelDriver>(&options, &bots, 7, |_, _| {}).unwrap();
    let json = serde_json::to_string(&played.events).unwrap();
    let events: Vec<Event> = serde_json::from_str(&json).unwrap();
    assert_eq!(SteelDriver::fold(&events), played.state);
    eprintln!("replayed game: {} events", events.len());
    group.bench_function("replay_4p_game", |b| {
        b.iter(|| SteelDriver::fold(black_box(&events)))
    });
    group.finish();
}

criterion_group!(benches, games);
criterion_main!(benches);
