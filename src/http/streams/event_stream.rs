//! The `text/event-stream` body of the live streams, and the frames it carries.
//!
//! A stream's task encodes what it sends into frames (`Bytes`, one or more SSE messages each)
//! and passes them down a channel; the body hands each frame to the connection as one chunk.
//! A frame can be shared: the events and the `view` of one delivery are encoded once per
//! viewer class (see `service::streams::game`) and the same bytes go to every stream of the
//! class, as one write. (actix-web-lab's `Sse` takes one message at a time and encodes it
//! again for each stream.) The wire format is the same as `Sse`'s: `id`, `event`, then one
//! `data` line per line of the data, CR LF and CR read as LF; a `: keep-alive` comment at
//! the start and after each quiet period.

use actix_web::body::{BodySize, MessageBody};
use actix_web::http::header::{CacheControl, CacheDirective, ContentEncoding};
use actix_web::{HttpRequest, HttpResponse, Responder};
use bytes::{BufMut, Bytes, BytesMut};
use serde::Serialize;
use std::convert::Infallible;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::{Interval, MissedTickBehavior};

/// Where a stream's task sends its frames.
pub type Frames = mpsc::Sender<Bytes>;

/// How many frames wait for a slow client before the stream's task waits too.
const QUEUE: usize = 64;

/// The comment sent when nothing else was for a while, so that proxies keep the connection.
const KEEP_ALIVE: &[u8] = b": keep-alive\n\n";

/// A stream's channel: its task sends into the first, the body (see [`EventStream::new`])
/// reads the second.
pub fn channel() -> (Frames, mpsc::Receiver<Bytes>) {
    mpsc::channel(QUEUE)
}

/// Appends one SSE message to `out`: `event`, with `id` if any, and `data`.
pub fn push(out: &mut BytesMut, event: &str, id: Option<&str>, data: &[u8]) {
    debug_assert!(!event.contains(['\r', '\n']), "an event name is one line");
    debug_assert!(id.is_none_or(|id| !id.contains(['\0', '\r', '\n'])));
    out.reserve(data.len() + event.len() + id.map_or(0, |id| id.len() + 5) + 16);
    if let Some(id) = id {
        out.put_slice(b"id: ");
        out.put_slice(id.as_bytes());
        out.put_u8(b'\n');
    }
    out.put_slice(b"event: ");
    out.put_slice(event.as_bytes());
    out.put_u8(b'\n');
    // One `data` line per line (JSON has none inside, but a message could).
    let mut rest = data;
    loop {
        let end = rest.iter().position(|&b| b == b'\r' || b == b'\n');
        out.put_slice(b"data: ");
        out.put_slice(&rest[..end.unwrap_or(rest.len())]);
        out.put_u8(b'\n');
        let Some(end) = end else { break };
        let skip = if rest[end] == b'\r' && rest.get(end + 1) == Some(&b'\n') {
            2
        } else {
            1
        };
        rest = &rest[end + skip..];
    }
    out.put_u8(b'\n');
}

/// One SSE message as a frame of its own.
pub fn message(event: &str, id: Option<&str>, data: &[u8]) -> Bytes {
    let mut out = BytesMut::new();
    push(&mut out, event, id, data);
    out.freeze()
}

/// One SSE message with `data` serialized as JSON.
pub fn json(event: &str, id: Option<&str>, data: &impl Serialize) -> serde_json::Result<Bytes> {
    Ok(message(event, id, &serde_json::to_vec(data)?))
}

/// The response body: the frames a stream's task sends, each as one chunk, and keep-alive
/// comments while none comes.
pub struct EventStream {
    frames: mpsc::Receiver<Bytes>,
    keep_alive: Interval,
}

impl EventStream {
    /// The body reading `frames`, with a keep-alive comment at once and then every
    /// `keep_alive` when no frame is waiting (as `Sse::with_keep_alive` sent them).
    pub fn new(frames: mpsc::Receiver<Bytes>, keep_alive: Duration) -> Self {
        let mut keep_alive = tokio::time::interval(keep_alive);
        keep_alive.set_missed_tick_behavior(MissedTickBehavior::Delay);
        Self { frames, keep_alive }
    }
}

impl MessageBody for EventStream {
    type Error = Infallible;

    fn size(&self) -> BodySize {
        BodySize::Stream
    }

    fn poll_next(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        let this = self.get_mut();
        if let Poll::Ready(frame) = this.frames.poll_recv(cx) {
            return Poll::Ready(frame.map(Ok));
        }
        if this.keep_alive.poll_tick(cx).is_ready() {
            return Poll::Ready(Some(Ok(Bytes::from_static(KEEP_ALIVE))));
        }
        Poll::Pending
    }
}

impl Responder for EventStream {
    type Body = Self;

    fn respond_to(self, _req: &HttpRequest) -> HttpResponse<Self> {
        HttpResponse::Ok()
            .content_type("text/event-stream")
            .insert_header(ContentEncoding::Identity)
            .insert_header(CacheControl(vec![CacheDirective::NoCache]))
            .message_body(self)
            .expect("the headers above are valid")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_are_encoded_as_actix_web_labs_sse_encodes_them() {
        use actix_web_lab::sse;
        let cases: [(&str, Option<&str>, &str); 5] = [
            ("event", Some("12.3"), r#"{"seq":12}"#),
            ("view", None, "{}"),
            ("chat", Some("7"), ""),
            ("snapshot", None, "first\r\nsecond\rthird\n"),
            ("note", None, "\nfirst\n\n last\n"),
        ];
        for (event, id, data) in cases {
            let mut expected = sse::Data::new(data).event(event);
            if let Some(id) = id {
                expected = expected.id(id);
            }
            let expected = actix_web::rt::System::new().block_on(async {
                let body = sse::Sse::from_infallible_stream(futures_util::stream::iter([
                    sse::Event::from(expected),
                ]));
                actix_web::body::to_bytes(body).await.expect("encoded")
            });
            assert_eq!(message(event, id, data.as_bytes()), expected, "{data:?}");
        }
    }
}
