//! Ratings benchmark (issue 24): fills a database with finished rated games played by the
//! engines' own bots, then lets the rating worker judge them, timing both.
//!
//! ```text
//! cargo bench --bench ratings -- --database-url postgres://... --games 100000 --users 2000
//! ```
//!
//! Every game goes through the server's own pure steps: `step::start` (seed commitment, seat
//! nonces, `kontor.game_started`, the rules' setup) and `step::decide` for every command (the
//! rules' events, drawn from the game's seed as on the server, and `kontor.game_ended`), so
//! each log is one the server could have written. Both kinds, 3–6 seats, rated, every seat a
//! human (the sensible bot chooses the humans' moves). Playing runs on a thread per core; one
//! writer inserts the games in batches. A finished game's head row marks it for the rating
//! worker by itself (the `games_rating_pending` trigger). Then the worker's own pass
//! (`ratings::process_due`) judges them all, oldest end first, as the server would.
//! `deploy/bench-ratings.sh` runs this and then `kontor ratings rebuild`.
//!
//! The bulk inserts live here, not in `src/store/`: the server never writes a finished game
//! in one go (it appends command by command), so no server path would use them.

use chrono::{DateTime, Duration as Span, Utc};
use kontor::games::flying_dutchman::FlyingDutchman;
use kontor::games::steel_driver::SteelDriver;
use kontor::games::{Actor, BotLevel, GameKind, GameRng, Rules};
use kontor::service::play::actions::{Origin, Submission};
use kontor::service::play::{lobby, step};
use kontor::store::events::{self, EventRow};
use kontor::store::games::{GameHead, SeatRow, Status};
use kontor::store::seats::{SeatClock, SeatState};
use rand::rngs::ChaCha20Rng;
use rand::{RngExt, SeedableRng};
use serde_json::json;
use sha2::{Digest, Sha256};
use sqlx::PgPool;
use sqlx::postgres::PgPoolOptions;
use std::time::Instant;
use uuid::Uuid;

mod support;

struct Args {
    database_url: String,
    games: usize,
    users: usize,
    threads: usize,
    batch: usize,
}

fn parse_args() -> Args {
    let mut args = Args {
        database_url: std::env::var("KONTOR_DATABASE_URL").unwrap_or_default(),
        games: 100_000,
        users: 2_000,
        threads: std::thread::available_parallelism().map_or(2, |n| n.get()),
        batch: 100,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--database-url" => {
                args.database_url = it.next().expect("--database-url needs a value")
            }
            "--games" => args.games = support::number(&mut it, "--games"),
            "--users" => args.users = support::number(&mut it, "--users"),
            "--threads" => args.threads = support::number(&mut it, "--threads"),
            "--batch" => args.batch = support::number(&mut it, "--batch"),
            // cargo bench passes --bench; ignore what is not ours.
            _ => {}
        }
    }
    assert!(
        !args.database_url.is_empty(),
        "--database-url (or KONTOR_DATABASE_URL) is needed"
    );
    assert!(
        args.users >= 6,
        "--users must be at least 6 (a table of six)"
    );
    args
}

/// A player of the benchmark.
#[derive(Clone)]
struct Player {
    id: Uuid,
    name: String,
}

/// A finished game as its rows: head, seats and log.
struct Played {
    head: GameHead,
    nonces: Vec<String>,
    users: Vec<Uuid>,
    events: Vec<EventRow>,
}

/// When the benchmark's games begin: one a minute from here, so they end in an order of
/// their own (a game lasts hours of moves a few minutes apart).
fn epoch() -> DateTime<Utc> {
    DateTime::from_timestamp(1_700_000_000, 0).unwrap()
}

/// The 32 bytes of game `index`'s secret seed: reproducible from the index.
fn seed_of(index: usize) -> [u8; 32] {
    Sha256::digest(format!("kontor-ratings-bench-{index}")).into()
}

/// Plays game `index` to its end among `players` (seat order) with the server's own steps.
fn play<R: Rules>(index: usize, players: &[Player], rng: &mut ChaCha20Rng) -> Played {
    let seats = players.len() as u8;
    let (options, rules_version) = lobby::table_options(
        GameKind::parse(R::KIND).unwrap(),
        &json!({"rated": true}),
        seats,
    )
    .expect("rated default options");
    let seed = seed_of(index);
    let mut at = epoch() + Span::minutes(index as i64);
    let mut head = GameHead {
        id: Uuid::from_u128(index as u128 + 1),
        kind: R::KIND.to_string(),
        rules_version,
        options,
        seat_count: i16::from(seats),
        visibility: "public".to_string(),
        status: Status::Open,
        version: 0,
        created_by: players[0].id,
        seed: seed.to_vec(),
        seed_commitment: kontor::games::rng::commitment(&seed),
        nonces: None,
        pending_seats: Vec::new(),
        outcome: None,
        sandbox: false,
        imported_from: None,
        time_control: None,
        created_at: at,
        started_at: Some(at),
        finished_at: None,
        turn_started_at: Some(at),
        undone_events: 0,
    };
    let seat_rows: Vec<SeatRow> = players
        .iter()
        .enumerate()
        .map(|(seat, p)| SeatRow {
            seat: seat as i16,
            user_id: p.id,
            username: p.name.clone(),
            display_name: None,
            nonce: hex::encode(rng.random::<[u8; 16]>()),
            state: SeatState::Active,
            deadline: None,
        })
        .collect();
    let clocks: Vec<SeatClock> = seat_rows
        .iter()
        .map(|s| SeatClock {
            seat: s.seat,
            user_id: s.user_id,
            state: SeatState::Active,
            bank_secs: None,
            timeouts: 0,
            vacation_until: None,
            turn_started_at: None,
        })
        .collect();
    let start = step::start::<R>(&head, &seat_rows, &clocks, at).expect("the game starts");
    let mut log = events::rows_of(&start.events, 1, at);
    head.status = Status::Active;
    head.version = start.version;
    head.nonces = Some(start.nonces.clone());
    head.pending_seats = start.pending.clone();
    let mut state: R::State = serde_json::from_value(start.state).expect("the first state");
    let mut bots = GameRng::from_u64(rng.random());
    loop {
        let (actor, command) = match R::pending(&state).first() {
            Some(&seat) => (
                Actor::Seat(seat),
                R::bot_command(&state, seat, BotLevel::Sensible, &mut bots),
            ),
            None => (
                Actor::System,
                R::timer(&state)
                    .expect("nobody pending: a rules timer")
                    .command,
            ),
        };
        at += Span::seconds(rng.random_range(5..600));
        let game = step::Game {
            head: &head,
            seats: &clocks,
            armed_timer: None,
            orders: &[],
            orders_revision: None,
        };
        let submission = Submission {
            actor,
            command: &command,
            origin: Origin {
                user_id: None,
                idempotency_key: None,
                request_hash: None,
            },
            preface: Vec::new(),
            seat_updates: Vec::new(),
        };
        let decision = step::decide::<R>(game, state, submission, at).expect("a bot's legal move");
        log.extend(events::rows_of(&decision.events, decision.first_seq, at));
        head.version = decision.version;
        head.undone_events = decision.undone_events;
        head.pending_seats = decision.pending;
        head.turn_started_at = Some(at);
        state = decision.state;
        if decision.status == Status::Finished {
            head.status = Status::Finished;
            head.outcome = decision.outcome.map(|o| serde_json::to_value(o).unwrap());
            head.finished_at = Some(at);
            break;
        }
    }
    Played {
        head,
        nonces: start.nonces,
        users: players.iter().map(|p| p.id).collect(),
        events: log,
    }
}

/// Game `index`: its kind (alternating), 3–6 seats of distinct players drawn from `players`.
fn play_one(index: usize, players: &[Player]) -> Played {
    let mut rng = ChaCha20Rng::seed_from_u64(index as u64);
    let seats = rng.random_range(3..=6usize);
    let mut table: Vec<Player> = Vec::with_capacity(seats);
    while table.len() < seats {
        let p = &players[rng.random_range(0..players.len())];
        if !table.iter().any(|t| t.id == p.id) {
            table.push(p.clone());
        }
    }
    if index.is_multiple_of(2) {
        play::<SteelDriver>(index, &table, &mut rng)
    } else {
        play::<FlyingDutchman>(index, &table, &mut rng)
    }
}

async fn insert_players(pool: &PgPool, players: &[Player]) -> Result<(), sqlx::Error> {
    let ids: Vec<Uuid> = players.iter().map(|p| p.id).collect();
    let names: Vec<&str> = players.iter().map(|p| p.name.as_str()).collect();
    // Nobody signs in: the hash is a placeholder no password matches.
    sqlx::query(
        "INSERT INTO users (id, username, username_key, username_skeleton, email, email_key,
                            password_hash, created_at)
         SELECT id, name, name, name, name || '@bench.invalid', name || '@bench.invalid',
                'bench: no password', $3
           FROM unnest($1::uuid[], $2::text[]) AS u(id, name)",
    )
    .bind(&ids)
    .bind(&names)
    .bind(epoch() - Span::days(1))
    .execute(pool)
    .await?;
    Ok(())
}

/// Writes a batch of finished games (head rows, seats, logs) in one transaction.
async fn write(pool: &PgPool, games: &[Played]) -> Result<(), sqlx::Error> {
    let mut tx = pool.begin().await?;
    let heads: Vec<&GameHead> = games.iter().map(|g| &g.head).collect();
    // Each game's nonces as one text (hex, without commas): arrays passed to `unnest` must
    // be rectangular.
    let nonces: Vec<String> = games.iter().map(|g| g.nonces.join(",")).collect();
    sqlx::query(
        "INSERT INTO games (id, kind, rules_version, options, seat_count, visibility, status,
                            version, created_by, seed, seed_commitment, nonces, pending_seats,
                            outcome, created_at, started_at, finished_at, turn_started_at)
         SELECT id, kind, rules_version, options, seat_count, 'public', 'finished', version,
                created_by, seed, commitment, string_to_array(nonces, ','), '{}', outcome, started, started,
                finished, finished
           FROM unnest($1::uuid[], $2::text[], $3::int[], $4::jsonb[], $5::smallint[],
                       $6::bigint[], $7::uuid[], $8::bytea[], $9::text[], $10::text[],
                       $11::jsonb[], $12::timestamptz[], $13::timestamptz[])
                AS g(id, kind, rules_version, options, seat_count, version, created_by, seed,
                     commitment, nonces, outcome, started, finished)",
    )
    .bind(heads.iter().map(|h| h.id).collect::<Vec<_>>())
    .bind(heads.iter().map(|h| h.kind.as_str()).collect::<Vec<_>>())
    .bind(heads.iter().map(|h| h.rules_version).collect::<Vec<_>>())
    .bind(heads.iter().map(|h| &h.options).collect::<Vec<_>>())
    .bind(heads.iter().map(|h| h.seat_count).collect::<Vec<_>>())
    .bind(heads.iter().map(|h| h.version).collect::<Vec<_>>())
    .bind(heads.iter().map(|h| h.created_by).collect::<Vec<_>>())
    .bind(heads.iter().map(|h| h.seed.as_slice()).collect::<Vec<_>>())
    .bind(heads.iter().map(|h| h.seed_commitment.as_str()).collect::<Vec<_>>())
    .bind(&nonces)
    .bind(heads.iter().map(|h| h.outcome.as_ref()).collect::<Vec<_>>())
    .bind(heads.iter().map(|h| h.created_at).collect::<Vec<_>>())
    .bind(heads.iter().map(|h| h.finished_at).collect::<Vec<_>>())
    .execute(&mut *tx)
    .await?;

    let (mut seat_games, mut seat_numbers, mut seat_users, mut seat_nonces, mut seat_at) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for g in games {
        for (seat, (user, nonce)) in g.users.iter().zip(&g.nonces).enumerate() {
            seat_games.push(g.head.id);
            seat_numbers.push(seat as i16);
            seat_users.push(*user);
            seat_nonces.push(nonce.as_str());
            seat_at.push(g.head.created_at);
        }
    }
    sqlx::query(
        "INSERT INTO game_seats (game_id, seat, user_id, nonce, joined_at)
         SELECT * FROM unnest($1::uuid[], $2::smallint[], $3::uuid[], $4::text[],
                              $5::timestamptz[])",
    )
    .bind(&seat_games)
    .bind(&seat_numbers)
    .bind(&seat_users)
    .bind(&seat_nonces)
    .bind(&seat_at)
    .execute(&mut *tx)
    .await?;

    let rows = games
        .iter()
        .flat_map(|g| g.events.iter().map(move |e| (g.head.id, e)));
    let (mut ids, mut seqs, mut kinds, mut payloads, mut audiences, mut actors, mut ats) = (
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
        Vec::new(),
    );
    for (id, e) in rows {
        ids.push(id);
        seqs.push(e.seq);
        kinds.push(e.kind.as_str());
        payloads.push(&e.payload);
        audiences.push(e.audience.as_deref().map(kontor::store::array_literal));
        actors.push(e.actor);
        ats.push(e.created_at);
    }
    sqlx::query(
        "INSERT INTO game_events (game_id, seq, type, schema_version, payload, audience, actor,
                                  created_at)
         SELECT e.game_id, e.seq, e.type, $8, e.payload, e.audience::smallint[], e.actor, e.at
           FROM unnest($1::uuid[], $2::bigint[], $3::text[], $4::jsonb[], $5::text[],
                       $6::smallint[], $7::timestamptz[])
                AS e(game_id, seq, type, payload, audience, actor, at)",
    )
    .bind(&ids)
    .bind(&seqs)
    .bind(&kinds)
    .bind(&payloads)
    .bind(&audiences)
    .bind(&actors)
    .bind(&ats)
    .bind(events::EVENT_SCHEMA_VERSION)
    .execute(&mut *tx)
    .await?;
    tx.commit().await
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = parse_args();
    let pool = PgPoolOptions::new()
        .max_connections(4)
        .connect(&args.database_url)
        .await?;
    kontor::store::migrate(&pool).await?;

    let players: Vec<Player> = (0..args.users)
        .map(|i| Player {
            id: Uuid::from_u128((1 << 64) + i as u128),
            name: format!("bench{i}"),
        })
        .collect();
    insert_players(&pool, &players).await?;

    eprintln!(
        "generating {} games among {} players on {} threads...",
        args.games, args.users, args.threads
    );
    let generating = Instant::now();
    let (sender, mut received) = tokio::sync::mpsc::channel::<Played>(args.batch * 4);
    let mut threads = Vec::new();
    for thread in 0..args.threads {
        let sender = sender.clone();
        let players = players.clone();
        let (games, threads_n) = (args.games, args.threads);
        threads.push(std::thread::spawn(move || {
            for index in (thread..games).step_by(threads_n) {
                if sender.blocking_send(play_one(index, &players)).is_err() {
                    return;
                }
            }
        }));
    }
    drop(sender);
    let (mut written, mut events_written) = (0usize, 0usize);
    let mut batch = Vec::with_capacity(args.batch);
    loop {
        let more = received.recv().await;
        let done = more.is_none();
        batch.extend(more);
        if batch.len() == args.batch || (done && !batch.is_empty()) {
            write(&pool, &batch).await?;
            written += batch.len();
            events_written += batch.iter().map(|g| g.events.len()).sum::<usize>();
            if written % 5_000 < args.batch || done {
                eprintln!(
                    "  {written} games, {events_written} events, {:.0} s",
                    generating.elapsed().as_secs_f64()
                );
            }
            batch.clear();
        }
        if done {
            break;
        }
    }
    for thread in threads {
        thread.join().expect("a player thread panicked");
    }
    let generate_secs = generating.elapsed().as_secs_f64();

    eprintln!("judging {written} games with the rating worker's pass...");
    let judging = Instant::now();
    let mut judged = 0usize;
    loop {
        let n = kontor::service::competition::ratings::process_due(&pool, Utc::now()).await?;
        if n == 0 {
            break;
        }
        judged += n;
        if judged % 10_000 < n {
            eprintln!(
                "  {judged} judged, {:.0} s",
                judging.elapsed().as_secs_f64()
            );
        }
    }
    let judge_secs = judging.elapsed().as_secs_f64();
    let rated: i64 = sqlx::query_scalar("SELECT count(*) FROM rating_games WHERE rated")
        .fetch_one(&pool)
        .await?;
    let report = json!({
        "games": written,
        "events": events_written,
        "players": args.users,
        "rated_games": rated,
        "judged": judged,
        "generate_seconds": (generate_secs * 10.0).round() / 10.0,
        "games_generated_per_second": (written as f64 / generate_secs).round(),
        "judge_seconds": (judge_secs * 10.0).round() / 10.0,
        "games_judged_per_second": (judged as f64 / judge_secs).round(),
    });
    println!("{report}");
    Ok(())
}
