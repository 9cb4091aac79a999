//! The transcontinental bonus: finding the paths that join New York and San Francisco.
//!
//! A path is judged by the number of companies with track on it, then by its number of links.
//! Two paths over the same set of companies pay the same bonuses, so the choice offered to
//! the completing company is between company sets: one shortest representative path each.

use super::map::{CityId, LinkId, MAX_CITIES, Map};
use super::protocol::{Company, TranscontinentalPath};

/// Whether New York and San Francisco are joined by the track of `links`.
pub fn joined(map: &Map, links: u64) -> bool {
    map.reach(map.new_york, links) & map.san_francisco.bit() != 0
}

/// The cities on New York's and on San Francisco's side of the track `built`, for asking
/// cheaply of many links whether they would complete the connection.
pub struct Sides {
    new_york: u64,
    san_francisco: u64,
}

impl Sides {
    pub fn new(map: &Map, built: u64) -> Sides {
        Sides {
            new_york: map.reach(map.new_york, built),
            san_francisco: map.reach(map.san_francisco, built),
        }
    }

    /// Whether building `link` (not yet built) would join the two sides.
    pub fn completes(&self, map: &Map, link: LinkId) -> bool {
        if self.new_york == self.san_francisco {
            return false;
        }
        let [a, b] = map.links[link.index()].ends;
        let (ny, sf) = (self.new_york, self.san_francisco);
        (ny & a.bit() != 0 && sf & b.bit() != 0) || (sf & a.bit() != 0 && ny & b.bit() != 0)
    }
}

/// The best paths from New York to San Francisco over the companies' track (`links[i]` is
/// the track of company `i` in box order): fewest companies, then fewest links; one path per
/// tied set of companies, in a fixed order. Empty when the two cities are not joined.
pub fn best_paths(map: &Map, links: &[u64; 6]) -> Vec<TranscontinentalPath> {
    let with_track: u8 = (0..6).filter(|&i| links[i] != 0).fold(0, |m, i| m | 1 << i);
    for size in 1..=6u32 {
        let mut best = u32::MAX;
        let mut sets = Vec::new();
        for set in 1u8..64 {
            if set.count_ones() != size || set & !with_track != 0 {
                continue;
            }
            let track = (0..6)
                .filter(|i| set & (1 << i) != 0)
                .fold(0, |m, i| m | links[i]);
            if let Some(path) = shortest_path(map, track) {
                let len = path.len() as u32;
                if len < best {
                    best = len;
                    sets.clear();
                }
                if len == best {
                    sets.push((set, path));
                }
            }
        }
        if !sets.is_empty() {
            return sets
                .into_iter()
                .map(|(set, links)| TranscontinentalPath {
                    companies: Company::ALL
                        .into_iter()
                        .filter(|c| set & c.bit() != 0)
                        .collect(),
                    links,
                })
                .collect();
        }
    }
    Vec::new()
}

/// A path with the fewest links from New York to San Francisco over `track` (breadth first,
/// neighbours in map order), listed from New York.
fn shortest_path(map: &Map, track: u64) -> Option<Vec<LinkId>> {
    let start = map.new_york;
    let goal = map.san_francisco;
    let mut parent: [Option<(CityId, LinkId)>; MAX_CITIES] = [None; MAX_CITIES];
    let mut seen = start.bit();
    let mut queue = [CityId(0); MAX_CITIES];
    let (mut head, mut tail) = (0, 1);
    queue[0] = start;
    while head < tail {
        let city = queue[head];
        head += 1;
        if city == goal {
            let mut path = Vec::new();
            let mut at = goal;
            while let Some((from, link)) = parent[at.index()] {
                path.push(link);
                at = from;
            }
            path.reverse();
            return Some(path);
        }
        for &(next, link) in &map.adjacency[city.index()] {
            if track & link.bit() != 0 && seen & next.bit() == 0 {
                seen |= next.bit();
                parent[next.index()] = Some((city, link));
                queue[tail] = next;
                tail += 1;
            }
        }
    }
    None
}
