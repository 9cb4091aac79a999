//! What handlers take from a request: the authenticated caller, the conditional headers
//! (`If-Match`, `If-None-Match`), and JSON bodies and queries checked by the text rules.

pub mod caller;
pub mod conditional;
pub mod headers;
pub mod malformed;
pub mod text;
