//! Points and standings: pure functions of the recorded facts (no I/O, no clock).
//!
//! Rules (docs/api/tournaments.md states them too):
//! - Points per final rank, by the table's size (first is always 6, last always 0):
//!   3 seats 6/3/0, 4 seats 6/4/2/0, 5 seats 6/4/3/1/0, 6 seats 6/4/3/2/1/0. Tied seats
//!   share a rank (the engine ranks 1, 1, 3) and each scores the points of that shared rank.
//! - A game still running at its round's deadline is adjudicated: it goes on but no longer
//!   counts, and every seat of it scores the table's average points, rounded down.
//! - A player who withdrew during round k scores nothing from round k on.
//! - Standings: points (more first), then the opponents' points (the sum of the points of
//!   everyone the player shared a table with, once per game: more first), then the number of
//!   first places, then the seeded order (a hash of the tournament's seed and the player's
//!   id), so that no two players ever tie.

use sha2::{Digest, Sha256};
use std::collections::HashMap;
use uuid::Uuid;

/// The points of `rank` (1-based) at a table of `size` seats.
pub fn points_for_rank(size: usize, rank: usize) -> u32 {
    const TABLES: [&[u32]; 4] = [
        &[6, 3, 0],
        &[6, 4, 2, 0],
        &[6, 4, 3, 1, 0],
        &[6, 4, 3, 2, 1, 0],
    ];
    let Some(table) = size.checked_sub(3).and_then(|i| TABLES.get(i)) else {
        // Two seats (a round-robin group shrunk by withdrawals): 6/0; larger never happens.
        return if rank <= 1 { 6 } else { 0 };
    };
    table[rank.clamp(1, size) - 1]
}

/// Every seat's points at an adjudicated table: the table's average, rounded down.
pub fn adjudicated_points(size: usize) -> u32 {
    let total: u32 = (1..=size).map(|rank| points_for_rank(size, rank)).sum();
    total / size.max(1) as u32
}

/// One table of a round as played: its players in seat order and, once the round ended, the
/// ranks per seat (`None`: adjudicated at the deadline, or not over yet).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TableResult {
    pub seats: Vec<Uuid>,
    pub ranks: Option<Vec<u16>>,
}

/// A player's standing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Standing {
    pub user: Uuid,
    pub points: u32,
    /// The sum of the points of everyone the player sat with (once per shared game).
    pub opponents_points: u32,
    pub wins: u32,
    pub withdrawn: bool,
}

/// The key of a player in the seeded order: the last tie-break, and round 1's order.
pub fn seeded_key(seed: &[u8], user: Uuid) -> [u8; 32] {
    let mut hash = Sha256::new();
    hash.update(b"kontor.tournament.order");
    hash.update(seed);
    hash.update(user.as_bytes());
    hash.finalize().into()
}

/// The points each seat of `table` scores (ended rounds only), given who had withdrawn by
/// then (`withdrawn[user]` = the round they withdrew in).
pub fn table_points(table: &TableResult, round: u16, withdrawn: &HashMap<Uuid, u16>) -> Vec<u32> {
    let size = table.seats.len();
    table
        .seats
        .iter()
        .enumerate()
        .map(|(seat, user)| {
            if withdrawn.get(user).is_some_and(|&w| w <= round) {
                return 0;
            }
            match &table.ranks {
                Some(ranks) => points_for_rank(size, usize::from(ranks[seat])),
                None => adjudicated_points(size),
            }
        })
        .collect()
}

/// The standings after the ended rounds `rounds` (round i+1 is `rounds[i]`), best first.
/// `players` are every entrant; `withdrawn` maps a withdrawn player to their round.
pub fn standings(
    seed: &[u8],
    players: &[Uuid],
    withdrawn: &HashMap<Uuid, u16>,
    rounds: &[Vec<TableResult>],
) -> Vec<Standing> {
    let mut points: HashMap<Uuid, u32> = players.iter().map(|p| (*p, 0)).collect();
    let mut wins: HashMap<Uuid, u32> = HashMap::new();
    for (index, tables) in rounds.iter().enumerate() {
        let round = index as u16 + 1;
        for table in tables {
            for (seat, scored) in table_points(table, round, withdrawn)
                .into_iter()
                .enumerate()
            {
                let user = table.seats[seat];
                *points.entry(user).or_default() += scored;
                let won = table.ranks.as_ref().is_some_and(|r| r[seat] == 1);
                if won && scored > 0 {
                    *wins.entry(user).or_default() += 1;
                }
            }
        }
    }
    let mut opponents: HashMap<Uuid, u32> = HashMap::new();
    for table in rounds.iter().flatten() {
        for user in &table.seats {
            let others: u32 = table
                .seats
                .iter()
                .filter(|other| *other != user)
                .map(|other| points.get(other).copied().unwrap_or(0))
                .sum();
            *opponents.entry(*user).or_default() += others;
        }
    }
    let mut list: Vec<Standing> = players
        .iter()
        .map(|user| Standing {
            user: *user,
            points: points.get(user).copied().unwrap_or(0),
            opponents_points: opponents.get(user).copied().unwrap_or(0),
            wins: wins.get(user).copied().unwrap_or(0),
            withdrawn: withdrawn.contains_key(user),
        })
        .collect();
    list.sort_by(|a, b| {
        b.points
            .cmp(&a.points)
            .then(b.opponents_points.cmp(&a.opponents_points))
            .then(b.wins.cmp(&a.wins))
            .then_with(|| seeded_key(seed, a.user).cmp(&seeded_key(seed, b.user)))
    });
    list
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user(n: u8) -> Uuid {
        Uuid::from_bytes([n; 16])
    }

    #[test]
    fn the_points_table_starts_at_six_and_ends_at_zero() {
        for size in 3..=6 {
            assert_eq!(points_for_rank(size, 1), 6);
            assert_eq!(points_for_rank(size, size), 0);
            let row: Vec<u32> = (1..=size).map(|r| points_for_rank(size, r)).collect();
            assert!(row.windows(2).all(|w| w[0] > w[1]), "{row:?}");
        }
        assert_eq!(
            (1..=6).map(|r| points_for_rank(6, r)).collect::<Vec<_>>(),
            [6, 4, 3, 2, 1, 0]
        );
        assert_eq!(adjudicated_points(3), 3);
        assert_eq!(adjudicated_points(6), 2);
    }

    #[test]
    fn ties_share_the_rank_and_its_points() {
        let table = TableResult {
            seats: vec![user(1), user(2), user(3)],
            ranks: Some(vec![1, 1, 3]),
        };
        assert_eq!(table_points(&table, 1, &HashMap::new()), [6, 6, 0]);
    }

    #[test]
    fn standings_order_by_points_then_opponents_then_wins_then_seed() {
        let players: Vec<Uuid> = (1..=6).map(user).collect();
        let round = vec![
            TableResult {
                seats: vec![user(1), user(2), user(3)],
                ranks: Some(vec![1, 2, 3]),
            },
            TableResult {
                seats: vec![user(4), user(5), user(6)],
                ranks: Some(vec![3, 1, 2]),
            },
        ];
        let list = standings(b"seed", &players, &HashMap::new(), &[round]);
        let points: Vec<u32> = list.iter().map(|s| s.points).collect();
        assert_eq!(points, [6, 6, 3, 3, 0, 0]);
        // Equal points and opponents' points: the seeded order decides, the same every time.
        let again = standings(b"seed", &players, &HashMap::new(), &[]);
        assert_eq!(again, standings(b"seed", &players, &HashMap::new(), &[]));
        let mut by_key = players.clone();
        by_key.sort_by_key(|u| seeded_key(b"seed", *u));
        assert_eq!(again.iter().map(|s| s.user).collect::<Vec<_>>(), by_key);
    }

    #[test]
    fn a_withdrawn_player_scores_nothing_from_their_round_on() {
        let players: Vec<Uuid> = (1..=3).map(user).collect();
        let table = |ranks: Vec<u16>| TableResult {
            seats: vec![user(1), user(2), user(3)],
            ranks: Some(ranks),
        };
        let withdrawn = HashMap::from([(user(1), 2)]);
        let list = standings(
            b"s",
            &players,
            &withdrawn,
            &[vec![table(vec![1, 2, 3])], vec![table(vec![1, 2, 3])]],
        );
        let one = list.iter().find(|s| s.user == user(1)).unwrap();
        assert_eq!((one.points, one.withdrawn), (6, true));
    }
}
