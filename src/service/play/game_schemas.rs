//! The games' own types as the platform's types refer to them in the API description. Each
//! game's types are described under its prefix (`FlyingDutchman.Command`, added by
//! `http::openapi`); a field that holds one game's value (an action, a view, the options) is
//! any of the games' schemas of that part, named here and used with `#[schema(schema_with =
//! …)]` at the field.

use crate::games::GameKind;
use utoipa::openapi::schema::{AnyOfBuilder, ObjectBuilder, Schema, Type};
use utoipa::openapi::{Ref, RefOr};

/// `use_kontor`, `game.started`, `steel-driver` → `UseKontor`, `GameStarted`, `SteelDriver`.
pub fn pascal(words: &str) -> String {
    words
        .split(['_', '.', '-'])
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// The schema-name prefix of a game's types (`FlyingDutchman` of `FlyingDutchman.Command`).
pub fn prefix_of(kind: &str) -> String {
    pascal(kind)
}

/// Any game's schema of `part` (`Command`, `View`…), then `more`, under `description`.
fn any_game(
    part: &str,
    more: impl IntoIterator<Item = RefOr<Schema>>,
    description: &str,
) -> RefOr<Schema> {
    let mut any = AnyOfBuilder::new().description(Some(description));
    for kind in GameKind::ALL {
        let name = format!("{}.{part}", prefix_of(kind.as_str()));
        any = any.item(Ref::from_schema_name(name));
    }
    for schema in more {
        any = any.item(schema);
    }
    Schema::AnyOf(any.build()).into()
}

/// `null`, for a field that has no value yet.
fn null() -> Option<RefOr<Schema>> {
    Some(Schema::from(ObjectBuilder::new().schema_type(Type::Null).build()).into())
}

/// `ActionRequest.action`.
pub fn action() -> RefOr<Schema> {
    any_game("Command", None, "The action, as its game defines it.")
}

/// `GameDetail.view`.
pub fn view() -> RefOr<Schema> {
    any_game(
        "View",
        null(),
        "The position as the caller may see it; `null` before the start.",
    )
}

/// `GameDetail.legal`.
pub fn legal() -> RefOr<Schema> {
    any_game(
        "Legal",
        null(),
        "What the caller may do now; `null` for non-players and past versions.",
    )
}

/// `CreateGameRequest.options`: what a request may send (no option required).
pub fn requested_options() -> RefOr<Schema> {
    any_game(
        "Options",
        null(),
        "The game's options; absent ones take their defaults. Unknown options are refused.",
    )
}

/// `GameSummary.options`: the options a game stores, every default filled in.
pub fn options() -> RefOr<Schema> {
    any_game(
        "FullOptions",
        None,
        "The options with every default filled in.",
    )
}

/// `ExportHeader.options`.
pub fn exported_options() -> RefOr<Schema> {
    any_game(
        "FullOptions",
        None,
        "The game's options, every default filled in.",
    )
}

/// `GameSummary.outcome`.
pub fn outcome() -> RefOr<Schema> {
    any_game(
        "Outcome",
        null(),
        "The result once the game has ended, `null` before.",
    )
}

/// `EventOut.data`: one of a game's events, one of the platform's (`kontor.…`), or one of a
/// type added after this description (`UnknownEvent`, which `http::openapi` adds with
/// `EventType`, the tags it collects from the games' events).
pub fn event() -> RefOr<Schema> {
    let platform = ["PlatformEvent", "UnknownEvent"].map(|name| Ref::from_schema_name(name).into());
    any_game(
        "Event",
        platform,
        "The event as this viewer may see it (redacted by the game's rules).",
    )
}

/// `EventOut.type`: one of the tags of the games' and the platform's events (`EventType`), or
/// a type added later. Event types are added with new game features (the versioning
/// promise): a client generated today keeps an event added later instead of failing on it.
pub fn event_type() -> RefOr<Schema> {
    let later = ObjectBuilder::new()
        .schema_type(Type::String)
        .description(Some("A type added after this description."));
    Schema::AnyOf(
        AnyOfBuilder::new()
            .item(Ref::from_schema_name("EventType"))
            .item(later)
            .build(),
    )
    .into()
}

/// `OrderRequest.order`, `StandingOrder.order`.
pub fn order() -> RefOr<Schema> {
    any_game("Order", None, "The standing order, as its game defines it.")
}

/// `News.order`, `CommandRecord.order`: the order that played (as it stood then) or was
/// dropped.
pub fn order_or_null() -> RefOr<Schema> {
    any_game(
        "Order",
        null(),
        "The standing order that played the move (as it stood then) or was dropped.",
    )
}

/// `News.command`: the move played.
pub fn command_or_null() -> RefOr<Schema> {
    any_game(
        "Command",
        null(),
        "The move played, as its game defines it.",
    )
}
