//! Seating a round: pure functions of the standings and the tables played so far (no I/O).
//!
//! - Table sizes: as few tables as keep every table at most `seats_per_table`, sizes
//!   differing by at most one (larger tables first); when that would make a table smaller
//!   than the kind's minimum, one table fewer (so a table may then exceed `seats_per_table`,
//!   never the kind's maximum). Fewer active players than the kind's minimum: no round.
//! - Swiss: the active players in standings order are cut into tables of those sizes (round 1:
//!   the standings are all equal, so the seeded order). Then players of two tables are
//!   swapped while a swap lowers the number of repeat meetings (a pair that met before,
//!   counted per earlier meeting): neighbouring tables first, then tables two apart and so on,
//!   so that similar scores stay together as far as avoiding repeats allows; the largest gain
//!   at the closest distance, the first in table order among equals, so it is deterministic.
//!   Two players kept apart (one blocked the other) at one table cost more than any number of
//!   repeats, so swaps part them first wherever the tables allow; when they cannot be parted
//!   (a single table, or too many blocks among too few tables) they are seated together.
//! - Round-robin groups: round 1 cuts the seeded order into groups of those sizes (then swaps
//!   between groups, as Swiss does, part players kept apart where it can); every round
//!   each group meets at one table, its seat order rotated by one per round so that every
//!   player sits in every position in turn. Withdrawn players leave their group; a group left
//!   with fewer players than the kind's minimum sits out.
//! - Seats at a Swiss table rotate by the round number too (seat i is the table's
//!   (i + round − 1) mod n-th player in standings order).

use std::collections::{HashMap, HashSet};
use uuid::Uuid;

/// Pairs of players kept apart (either blocked the other), each as [`pair`] orders it.
pub type Apart = HashSet<(Uuid, Uuid)>;

/// What one pair of players kept apart at one table costs: more than all the repeats two
/// tables can have (at most 15 pairs a table, each met in at most 20 earlier rounds), so no
/// repeat is ever avoided by seating such a pair together.
const APART_COST: u64 = 1 << 32;

/// The sizes of the tables for `count` players, or `None` when they cannot fill one.
pub fn table_sizes(
    count: usize,
    seats_per_table: usize,
    min: usize,
    max: usize,
) -> Option<Vec<usize>> {
    if count < min || seats_per_table == 0 {
        return None;
    }
    let mut tables = count.div_ceil(seats_per_table);
    while tables >= 1 {
        let (base, extra) = (count / tables, count % tables);
        let largest = base + usize::from(extra > 0);
        if base >= min && largest <= max {
            return Some(
                (0..tables)
                    .map(|i| if i < extra { base + 1 } else { base })
                    .collect(),
            );
        }
        tables -= 1;
    }
    None
}

/// How often each pair of players sat at one table in `tables`.
pub fn meetings<'a>(tables: impl IntoIterator<Item = &'a Vec<Uuid>>) -> HashMap<(Uuid, Uuid), u32> {
    let mut met = HashMap::new();
    for table in tables {
        for (i, a) in table.iter().enumerate() {
            for b in &table[i + 1..] {
                *met.entry(pair(*a, *b)).or_default() += 1;
            }
        }
    }
    met
}

/// A pair of players in one order whichever comes first (the key of meetings and of [`Apart`]).
pub fn pair(a: Uuid, b: Uuid) -> (Uuid, Uuid) {
    if a < b { (a, b) } else { (b, a) }
}

/// The repeat meetings a table would have.
pub fn repeats(table: &[Uuid], met: &HashMap<(Uuid, Uuid), u32>) -> u32 {
    let mut total = 0;
    for (i, a) in table.iter().enumerate() {
        for b in &table[i + 1..] {
            total += met.get(&pair(*a, *b)).copied().unwrap_or(0);
        }
    }
    total
}

/// What a table costs: its pairs kept apart (each [`APART_COST`]) and its repeat meetings.
fn cost(table: &[Uuid], met: &HashMap<(Uuid, Uuid), u32>, apart: &Apart) -> u64 {
    let mut kept_apart = 0;
    for (i, a) in table.iter().enumerate() {
        for b in &table[i + 1..] {
            kept_apart += u64::from(apart.contains(&pair(*a, *b)));
        }
    }
    kept_apart * APART_COST + u64::from(repeats(table, met))
}

/// Cuts `order` into consecutive tables of `sizes`.
fn cut(order: &[Uuid], sizes: &[usize]) -> Vec<Vec<Uuid>> {
    let mut rest = order;
    sizes
        .iter()
        .map(|&size| {
            let (table, tail) = rest.split_at(size);
            rest = tail;
            table.to_vec()
        })
        .collect()
}

/// A Swiss round: `order` is the active players in standings order.
pub fn swiss(
    order: &[Uuid],
    sizes: &[usize],
    met: &HashMap<(Uuid, Uuid), u32>,
    apart: &Apart,
) -> Vec<Vec<Uuid>> {
    let mut tables = cut(order, sizes);
    // Each accepted swap lowers the total cost, so this ends; the bound is a guard (parting
    // pairs kept apart may take a swap per pair before the repeats are worked on).
    for _ in 0..order.len() * order.len() + apart.len() {
        let Some((t, u, i, j)) = best_swap(&tables, met, apart) else {
            break;
        };
        let moved = tables[t][i];
        tables[t][i] = tables[u][j];
        tables[u][j] = moved;
    }
    tables
}

/// The swap that lowers the cost (pairs kept apart, then repeats) most between tables as close as possible in the
/// standings: tables one apart first, then two apart, and so on; among equal gains the first
/// in table order. `(table, other table, index in table, index in other)`.
fn best_swap(
    tables: &[Vec<Uuid>],
    met: &HashMap<(Uuid, Uuid), u32>,
    apart: &Apart,
) -> Option<(usize, usize, usize, usize)> {
    for distance in 1..tables.len() {
        let mut best: Option<(u64, usize, usize, usize, usize)> = None;
        for t in 0..tables.len() - distance {
            let u = t + distance;
            let before = cost(&tables[t], met, apart) + cost(&tables[u], met, apart);
            for i in 0..tables[t].len() {
                for j in 0..tables[u].len() {
                    let (mut upper, mut lower) = (tables[t].clone(), tables[u].clone());
                    std::mem::swap(&mut upper[i], &mut lower[j]);
                    let after = cost(&upper, met, apart) + cost(&lower, met, apart);
                    if after < before && best.is_none_or(|(gain, ..)| before - after > gain) {
                        best = Some((before - after, t, u, i, j));
                    }
                }
            }
        }
        if let Some((_, t, u, i, j)) = best {
            return Some((t, u, i, j));
        }
    }
    None
}

/// Rotates a table's players by `round − 1` positions (seat i gets player (i + round − 1) mod n).
pub fn rotate(table: &[Uuid], round: u16) -> Vec<Uuid> {
    let n = table.len();
    (0..n)
        .map(|i| table[(i + usize::from(round.saturating_sub(1))) % n])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn users(n: u8) -> Vec<Uuid> {
        (1..=n).map(|i| Uuid::from_bytes([i; 16])).collect()
    }

    #[test]
    fn table_sizes_stay_within_bounds_and_differ_by_at_most_one() {
        for seats in 3..=6 {
            for count in 0..=40 {
                match table_sizes(count, seats, 3, 6) {
                    None => assert!(count < 3, "{count} players at tables of {seats}"),
                    Some(sizes) => {
                        assert_eq!(sizes.iter().sum::<usize>(), count);
                        assert!(sizes.iter().all(|s| (3..=6).contains(s)), "{sizes:?}");
                        let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
                        assert!(hi - lo <= 1, "{sizes:?}");
                        assert!(sizes.windows(2).all(|w| w[0] >= w[1]));
                        if count >= seats && count % seats == 0 {
                            assert!(
                                sizes.iter().all(|s| *s == seats),
                                "{count}/{seats}: {sizes:?}"
                            );
                        }
                    }
                }
            }
        }
        assert_eq!(table_sizes(9, 3, 3, 6), Some(vec![3, 3, 3]));
        assert_eq!(table_sizes(10, 3, 3, 6), Some(vec![4, 3, 3]));
        assert_eq!(table_sizes(4, 3, 3, 6), Some(vec![4]));
        assert_eq!(table_sizes(2, 3, 3, 6), None);
    }

    #[test]
    fn swiss_seats_everyone_once_and_avoids_repeats_when_it_can() {
        let players = users(9);
        let sizes = [3, 3, 3];
        let first = swiss(&players, &sizes, &HashMap::new(), &Apart::new());
        assert_eq!(first, cut(&players, &sizes));
        // The same order again: every table would repeat; swaps between neighbours remove
        // every repeat of round 1 (9 players at 3 tables of 3 can all meet new people).
        let met = meetings(&first);
        let second = swiss(&players, &sizes, &met, &Apart::new());
        let mut seated: Vec<Uuid> = second.iter().flatten().copied().collect();
        seated.sort();
        let mut all = players.clone();
        all.sort();
        assert_eq!(seated, all);
        let total: u32 = second.iter().map(|t| repeats(t, &met)).sum();
        assert_eq!(total, 0, "{second:?}");
        // Deterministic.
        assert_eq!(second, swiss(&players, &sizes, &met, &Apart::new()));
    }

    #[test]
    fn swiss_never_does_worse_than_the_plain_cut() {
        let players = users(12);
        let sizes = table_sizes(12, 4, 3, 6).unwrap();
        let mut history = Vec::new();
        for round in 0..4u8 {
            let mut order = players.clone();
            order.rotate_left(usize::from(round) * 5 % 12);
            let met = meetings(&history);
            let tables = swiss(&order, &sizes, &met, &Apart::new());
            let plain: u32 = cut(&order, &sizes).iter().map(|t| repeats(t, &met)).sum();
            let swapped: u32 = tables.iter().map(|t| repeats(t, &met)).sum();
            assert!(swapped <= plain);
            history.extend(tables);
        }
    }

    #[test]
    fn swiss_parts_players_kept_apart_before_it_avoids_repeats() {
        let players = users(9);
        let sizes = [3, 3, 3];
        // 1 and 2, 1 and 3, and 4 and 5 would share the cut's first two tables.
        let apart: Apart = [(0, 1), (0, 2), (3, 4)]
            .into_iter()
            .map(|(a, b)| pair(players[a], players[b]))
            .collect();
        let first = swiss(&players, &sizes, &HashMap::new(), &apart);
        let together = |tables: &[Vec<Uuid>]| -> u64 {
            tables
                .iter()
                .map(|t| cost(t, &HashMap::new(), &apart))
                .sum::<u64>()
                / APART_COST
        };
        assert_eq!(together(&cut(&players, &sizes)), 3);
        assert_eq!(together(&first), 0, "{first:?}");
        // Round 2: parted again although that means a repeat or two.
        let met = meetings(&first);
        let second = swiss(&players, &sizes, &met, &apart);
        assert_eq!(together(&second), 0, "{second:?}");
        assert_eq!(
            second,
            swiss(&players, &sizes, &met, &apart),
            "deterministic"
        );
        // One table: they cannot be parted and are seated together.
        let three = users(3);
        let both: Apart = [pair(three[0], three[1])].into_iter().collect();
        assert_eq!(
            swiss(&three, &[3], &HashMap::new(), &both),
            vec![three.clone()]
        );
    }

    #[test]
    fn rotation_puts_everyone_in_every_seat() {
        let table = users(4);
        let firsts: Vec<Uuid> = (1..=4).map(|r| rotate(&table, r)[0]).collect();
        assert_eq!(firsts, table);
    }
}
