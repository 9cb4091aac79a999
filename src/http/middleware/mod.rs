//! What every request goes through before and after its handler: request ids and the
//! access log, client addresses behind trusted proxies, CORS, security headers, methods,
//! query rules, body deadlines.

pub mod body_deadline;
pub mod cors;
pub mod forwarded;
pub mod headers;
pub mod methods;
pub mod observe;
pub mod problems;
pub mod query_policy;
pub mod request_log;
