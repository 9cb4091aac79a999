//! The map: cities, links and their derived lookup tables, loaded from `map.json` once and
//! validated on load.
//!
//! Cities and links are referred to by small indices ([`CityId`], [`LinkId`]) inside the
//! engine, so a company's network is a pair of `u64` bitsets. On the wire (commands, events,
//! views) they are written as the map's string ids (`"SEA"`, `"SEA-POR"`).

use super::protocol::Colour;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::collections::{BTreeMap, HashMap};
use std::sync::LazyLock;
use utoipa::ToSchema;

/// The id of the one built-in map (the `map` option).
pub const MAP_ID: &str = "usa";

/// The map data shipped with the engine.
const MAP_JSON: &str = include_str!("map.json");

/// The built-in map, parsed and validated on first use. The data is part of the program, and
/// a unit test proves it valid, so a failure here is a build defect, not a runtime condition.
pub static MAP: LazyLock<Map> = LazyLock::new(|| match Map::parse(MAP_JSON) {
    Ok(map) => map,
    Err(error) => panic!("the built-in Steel Driver map is invalid: {error}"),
});

/// Bounds the rules put on the data.
pub const CITY_VALUES: std::ops::RangeInclusive<u32> = 20..=60;
pub const LINK_COSTS: std::ops::RangeInclusive<u32> = 2..=6;
/// Networks are `u64` bitsets, so a map holds at most 64 cities and 64 links.
pub const MAX_CITIES: usize = 64;
pub const MAX_LINKS: usize = 64;
pub const NEW_YORK: &str = "New York";
pub const SAN_FRANCISCO: &str = "San Francisco";

/// A city of the map, by index. Written as the city's id (`"NYC"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ToSchema)]
#[schema(as = SteelDriverCity, value_type = String, example = "NYC")]
pub struct CityId(pub u8);

/// A link between two cities, by index. Written as the link's id (`"PHL-NYC"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, ToSchema)]
#[schema(as = SteelDriverLink, value_type = String, example = "PHL-NYC")]
pub struct LinkId(pub u8);

impl CityId {
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
    pub fn bit(self) -> u64 {
        1u64 << self.0
    }
    pub fn city(self) -> &'static City {
        &MAP.cities[self.index()]
    }
}

impl LinkId {
    pub fn index(self) -> usize {
        usize::from(self.0)
    }
    pub fn bit(self) -> u64 {
        1u64 << self.0
    }
    pub fn link(self) -> &'static Link {
        &MAP.links[self.index()]
    }
}

impl Serialize for CityId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match MAP.cities.get(self.index()) {
            Some(city) => serializer.serialize_str(&city.id),
            None => Err(serde::ser::Error::custom(format!("no city #{}", self.0))),
        }
    }
}

impl<'de> Deserialize<'de> for CityId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let id = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        MAP.city(&id)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown city `{id}`")))
    }
}

impl Serialize for LinkId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match MAP.links.get(self.index()) {
            Some(link) => serializer.serialize_str(&link.id),
            None => Err(serde::ser::Error::custom(format!("no link #{}", self.0))),
        }
    }
}

impl<'de> Deserialize<'de> for LinkId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let id = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        MAP.link(&id)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown link `{id}`")))
    }
}

/// Iterates the set bits of a bitset, lowest first.
pub fn bits(mut set: u64) -> impl Iterator<Item = u8> {
    std::iter::from_fn(move || {
        if set == 0 {
            None
        } else {
            let bit = set.trailing_zeros() as u8;
            set &= set - 1;
            Some(bit)
        }
    })
}

#[derive(Clone, Debug, PartialEq)]
pub struct City {
    pub id: String,
    pub name: String,
    pub colour: Colour,
    pub value: u32,
    pub start: bool,
    pub lon: f64,
    pub lat: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Link {
    pub id: String,
    pub ends: [CityId; 2],
    pub cost: u32,
}

impl Link {
    /// Both end cities as a bitset.
    pub fn ends_mask(&self) -> u64 {
        self.ends[0].bit() | self.ends[1].bit()
    }
}

/// The validated map and the tables derived from it.
#[derive(Debug)]
pub struct Map {
    pub cities: Vec<City>,
    pub links: Vec<Link>,
    /// Cities per colour, in [`Colour::ALL`] order.
    pub colour_counts: [u32; 5],
    city_index: HashMap<String, CityId>,
    link_index: HashMap<String, LinkId>,
    /// Per city: the links that touch it.
    pub city_links: Vec<u64>,
    /// Per city: `(neighbour, link)` pairs in link order.
    pub adjacency: Vec<Vec<(CityId, LinkId)>>,
    pub start_cities: u64,
    /// Links with at least one start city at an end.
    pub start_links: u64,
    /// `cost_at_most[k]`: links whose cost is at most `k` (k = 0..=6).
    pub cost_at_most: [u64; 7],
    pub new_york: CityId,
    pub san_francisco: CityId,
}

/// Why map data was refused. Each names the city, link or colour at fault.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MapError {
    #[error("the map data is not valid JSON of the expected shape: {0}")]
    Json(String),
    #[error(
        "the map has {count} cities and {links} links; at most {MAX_CITIES} and {MAX_LINKS} are supported"
    )]
    TooLarge { count: usize, links: usize },
    #[error("city `{0}` is listed twice")]
    DuplicateCity(String),
    #[error("city `{city}` has unknown colour `{colour}`")]
    UnknownColour { city: String, colour: String },
    #[error("city `{city}` has value {value}; values are 20 to 60")]
    CityValue { city: String, value: u32 },
    #[error("link `{0}` is listed twice")]
    DuplicateLink(String),
    #[error("link `{link}` names unknown city `{city}`")]
    UnknownCity { link: String, city: String },
    #[error("link `{0}` joins a city to itself")]
    LinkLoop(String),
    #[error("link `{link}` costs {cost}; costs are 2 to 6")]
    LinkCost { link: String, cost: u32 },
    #[error("no city is flagged as a start city")]
    NoStartCity,
    #[error("the map has no city named `{0}`")]
    MissingCity(&'static str),
    #[error("colour `{colour}` is declared for {declared} cities but {found} have it")]
    ColourCount {
        colour: String,
        declared: u32,
        found: u32,
    },
    #[error("city `{0}` cannot be reached from the rest of the map")]
    Disconnected(String),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMap {
    #[serde(rename = "_note", default)]
    _note: Option<String>,
    colours: BTreeMap<String, u32>,
    cities: Vec<RawCity>,
    routes: Vec<RawRoute>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCity {
    id: String,
    name: String,
    colour: String,
    value: u32,
    start: bool,
    lon: f64,
    lat: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRoute {
    id: String,
    from: String,
    to: String,
    cost: u32,
}

impl Map {
    /// Parses and validates map data.
    pub fn parse(json: &str) -> Result<Map, MapError> {
        let raw: RawMap = serde_json::from_str(json).map_err(|e| MapError::Json(e.to_string()))?;
        if raw.cities.len() > MAX_CITIES || raw.routes.len() > MAX_LINKS {
            return Err(MapError::TooLarge {
                count: raw.cities.len(),
                links: raw.routes.len(),
            });
        }

        let mut cities = Vec::with_capacity(raw.cities.len());
        let mut city_index = HashMap::new();
        for (i, c) in raw.cities.into_iter().enumerate() {
            let colour = Colour::from_name(&c.colour).ok_or_else(|| MapError::UnknownColour {
                city: c.id.clone(),
                colour: c.colour.clone(),
            })?;
            if !CITY_VALUES.contains(&c.value) {
                return Err(MapError::CityValue {
                    city: c.id,
                    value: c.value,
                });
            }
            if city_index.insert(c.id.clone(), CityId(i as u8)).is_some() {
                return Err(MapError::DuplicateCity(c.id));
            }
            cities.push(City {
                id: c.id,
                name: c.name,
                colour,
                value: c.value,
                start: c.start,
                lon: c.lon,
                lat: c.lat,
            });
        }

        let mut links = Vec::with_capacity(raw.routes.len());
        let mut link_index = HashMap::new();
        for (i, r) in raw.routes.into_iter().enumerate() {
            let end = |name: &String| {
                city_index
                    .get(name)
                    .copied()
                    .ok_or_else(|| MapError::UnknownCity {
                        link: r.id.clone(),
                        city: name.clone(),
                    })
            };
            let ends = [end(&r.from)?, end(&r.to)?];
            if ends[0] == ends[1] {
                return Err(MapError::LinkLoop(r.id));
            }
            if !LINK_COSTS.contains(&r.cost) {
                return Err(MapError::LinkCost {
                    link: r.id,
                    cost: r.cost,
                });
            }
            if link_index.insert(r.id.clone(), LinkId(i as u8)).is_some() {
                return Err(MapError::DuplicateLink(r.id));
            }
            links.push(Link {
                id: r.id,
                ends,
                cost: r.cost,
            });
        }

        if !cities.iter().any(|c| c.start) {
            return Err(MapError::NoStartCity);
        }
        let named = |name: &'static str| {
            cities
                .iter()
                .position(|c| c.name == name)
                .map(|i| CityId(i as u8))
                .ok_or(MapError::MissingCity(name))
        };
        let new_york = named(NEW_YORK)?;
        let san_francisco = named(SAN_FRANCISCO)?;

        let mut colour_counts = [0u32; 5];
        for city in &cities {
            colour_counts[city.colour.index()] += 1;
        }
        for (name, &declared) in &raw.colours {
            let colour = Colour::from_name(name).ok_or_else(|| MapError::UnknownColour {
                city: "(declared colours)".into(),
                colour: name.clone(),
            })?;
            let found = colour_counts[colour.index()];
            if found != declared {
                return Err(MapError::ColourCount {
                    colour: name.clone(),
                    declared,
                    found,
                });
            }
        }
        for colour in Colour::ALL {
            let found = colour_counts[colour.index()];
            if !raw.colours.contains_key(colour.name()) && found > 0 {
                return Err(MapError::ColourCount {
                    colour: colour.name().into(),
                    declared: 0,
                    found,
                });
            }
        }

        let mut city_links = vec![0u64; cities.len()];
        let mut adjacency = vec![Vec::new(); cities.len()];
        let mut cost_at_most = [0u64; 7];
        for (i, link) in links.iter().enumerate() {
            let id = LinkId(i as u8);
            let [a, b] = link.ends;
            city_links[a.index()] |= id.bit();
            city_links[b.index()] |= id.bit();
            adjacency[a.index()].push((b, id));
            adjacency[b.index()].push((a, id));
            for (k, mask) in cost_at_most.iter_mut().enumerate() {
                if link.cost <= k as u32 {
                    *mask |= id.bit();
                }
            }
        }
        let start_cities = cities
            .iter()
            .enumerate()
            .filter(|(_, c)| c.start)
            .fold(0u64, |m, (i, _)| m | 1u64 << i);
        let start_links = bits(start_cities).fold(0u64, |m, c| m | city_links[usize::from(c)]);

        let map = Map {
            cities,
            links,
            colour_counts,
            city_index,
            link_index,
            city_links,
            adjacency,
            start_cities,
            start_links,
            cost_at_most,
            new_york,
            san_francisco,
        };
        let all_links = if map.links.len() == 64 {
            u64::MAX
        } else {
            (1u64 << map.links.len()) - 1
        };
        let reached = map.reach(CityId(0), all_links);
        if let Some(lost) = (0..map.cities.len()).find(|&i| reached & (1u64 << i) == 0) {
            return Err(MapError::Disconnected(map.cities[lost].id.clone()));
        }
        Ok(map)
    }

    pub fn city(&self, id: &str) -> Option<CityId> {
        self.city_index.get(id).copied()
    }

    pub fn link(&self, id: &str) -> Option<LinkId> {
        self.link_index.get(id).copied()
    }

    /// The links touching any city of `cities`.
    pub fn links_touching(&self, cities: u64) -> u64 {
        bits(cities).fold(0, |m, c| m | self.city_links[usize::from(c)])
    }

    /// The cities reachable from `from` over the links of `links` (including `from`).
    pub fn reach(&self, from: CityId, links: u64) -> u64 {
        let mut seen = from.bit();
        let mut stack = [0u8; MAX_CITIES];
        let mut top = 1;
        stack[0] = from.0;
        while top > 0 {
            top -= 1;
            let city = usize::from(stack[top]);
            for &(next, link) in &self.adjacency[city] {
                if links & link.bit() != 0 && seen & next.bit() == 0 {
                    seen |= next.bit();
                    stack[top] = next.0;
                    top += 1;
                }
            }
        }
        seen
    }

    /// The cities at the ends of the links of `links`.
    pub fn cities_of(&self, links: u64) -> u64 {
        bits(links).fold(0, |m, l| m | self.links[usize::from(l)].ends_mask())
    }

    /// Total value of the cities in `cities`.
    pub fn value_of(&self, cities: u64) -> u32 {
        bits(cities)
            .map(|c| self.cities[usize::from(c)].value)
            .sum()
    }
}
