//! The board: ship spaces in six colours and islands, joined by lines.
//!
//! The printed board is not known, so the graph is data (`board.json`, a copy of the proposed
//! board) and never hard-coded: replacing the file replaces the board. The data is validated
//! when it is loaded ([`Board::from_json`]); the built-in board is loaded once ([`board`]).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Cow;
use std::sync::LazyLock;
use utoipa::ToSchema;

/// The six ship colours, in the order of the rules (blue, yellow, green, orange, red, violet).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, ToSchema,
)]
#[serde(rename_all = "snake_case")]
#[schema(as = FdColour)]
pub enum Colour {
    Blue,
    Yellow,
    Green,
    Orange,
    Red,
    Violet,
}

impl Colour {
    pub const ALL: [Colour; 6] = [
        Colour::Blue,
        Colour::Yellow,
        Colour::Green,
        Colour::Orange,
        Colour::Red,
        Colour::Violet,
    ];

    /// 0..6, in the order of [`Colour::ALL`].
    pub fn index(self) -> usize {
        self as usize
    }

    pub fn name(self) -> &'static str {
        match self {
            Colour::Blue => "blue",
            Colour::Yellow => "yellow",
            Colour::Green => "green",
            Colour::Orange => "orange",
            Colour::Red => "red",
            Colour::Violet => "violet",
        }
    }

    pub fn from_name(name: &str) -> Option<Colour> {
        Colour::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// Island or ship space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
#[schema(as = FdSpaceKind)]
pub enum SpaceKind {
    Island,
    Ship,
}

/// A space as written in the board data (and as shown to clients).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(as = FdSpace)]
pub struct SpaceData {
    /// The space's identifier, e.g. `BLU_1` or `HOLLAND`.
    pub id: String,
    /// `island` or `ship`.
    #[schema(value_type = SpaceKind)]
    pub kind: String,
    /// The ship's colour (ships only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Colour>)]
    pub colour: Option<String>,
    /// Display coordinates: x to the right, y down.
    pub x: i32,
    pub y: i32,
}

/// The board data: the spaces, the lines joining them and the ghost ship's start (Holland).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, ToSchema)]
#[schema(as = FdBoard)]
pub struct BoardData {
    /// The island where the ghost ship starts (Holland).
    pub start: String,
    pub spaces: Vec<SpaceData>,
    /// Each line joins two spaces (by id); the ghost ship moves along one line a round.
    pub lines: Vec<[String; 2]>,
}

/// Board data that breaks a rule of the board; the message names the bad space or line.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid board: {message}")]
pub struct BoardError {
    pub message: String,
}

impl BoardError {
    fn new(message: impl Into<String>) -> Self {
        Self {
            message: message.into(),
        }
    }
}

/// A validated board with its adjacency.
#[derive(Debug)]
pub struct Board {
    data: BoardData,
    start: SpaceId,
    kinds: Vec<SpaceKind>,
    colours: Vec<Option<Colour>>,
    /// Neighbours of each space, sorted by index.
    adjacent: Vec<Vec<SpaceId>>,
}

/// The most spaces a board may have (a space is an index in one byte).
const MAX_SPACES: usize = 255;

impl Board {
    /// Parses and validates board data.
    pub fn from_json(json: &str) -> Result<Board, BoardError> {
        let data: BoardData = serde_json::from_str(json)
            .map_err(|e| BoardError::new(format!("the board data is not valid: {e}")))?;
        Board::from_data(data)
    }

    /// Validates board data: unique spaces, known kinds and colours, lines that join two
    /// known and different spaces (once), a start space that is an island, at least two lines
    /// at every space, and a connected graph.
    pub fn from_data(data: BoardData) -> Result<Board, BoardError> {
        if data.spaces.is_empty() {
            return Err(BoardError::new("the board has no spaces"));
        }
        if data.spaces.len() > MAX_SPACES {
            return Err(BoardError::new(format!(
                "the board has {} spaces; at most {MAX_SPACES} are supported",
                data.spaces.len()
            )));
        }
        let mut kinds = Vec::with_capacity(data.spaces.len());
        let mut colours = Vec::with_capacity(data.spaces.len());
        for (i, space) in data.spaces.iter().enumerate() {
            if space.id.is_empty() {
                return Err(BoardError::new(format!("space number {i} has an empty id")));
            }
            if data.spaces[..i].iter().any(|s| s.id == space.id) {
                return Err(BoardError::new(format!(
                    "space {} is listed twice",
                    space.id
                )));
            }
            let kind = match space.kind.as_str() {
                "island" => SpaceKind::Island,
                "ship" => SpaceKind::Ship,
                other => {
                    return Err(BoardError::new(format!(
                        "space {} has unknown kind '{other}' (island or ship)",
                        space.id
                    )));
                }
            };
            let colour = match (kind, space.colour.as_deref()) {
                (SpaceKind::Ship, None) => {
                    return Err(BoardError::new(format!(
                        "ship space {} has no colour",
                        space.id
                    )));
                }
                (SpaceKind::Ship, Some(name)) => match Colour::from_name(name) {
                    Some(colour) => Some(colour),
                    None => {
                        return Err(BoardError::new(format!(
                            "ship space {} has unknown colour '{name}' (blue, yellow, green, \
                             orange, red or violet)",
                            space.id
                        )));
                    }
                },
                (SpaceKind::Island, Some(name)) => {
                    return Err(BoardError::new(format!(
                        "island {} has a colour ('{name}'); only ships have one",
                        space.id
                    )));
                }
                (SpaceKind::Island, None) => None,
            };
            kinds.push(kind);
            colours.push(colour);
        }
        let index_of = |id: &str| data.spaces.iter().position(|s| s.id == id);

        let mut adjacent: Vec<Vec<SpaceId>> = vec![Vec::new(); data.spaces.len()];
        for (n, [a, b]) in data.lines.iter().enumerate() {
            let ia = index_of(a).ok_or_else(|| {
                BoardError::new(format!("line {n} ({a}–{b}) joins unknown space {a}"))
            })?;
            let ib = index_of(b).ok_or_else(|| {
                BoardError::new(format!("line {n} ({a}–{b}) joins unknown space {b}"))
            })?;
            if ia == ib {
                return Err(BoardError::new(format!(
                    "line {n} joins space {a} to itself"
                )));
            }
            let (sa, sb) = (SpaceId(ia as u8), SpaceId(ib as u8));
            if adjacent[ia].contains(&sb) {
                return Err(BoardError::new(format!(
                    "line {n} ({a}–{b}) is listed twice"
                )));
            }
            adjacent[ia].push(sb);
            adjacent[ib].push(sa);
        }
        for list in &mut adjacent {
            list.sort_unstable();
        }

        let start = index_of(&data.start).ok_or_else(|| {
            BoardError::new(format!("the start space {} does not exist", data.start))
        })?;
        if kinds[start] != SpaceKind::Island {
            return Err(BoardError::new(format!(
                "the start space {} is a ship, but the ghost ship starts on an island (Holland)",
                data.start
            )));
        }
        for (i, list) in adjacent.iter().enumerate() {
            if list.len() < 2 {
                return Err(BoardError::new(format!(
                    "space {} has {} line(s); every space needs at least two",
                    data.spaces[i].id,
                    list.len()
                )));
            }
        }
        // Connected: everything reachable from the start.
        let mut seen = vec![false; data.spaces.len()];
        let mut stack = vec![start];
        seen[start] = true;
        while let Some(i) = stack.pop() {
            for next in &adjacent[i] {
                let j = next.index();
                if !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            }
        }
        if let Some(i) = seen.iter().position(|s| !s) {
            return Err(BoardError::new(format!(
                "space {} cannot be reached from the start space {}: the board is not connected",
                data.spaces[i].id, data.start
            )));
        }

        Ok(Board {
            start: SpaceId(start as u8),
            data,
            kinds,
            colours,
            adjacent,
        })
    }

    /// The ghost ship's start (Holland).
    pub fn start(&self) -> SpaceId {
        self.start
    }

    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    /// The ship colour of a space; `None` for an island.
    pub fn colour(&self, space: SpaceId) -> Option<Colour> {
        self.colours[space.index()]
    }

    pub fn kind(&self, space: SpaceId) -> SpaceKind {
        self.kinds[space.index()]
    }

    pub fn name(&self, space: SpaceId) -> &str {
        &self.data.spaces[space.index()].id
    }

    pub fn find(&self, name: &str) -> Option<SpaceId> {
        self.data
            .spaces
            .iter()
            .position(|s| s.id == name)
            .map(|i| SpaceId(i as u8))
    }

    /// The spaces one line away, sorted.
    pub fn adjacent(&self, space: SpaceId) -> &[SpaceId] {
        &self.adjacent[space.index()]
    }

    /// The data as loaded (what clients render).
    pub fn data(&self) -> &BoardData {
        &self.data
    }
}

/// The built-in board (`board.json`), loaded and validated once.
pub static BOARD: LazyLock<Board> = LazyLock::new(|| {
    Board::from_json(include_str!("board.json")).expect("the built-in board data is valid")
});

/// The built-in board.
pub fn board() -> &'static Board {
    &BOARD
}

/// A space of the built-in board. In memory an index; on the wire its id (`"BLU_1"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SpaceId(pub u8);

impl SpaceId {
    pub fn index(self) -> usize {
        usize::from(self.0)
    }

    pub fn name(self) -> &'static str {
        board().name(self)
    }
}

impl Serialize for SpaceId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for SpaceId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = Cow::<'de, str>::deserialize(deserializer)?;
        board()
            .find(&name)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown space {name}")))
    }
}

impl utoipa::PartialSchema for SpaceId {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
        ObjectBuilder::new()
            .schema_type(SchemaType::Type(Type::String))
            .description(Some(
                "A space of the board, by its id (e.g. `BLU_1`, `HOLLAND`).",
            ))
            .enum_values(Some(board().data().spaces.iter().map(|s| s.id.clone())))
            .into()
    }
}

impl utoipa::ToSchema for SpaceId {
    fn name() -> Cow<'static, str> {
        Cow::Borrowed("FdSpaceId")
    }
}

/// The built-in board as part of a view: serialised as its data, never stored in a state.
#[derive(Clone, Copy, Debug)]
pub struct BoardRef(pub &'static Board);

impl PartialEq for BoardRef {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self.0, other.0)
    }
}

impl Serialize for BoardRef {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.data.serialize(serializer)
    }
}

/// Documented exactly as [`BoardData`] (under the same component name).
impl utoipa::PartialSchema for BoardRef {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        <BoardData as utoipa::PartialSchema>::schema()
    }
}

impl utoipa::ToSchema for BoardRef {
    fn name() -> Cow<'static, str> {
        <BoardData as utoipa::ToSchema>::name()
    }
    fn schemas(
        schemas: &mut Vec<(
            String,
            utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>,
        )>,
    ) {
        <BoardData as utoipa::ToSchema>::schemas(schemas);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn standard() -> BoardData {
        serde_json::from_str(include_str!("board.json")).unwrap()
    }

    fn error_of(data: BoardData) -> String {
        Board::from_data(data).unwrap_err().message
    }

    #[test]
    fn the_built_in_board_is_valid() {
        let b = board();
        assert_eq!(b.len(), 24);
        assert_eq!(b.name(b.start()), "HOLLAND");
        assert_eq!(b.kind(b.start()), SpaceKind::Island);
        let ships = (0..b.len())
            .filter(|&i| b.kind(SpaceId(i as u8)) == SpaceKind::Ship)
            .count();
        assert_eq!(ships, 18);
        for colour in Colour::ALL {
            let n = (0..b.len())
                .filter(|&i| b.colour(SpaceId(i as u8)) == Some(colour))
                .count();
            assert_eq!(n, 3, "{colour:?}");
        }
        assert_eq!(b.data().lines.len(), 40);
        let holland = b.start();
        let mut names: Vec<&str> = b.adjacent(holland).iter().map(|s| s.name()).collect();
        names.sort_unstable();
        assert_eq!(names, ["BLU_2", "GRN_2", "ORA_1"]);
    }

    #[test]
    fn a_line_to_an_unknown_space_is_refused() {
        let mut data = standard();
        data.lines[4] = ["BLU_2".into(), "ATLANTIS".into()];
        let message = error_of(data);
        assert!(message.contains("line 4"), "{message}");
        assert!(message.contains("unknown space ATLANTIS"), "{message}");
    }

    #[test]
    fn a_line_from_a_space_to_itself_is_refused() {
        let mut data = standard();
        data.lines.push(["RED_1".into(), "RED_1".into()]);
        assert!(error_of(data).contains("RED_1 to itself"));
    }

    #[test]
    fn a_line_listed_twice_is_refused() {
        let mut data = standard();
        data.lines.push(["ISLAND_C1".into(), "BLU_1".into()]);
        assert!(error_of(data).contains("listed twice"));
    }

    #[test]
    fn a_missing_start_space_is_refused() {
        let mut data = standard();
        data.start = "AMSTERDAM".into();
        assert!(error_of(data).contains("start space AMSTERDAM does not exist"));
    }

    #[test]
    fn a_start_space_that_is_a_ship_is_refused() {
        let mut data = standard();
        data.start = "BLU_2".into();
        let message = error_of(data);
        assert!(message.contains("BLU_2 is a ship"), "{message}");
    }

    #[test]
    fn a_disconnected_board_is_refused() {
        let mut data = standard();
        // Two new islands joined only to each other (twice would be a duplicate, so a triangle).
        for id in ["X1", "X2", "X3"] {
            data.spaces.push(SpaceData {
                id: id.into(),
                kind: "island".into(),
                colour: None,
                x: 9,
                y: 9,
            });
        }
        data.lines.push(["X1".into(), "X2".into()]);
        data.lines.push(["X2".into(), "X3".into()]);
        data.lines.push(["X3".into(), "X1".into()]);
        let message = error_of(data);
        assert!(message.contains("space X1 cannot be reached"), "{message}");
    }

    #[test]
    fn a_space_with_fewer_than_two_lines_is_refused() {
        let mut data = standard();
        data.spaces.push(SpaceData {
            id: "ROCK".into(),
            kind: "island".into(),
            colour: None,
            x: 5,
            y: 5,
        });
        data.lines.push(["ROCK".into(), "ISLAND_E".into()]);
        let message = error_of(data);
        assert!(message.contains("space ROCK has 1 line"), "{message}");
    }

    #[test]
    fn an_unknown_ship_colour_is_refused() {
        let mut data = standard();
        data.spaces[1].colour = Some("pink".into());
        let message = error_of(data);
        assert!(
            message.contains("GRN_1 has unknown colour 'pink'"),
            "{message}"
        );
    }

    #[test]
    fn a_ship_without_colour_is_refused() {
        let mut data = standard();
        data.spaces[1].colour = None;
        assert!(error_of(data).contains("ship space GRN_1 has no colour"));
    }

    #[test]
    fn an_island_with_a_colour_is_refused() {
        let mut data = standard();
        data.spaces[0].colour = Some("red".into());
        assert!(error_of(data).contains("island ISLAND_N has a colour"));
    }

    #[test]
    fn an_unknown_kind_and_a_duplicate_space_are_refused() {
        let mut data = standard();
        data.spaces[0].kind = "lake".into();
        assert!(error_of(data).contains("ISLAND_N has unknown kind 'lake'"));
        let mut data = standard();
        let copy = data.spaces[3].clone();
        data.spaces.push(copy);
        assert!(error_of(data).contains("space YEL_1 is listed twice"));
    }

    #[test]
    fn malformed_json_is_refused() {
        let err = Board::from_json("{\"start\": 3}").unwrap_err();
        assert!(err.message.contains("not valid"), "{}", err.message);
    }

    #[test]
    fn space_ids_serialise_as_names() {
        let holland = board().start();
        assert_eq!(serde_json::to_string(&holland).unwrap(), "\"HOLLAND\"");
        let back: SpaceId = serde_json::from_str("\"HOLLAND\"").unwrap();
        assert_eq!(back, holland);
        assert!(serde_json::from_str::<SpaceId>("\"NOWHERE\"").is_err());
    }
}
