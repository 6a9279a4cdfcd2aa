//! A Streamable HTTP client that refuses a session ID a server should never send: the spec has
//! it visible ASCII only, and Switchboard sends it back on every request, so one of a megabyte
//! would be a megabyte more each time. rmcp already ignores one that is not visible ASCII (it
//! cannot be read as text); this refuses the rest of the malformed ones, with a sentence.

use std::collections::HashMap;
use std::sync::Arc;

use futures::stream::BoxStream;
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
};
use sse_stream::{Error as SseError, Sse};

/// The longest session ID accepted.
pub const MAX_SESSION_ID: usize = 1024;

/// `C`, refusing a malformed session ID in any answer to a POST.
#[derive(Clone)]
pub struct SessionChecked<C>(pub C);

/// Whether `id` may be a session ID: 1 to [`MAX_SESSION_ID`] visible ASCII characters.
pub fn acceptable(id: &str) -> bool {
    (1..=MAX_SESSION_ID).contains(&id.len()) && id.bytes().all(|b| (0x21..=0x7e).contains(&b))
}

type Posted<E> = Result<StreamableHttpPostResponse, StreamableHttpError<E>>;

fn checked<E: std::error::Error + Send + Sync + 'static>(posted: Posted<E>) -> Posted<E> {
    match &posted {
        Ok(StreamableHttpPostResponse::Json(_, Some(id)))
        | Ok(StreamableHttpPostResponse::Sse(_, Some(id)))
            if !acceptable(id) =>
        {
            Err(StreamableHttpError::UnexpectedServerResponse(
                format!(
                    "the server sent a session ID Switchboard does not accept ({} characters; \
                     at most {MAX_SESSION_ID} visible ASCII characters are allowed)",
                    id.len()
                )
                .into(),
            ))
        }
        _ => posted,
    }
}

impl<C: StreamableHttpClient + Sync> StreamableHttpClient for SessionChecked<C> {
    type Error = C::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Posted<Self::Error> {
        let posted = self
            .0
            .post_message(uri, message, session_id, auth_header, custom_headers)
            .await;
        checked(posted)
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Posted<Self::Error> {
        let posted = self
            .0
            .post_message_with_max_sse_event_size(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await;
        checked(posted)
    }

    fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> impl Future<Output = Result<(), StreamableHttpError<Self::Error>>> + Send + '_ {
        self.0
            .delete_session(uri, session_id, auth_header, custom_headers)
    }

    fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> impl Future<
        Output = Result<
            BoxStream<'static, Result<Sse, SseError>>,
            StreamableHttpError<Self::Error>,
        >,
    > + Send
    + '_ {
        self.0
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
    }

    fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> impl Future<
        Output = Result<
            BoxStream<'static, Result<Sse, SseError>>,
            StreamableHttpError<Self::Error>,
        >,
    > + Send
    + '_ {
        self.0.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth_header,
            custom_headers,
            max_sse_event_size,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_session_id_is_short_visible_ascii() {
        assert!(acceptable("a1-B2_c3.~!"));
        for bad in [
            "",
            "with space",
            "tab\there",
            "é",
            "\u{7f}",
            &"x".repeat(MAX_SESSION_ID + 1),
        ] {
            assert!(!acceptable(bad), "{bad:?}");
        }
        assert!(acceptable(&"x".repeat(MAX_SESSION_ID)));
    }
}
