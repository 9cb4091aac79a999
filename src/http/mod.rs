//! The HTTP API under `/api/v1`: handlers per resource, grouped as the services are (`play`,
//! `social`, `accounts`, `competition`, `streams`, `delivery`); what every request goes
//! through (`middleware`); what handlers take from a request (`extract`: the caller, the
//! conditional headers, JSON bodies and queries with their text rules); the problem+json
//! errors (`error`, the one mapping of the services' errors); the OpenAPI description
//! assembled from the handlers (`openapi`) and served (`docs`); the route table (`routes`);
//! what every handler can reach (`state`); the web client's files (`page`), health and
//! metrics.

pub mod accounts;
pub mod competition;
pub mod delivery;
pub mod docs;
pub mod error;
pub mod extract;
pub mod health;
pub mod metrics;
pub mod middleware;
pub mod openapi;
pub mod page;
pub mod play;
pub mod replica_reads;
pub mod request_id;
pub mod routes;
pub mod serving_pool;
pub mod social;
pub mod state;
pub mod streams;
pub mod uploads;
