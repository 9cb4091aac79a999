//! The id of the request being answered, kept while it is answered (the `observe` middleware
//! sets it), so that a problem body built without the request still names it.

use std::sync::Arc;

tokio::task_local! {
    /// The id of the request being answered, for the problem bodies: those are built by
    /// `ResponseError::error_response`, which sees no request.
    pub static CURRENT: Arc<str>;
}

/// The id of the request whose answer is being made, if any.
pub fn current_request_id() -> Option<String> {
    CURRENT.try_with(|id| id.to_string()).ok()
}
