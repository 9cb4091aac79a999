//! Uploaded exports (`POST /verify`, `POST /games/import`): how many are read and checked at
//! once, and how their bodies are read.
//!
//! Checking an upload is CPU work (parsing up to 4 MiB of JSON, re-deciding up to 5,000
//! commands), which runs on the blocking pool, off the request threads (as password hashing
//! does), so that other requests are answered meanwhile. What bounds it is the number of
//! uploads under way, counted from before the body is read (a slow body holds its slot, and
//! its memory) to the answer: at most `KONTOR_UPLOADS_MAX` on the server and
//! `KONTOR_UPLOADS_MAX_PER_USER` per user; beyond, 429 `uploads_busy` with `Retry-After`.

use crate::config::UploadLimits;
use crate::http::error::{ApiError, ErrorCode};
use actix_web::http::StatusCode;
use actix_web::http::header::CONTENT_LENGTH;
use actix_web::{HttpRequest, web};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use uuid::Uuid;

/// The `Retry-After` of `uploads_busy`, in seconds: the largest upload is checked in well
/// under a second.
pub const BUSY_RETRY_AFTER_SECS: u64 = 1;

/// The uploads under way on this server, in all and per user.
#[derive(Clone, Default)]
pub struct UploadSlots(Arc<Mutex<Held>>);

#[derive(Default)]
struct Held {
    total: usize,
    per_user: HashMap<Uuid, usize>,
}

/// One upload under way; dropping it (with the answer, or when the request is abandoned)
/// frees its slot.
pub struct UploadSlot {
    held: Arc<Mutex<Held>>,
    user: Uuid,
}

fn lock(held: &Mutex<Held>) -> MutexGuard<'_, Held> {
    held.lock().unwrap_or_else(|e| e.into_inner())
}

impl UploadSlots {
    /// Takes a slot for an upload of `user`, or answers 429 `uploads_busy` when the user or
    /// the server has as many under way as `limits` allow.
    pub fn take(&self, user: Uuid, limits: &UploadLimits) -> Result<UploadSlot, ApiError> {
        let mut held = lock(&self.0);
        let mine = held.per_user.get(&user).copied().unwrap_or(0);
        let refusal = if mine >= limits.at_once_per_user {
            Some(format!(
                "you have {mine} uploads being checked; at most {} at once are accepted per user",
                limits.at_once_per_user
            ))
        } else if held.total >= limits.at_once {
            Some(format!(
                "the server is checking {} uploads, as many as it checks at once",
                held.total
            ))
        } else {
            None
        };
        if let Some(detail) = refusal {
            let mut error = ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                ErrorCode::UploadsBusy,
                detail,
            )
            .with("retry_after", BUSY_RETRY_AFTER_SECS);
            error.retry_after = Some(BUSY_RETRY_AFTER_SECS);
            return Err(error);
        }
        held.total += 1;
        *held.per_user.entry(user).or_default() += 1;
        Ok(UploadSlot {
            held: self.0.clone(),
            user,
        })
    }

    /// Uploads under way (for tests and diagnostics).
    pub fn in_progress(&self) -> usize {
        lock(&self.0).total
    }
}

impl Drop for UploadSlot {
    fn drop(&mut self) {
        let mut held = lock(&self.held);
        held.total -= 1;
        if let Some(mine) = held.per_user.get_mut(&self.user) {
            *mine -= 1;
            if *mine == 0 {
                held.per_user.remove(&self.user);
            }
        }
    }
}

fn too_large(detail: String) -> ApiError {
    ApiError::new(
        StatusCode::PAYLOAD_TOO_LARGE,
        ErrorCode::PayloadTooLarge,
        detail,
    )
}

/// Refuses a body that announces more than `limit` bytes, before anything else is done.
pub fn check_announced_length(req: &HttpRequest, limit: usize) -> Result<(), ApiError> {
    let announced = req
        .headers()
        .get(CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    match announced {
        Some(length) if length > limit as u64 => Err(too_large(format!(
            "the body has {length} bytes; at most {limit} are accepted"
        ))),
        _ => Ok(()),
    }
}

/// Reads the whole body, at most `limit` bytes (whether it is text is the caller's to judge:
/// an export's is, and its refusal names the line). (A body that stops coming is ended by
/// `KONTOR_BODY_TIMEOUT`: the read fails, and the answer becomes 408 `body_timeout`.)
pub async fn read_body(payload: web::Payload, limit: usize) -> Result<web::Bytes, ApiError> {
    let bytes = match payload.to_bytes_limited(limit).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(error)) => {
            return Err(ApiError::bad_request(
                ErrorCode::InvalidBody,
                format!("the body could not be read: {error}"),
            ));
        }
        Err(_) => {
            return Err(too_large(format!(
                "the body is larger than the {limit} bytes accepted"
            )));
        }
    };
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_counted_per_user_and_in_all_and_freed_when_dropped() {
        let limits = UploadLimits {
            at_once: 3,
            at_once_per_user: 2,
            imports_per_day: 1,
        };
        let slots = UploadSlots::default();
        let (anna, bert) = (Uuid::now_v7(), Uuid::now_v7());
        let first = slots.take(anna, &limits).unwrap();
        let second = slots.take(anna, &limits).unwrap();
        let refused = slots.take(anna, &limits).err().unwrap();
        assert_eq!(refused.code, ErrorCode::UploadsBusy);
        assert_eq!(refused.retry_after, Some(BUSY_RETRY_AFTER_SECS));
        let third = slots.take(bert, &limits).unwrap();
        // The server is full: bert's second waits although bert has one only.
        assert!(slots.take(bert, &limits).is_err());
        drop(first);
        assert_eq!(slots.in_progress(), 2);
        let again = slots.take(anna, &limits).unwrap();
        drop((second, third, again));
        assert_eq!(slots.in_progress(), 0);
        assert!(lock(&slots.0).per_user.is_empty());
    }
}
