//! Tests of the Flying Dutchman engine: scenarios per rule, and properties over bot games.

mod orders;
mod properties;
mod referee;
mod scenarios;
mod schema;
mod support;
mod undo;
