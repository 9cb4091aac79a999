//! The whole tournament from its facts: the settings, the seed, the entrants in join order,
//! the withdrawals, the pairs kept apart by blocks as each round was seated, and each ended
//! round's results. The service seats every round through
//! [`seat_round`], and [`derive`] replays them all, so a tournament can be recomputed from its
//! games' logs and compared with what was stored.

use super::pairing::{Apart, meetings, pair, rotate, swiss, table_sizes};
use super::standings::{Standing, TableResult, seeded_key, standings};
use std::collections::HashMap;
use uuid::Uuid;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Swiss,
    RoundRobin,
}

impl Format {
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "swiss" => Some(Self::Swiss),
            "round_robin" => Some(Self::RoundRobin),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Swiss => "swiss",
            Self::RoundRobin => "round_robin",
        }
    }
}

/// What decides the seating besides the results.
#[derive(Clone, Debug)]
pub struct Settings {
    pub format: Format,
    pub seats_per_table: usize,
    pub rounds: u16,
    /// The kind's fewest and most seats.
    pub min_seats: usize,
    pub max_seats: usize,
}

/// The recorded facts.
#[derive(Clone, Debug)]
pub struct Facts {
    pub seed: Vec<u8>,
    /// Every entrant, in join order.
    pub players: Vec<Uuid>,
    /// A withdrawn player and the round that was running when they withdrew.
    pub withdrawn: HashMap<Uuid, u16>,
    /// The rounds seated so far, in order: their tables with, once the round ended, the
    /// ranks (`None` for an adjudicated game or a round still running).
    pub rounds: Vec<Vec<TableResult>>,
    /// Per round (index 0: round 1), the pairs of entrants that a block lay between when it
    /// was seated: recorded with the round, so that blocks made or lifted later change no
    /// derivation. A round without an entry here keeps nobody apart.
    pub apart: Vec<Vec<(Uuid, Uuid)>>,
}

impl Facts {
    /// The pairs kept apart in round `round`.
    fn apart_in(&self, round: u16) -> Apart {
        self.apart
            .get(usize::from(round.saturating_sub(1)))
            .into_iter()
            .flatten()
            .map(|&(a, b)| pair(a, b))
            .collect()
    }
}

/// The tables of round `round` (1-based), from the rounds before it (`facts.rounds[..round-1]`,
/// ended). Empty when too few players remain to fill a table.
pub fn seat_round(settings: &Settings, facts: &Facts, round: u16) -> Vec<Vec<Uuid>> {
    let earlier = &facts.rounds[..usize::from(round - 1).min(facts.rounds.len())];
    let active = |user: &Uuid| facts.withdrawn.get(user).is_none_or(|&w| w >= round);
    match settings.format {
        Format::Swiss => {
            let order: Vec<Uuid> =
                standings(&facts.seed, &facts.players, &facts.withdrawn, earlier)
                    .into_iter()
                    .map(|s| s.user)
                    .filter(active)
                    .collect();
            let Some(sizes) = table_sizes(
                order.len(),
                settings.seats_per_table,
                settings.min_seats,
                settings.max_seats,
            ) else {
                return Vec::new();
            };
            let played: Vec<Vec<Uuid>> =
                earlier.iter().flatten().map(|t| t.seats.clone()).collect();
            swiss(&order, &sizes, &meetings(&played), &facts.apart_in(round))
                .iter()
                .map(|table| rotate(table, round))
                .collect()
        }
        Format::RoundRobin => groups(settings, facts)
            .iter()
            .map(|group| group.iter().copied().filter(active).collect::<Vec<_>>())
            .filter(|group| group.len() >= settings.min_seats)
            .map(|group| rotate(&group, round))
            .collect(),
    }
}

/// The round-robin groups: the seeded order cut into tables at the start, with the pairs kept
/// apart in round 1 parted where the groups allow.
pub fn groups(settings: &Settings, facts: &Facts) -> Vec<Vec<Uuid>> {
    let mut order = facts.players.clone();
    order.sort_by_key(|user| seeded_key(&facts.seed, *user));
    let Some(sizes) = table_sizes(
        order.len(),
        settings.seats_per_table,
        settings.min_seats,
        settings.max_seats,
    ) else {
        return Vec::new();
    };
    swiss(&order, &sizes, &HashMap::new(), &facts.apart_in(1))
}

/// What the facts determine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Derived {
    /// Each round's tables (players in seat order): the seated rounds, and the next one when
    /// every seated round ended and rounds remain (empty if nobody can be seated).
    pub tables: Vec<Vec<Vec<Uuid>>>,
    /// The standings after the ended rounds.
    pub standings: Vec<Standing>,
}

/// Replays the whole tournament: every round's seating from the rounds before it, and the
/// standings after the rounds whose results are known. `ended` is how many of the seated
/// rounds ended.
pub fn derive(settings: &Settings, facts: &Facts, ended: usize) -> Derived {
    let mut tables = Vec::new();
    let seatable = (facts.rounds.len() + usize::from(ended == facts.rounds.len()))
        .min(usize::from(settings.rounds));
    for round in 1..=seatable {
        tables.push(seat_round(settings, facts, round as u16));
    }
    Derived {
        tables,
        standings: standings(
            &facts.seed,
            &facts.players,
            &facts.withdrawn,
            &facts.rounds[..ended],
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn users(n: u8) -> Vec<Uuid> {
        (1..=n).map(|i| Uuid::from_bytes([i; 16])).collect()
    }

    fn settings(format: Format) -> Settings {
        Settings {
            format,
            seats_per_table: 3,
            rounds: 3,
            min_seats: 3,
            max_seats: 6,
        }
    }

    /// Plays a tournament where the first seat always wins.
    fn play(settings: &Settings, players: Vec<Uuid>, withdrawn: HashMap<Uuid, u16>) -> Facts {
        let mut facts = Facts {
            seed: b"seed".to_vec(),
            players,
            withdrawn,
            rounds: Vec::new(),
            apart: Vec::new(),
        };
        for round in 1..=settings.rounds {
            let tables = seat_round(settings, &facts, round);
            facts.rounds.push(
                tables
                    .into_iter()
                    .map(|seats| TableResult {
                        ranks: Some((1..=seats.len() as u16).collect()),
                        seats,
                    })
                    .collect(),
            );
        }
        facts
    }

    #[test]
    fn every_active_player_is_seated_once_per_round() {
        for format in [Format::Swiss, Format::RoundRobin] {
            let settings = settings(format);
            let players = users(10);
            // Withdrew during round 1: seated in round 1 only.
            let withdrawn = HashMap::from([(players[0], 1)]);
            let facts = play(&settings, players.clone(), withdrawn);
            for (index, round) in facts.rounds.iter().enumerate() {
                let mut seated: Vec<Uuid> = round.iter().flat_map(|t| t.seats.clone()).collect();
                let count = seated.len();
                seated.sort();
                seated.dedup();
                assert_eq!(seated.len(), count, "someone seated twice");
                let expected = if index == 0 { 10 } else { 9 };
                if format == Format::Swiss {
                    assert_eq!(count, expected, "{format:?} round {}", index + 1);
                }
                assert!(round.iter().all(|t| (3..=6).contains(&t.seats.len())));
                if index > 0 {
                    assert!(!seated.contains(&players[0]));
                }
            }
        }
    }

    #[test]
    fn derive_reproduces_the_seating_and_is_deterministic() {
        let settings = settings(Format::Swiss);
        let facts = play(&settings, users(9), HashMap::new());
        let derived = derive(&settings, &facts, 3);
        let seated: Vec<Vec<Vec<Uuid>>> = facts
            .rounds
            .iter()
            .map(|r| r.iter().map(|t| t.seats.clone()).collect())
            .collect();
        assert_eq!(derived.tables, seated);
        assert_eq!(derived, derive(&settings, &facts, 3));
        // 9 players, 3 rounds at tables of 3: nobody meets anyone twice in round 2.
        let met = meetings(&seated[0]);
        let repeats: u32 = seated[1]
            .iter()
            .map(|t| super::super::pairing::repeats(t, &met))
            .sum();
        assert_eq!(repeats, 0);
    }

    #[test]
    fn round_robin_groups_part_the_pairs_kept_apart_at_the_start() {
        let settings = settings(Format::RoundRobin);
        let plain = Facts {
            seed: b"seed".to_vec(),
            players: users(6),
            withdrawn: HashMap::new(),
            rounds: Vec::new(),
            apart: Vec::new(),
        };
        let cut = groups(&settings, &plain);
        // Keep apart two players the plain cut puts in one group.
        let blocked = (cut[0][0], cut[0][1]);
        let facts = Facts {
            apart: vec![vec![blocked]],
            ..plain
        };
        let parted = groups(&settings, &facts);
        assert!(
            parted
                .iter()
                .all(|g| !(g.contains(&blocked.0) && g.contains(&blocked.1)))
        );
        let mut everyone: Vec<Uuid> = parted.concat();
        everyone.sort();
        assert_eq!(everyone, users(6));
        // The groups stay as they were at the start for every round.
        let round2 = seat_round(&settings, &facts, 2);
        assert!(
            round2
                .iter()
                .all(|t| !(t.contains(&blocked.0) && t.contains(&blocked.1)))
        );
    }

    #[test]
    fn round_robin_groups_meet_every_round_in_rotated_order() {
        let settings = settings(Format::RoundRobin);
        let facts = play(&settings, users(6), HashMap::new());
        let first: Vec<Vec<Uuid>> = facts.rounds[0].iter().map(|t| t.seats.clone()).collect();
        for (index, round) in facts.rounds.iter().enumerate() {
            for (t, table) in round.iter().enumerate() {
                assert_eq!(table.seats, rotate(&first[t], index as u16 + 1));
            }
        }
    }
}
