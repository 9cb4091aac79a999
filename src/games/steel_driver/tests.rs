//! Tests of the Steel Driver engine: scenarios per rule, and properties and an independent
//! referee over bot games.

mod orders;
mod properties;
mod referee;
mod scenarios;
mod support;
mod undo;
