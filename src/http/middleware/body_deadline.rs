//! A time limit for reading a request's body.
//!
//! actix's `client_request_timeout` covers only the request head: a client that announces a
//! body and then sends it slowly (or never) would hold its connection, and the handler waiting
//! for it, for as long as it likes. This middleware gives the body a deadline counted from the
//! moment the head was read (`KONTOR_BODY_TIMEOUT`); when a handler is still reading it then,
//! the read fails and the answer becomes `408 body_timeout`, and the connection is closed (the
//! rest of the body would otherwise be read as the next request).
//!
//! Closing takes a detail: actix keeps a connection open to drain the rest of a chunked body
//! whose reader was dropped, which a client that never finishes it could hold forever. So the
//! timed-out body's reader is kept alive until the 408 has been written: actix then sees an
//! unread body still wanted and closes the connection (after its short linger).

use crate::http::error::{ApiError, ErrorCode};
use crate::http::state::AppState;
use actix_web::body::{BodySize, BoxBody, MessageBody};
use actix_web::dev::{Payload, ServiceRequest, ServiceResponse};
use actix_web::error::PayloadError;
use actix_web::http::{ConnectionType, StatusCode, header};
use actix_web::middleware::Next;
use actix_web::web::{self, Bytes};
use actix_web::{Error, HttpMessage, ResponseError};
use futures_util::Stream;
use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};
use tokio::time::{Instant, Sleep};

/// The middleware (see the module's documentation); use with `middleware::from_fn`.
pub async fn body_deadline(
    mut req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let timeout = req
        .app_data::<web::Data<AppState>>()
        .map(|state| state.config.body_timeout);
    let Some(timeout) = timeout.filter(|_| has_body(&req)) else {
        return Ok(next.call(req).await?.map_into_boxed_body());
    };
    let expired: Rc<RefCell<Option<Payload>>> = Rc::default();
    let payload = Deadline {
        inner: Some(req.take_payload()),
        deadline: Box::pin(tokio::time::sleep_until(Instant::now() + timeout)),
        expired: expired.clone(),
    };
    let payload: Pin<Box<dyn Stream<Item = Result<Bytes, PayloadError>>>> = Box::pin(payload);
    req.set_payload(Payload::from(payload));
    let response = next.call(req).await;
    let Some(unread) = expired.borrow_mut().take() else {
        return Ok(response?.map_into_boxed_body());
    };
    let mut answer = ApiError::new(
        StatusCode::REQUEST_TIMEOUT,
        ErrorCode::BodyTimeout,
        format!(
            "the request body did not arrive within {} s",
            timeout.as_secs()
        ),
    )
    .error_response();
    answer.head_mut().set_connection_type(ConnectionType::Close);
    let answer = answer
        .map_body(|_, body| Holding {
            body,
            _unread: unread,
        })
        .map_into_boxed_body();
    match response {
        Ok(response) => {
            let (request, _) = response.into_parts();
            Ok(ServiceResponse::new(request, answer))
        }
        // No request to answer with: let the error through (it closes the connection too).
        Err(error) => Err(error),
    }
}

/// Whether the request announces a body at all (most GETs do not; they skip the timer).
fn has_body(req: &ServiceRequest) -> bool {
    let headers = req.headers();
    headers.contains_key(header::TRANSFER_ENCODING)
        || headers
            .get(header::CONTENT_LENGTH)
            .is_some_and(|length| length.as_bytes() != b"0")
}

/// A body that fails once its deadline has passed; it then hands its reader to `expired`.
struct Deadline {
    /// `None` once the body has ended or expired.
    inner: Option<Payload>,
    deadline: Pin<Box<Sleep>>,
    expired: Rc<RefCell<Option<Payload>>>,
}

impl Stream for Deadline {
    type Item = Result<Bytes, PayloadError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        let Some(inner) = this.inner.as_mut() else {
            return Poll::Ready(None);
        };
        match Pin::new(inner).poll_next(cx) {
            Poll::Ready(None) => {
                this.inner = None;
                Poll::Ready(None)
            }
            Poll::Ready(Some(chunk)) => Poll::Ready(Some(chunk)),
            Poll::Pending => match this.deadline.as_mut().poll(cx) {
                Poll::Ready(()) => {
                    *this.expired.borrow_mut() = this.inner.take();
                    Poll::Ready(Some(Err(PayloadError::Io(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "the request body did not arrive in time",
                    )))))
                }
                Poll::Pending => Poll::Pending,
            },
        }
    }
}

/// The 408's body, holding the unread request body's reader until it has been written.
struct Holding {
    body: BoxBody,
    _unread: Payload,
}

impl MessageBody for Holding {
    type Error = <BoxBody as MessageBody>::Error;

    fn size(&self) -> BodySize {
        self.body.size()
    }

    fn poll_next(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        Pin::new(&mut self.body).poll_next(cx)
    }
}
