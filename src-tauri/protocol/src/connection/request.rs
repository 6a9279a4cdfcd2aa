//! One request to a server under Switchboard's timeout rules, kept with one timer a request
//! ([`Limits`]): the idle timeout restarts only on progress that carries this request's own
//! token, a total cap holds however steady that progress is, and a request that times out or
//! that its caller stops waiting for is cancelled on the server. Also the 2026-07-28 multi round-trip loop of `tools/call`,
//! `prompts/get` and `resources/read`, whose input requests go to the host's handler (and so
//! through the approval door) like any other server→client request.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, ClientRequest, CreateTaskResult,
    DEFAULT_MRTR_MAX_ROUNDS, GetPromptRequest, GetPromptRequestParams, GetPromptResult,
    InputRequest, InputRequiredResult, InputResponses, NumberOrString, ReadResourceRequest,
    ReadResourceRequestParams, ReadResourceResult, RequestId, ServerResult,
};
use rmcp::service::{Peer, PeerRequestOptions, RequestContext};
use rmcp::{ClientHandler, RoleClient, ServiceError};
use tokio::time::{Instant, Sleep, sleep_until};

use super::task_call::Era;
use super::{Connection, params, spoken};
use crate::error::{Error, ErrorCode, Result};
use crate::handler::ProgressRoute;
use crate::tasks::wire;

impl Connection {
    /// Sends `request` and waits for its result under the timeout rules. `call` labels its
    /// progress for the window (the call id the window gave it).
    pub(super) async fn request(
        &self,
        request: ClientRequest,
        call: Option<&str>,
    ) -> Result<ServerResult> {
        let limits = Limits {
            idle: Some(self.inner.timeout),
            total: Some(self.inner.max_total),
        };
        self.request_with(request, call, limits).await
    }

    /// Sends `request` and waits for its result within `limits`.
    pub(super) async fn request_with(
        &self,
        request: ClientRequest,
        call: Option<&str>,
        limits: Limits,
    ) -> Result<ServerResult> {
        let inner = &self.inner;
        let peer = inner.service.peer();
        // rmcp is asked for no timeout: `Limits` keeps one timer a request, where rmcp's
        // progress-restarted timeout takes a channel, a lock shared by every request (twice) and
        // a second timer for each (BENCHMARKS.md, 64 in flight).
        let handle = peer
            .send_request_with_option(request, PeerRequestOptions::no_options())
            .await
            .map_err(|e| self.map_error(e))?;
        // rmcp picks the token while sending, so the route opens just after: progress arriving
        // in that instant is not shown, and the idle timeout starts after it.
        let route = inner
            .service
            .service()
            .progress_routes()
            .open(handle.progress_token.clone(), call);
        let mut abandoned = Abandoned::new(peer, handle.id.clone());
        // Asked for no timeout, rmcp's `await_response` is this receiver, but its future holds
        // the state of every timeout too: 3.4 KB in each call's state, moved twice a call.
        let answer = async {
            (handle.rx.await).unwrap_or_else(|_closed| Err(ServiceError::TransportClosed))
        };
        match limits.wait(answer, &route).await {
            Ok(result) => {
                abandoned.disarm();
                result.map_err(|e| self.request_error(e))
            }
            Err(exceeded) => {
                // Told before the caller hears of the timeout, so the notice reaches the server
                // ahead of whatever the caller sends next (as rmcp's own timeout does). Sent from
                // a task of its own and waited for a moment only: a server that stopped reading
                // must not hold the timeout back, and a caller dropped meanwhile must not lose the
                // notice. Boxed: the rare path's future stays out of every request's state.
                if let Some(id) = abandoned.disarm() {
                    let (peer, reason) = (peer.clone(), exceeded.reason());
                    let told =
                        tokio::spawn(async move { notify_cancelled(&peer, id, reason).await });
                    let _ = Box::pin(tokio::time::timeout(NOTICE_WAIT, told)).await;
                }
                Err(self.request_error(ServiceError::Timeout {
                    timeout: exceeded.limit(),
                }))
            }
        }
    }

    pub(super) fn request_error(&self, e: ServiceError) -> Error {
        let ServiceError::Timeout { timeout } = e else {
            return self.map_error(e);
        };
        self.suspect();
        let inner = &self.inner;
        let message = if timeout == inner.max_total && timeout != inner.timeout {
            format!(
                "server {:?} exceeded the maximum total time of {}; the request was cancelled",
                inner.server,
                spoken(timeout)
            )
        } else {
            format!(
                "server {:?} did not answer within {}; the request was cancelled",
                inner.server,
                spoken(timeout)
            )
        };
        Error::new(ErrorCode::Timeout, message)
    }

    /// An answer of the wrong kind to `method`.
    pub(super) fn unexpected(&self, method: &str) -> Error {
        Error::new(
            ErrorCode::ServerError,
            format!(
                "server {:?} answered {method} with a result of another kind",
                self.inner.server
            ),
        )
    }

    /// Calls a tool whose progress the window follows as `call_id`.
    pub async fn call_tool_for(
        &self,
        call_id: Option<&str>,
        name: &str,
        arguments: Option<serde_json::Value>,
    ) -> Result<CallToolResult> {
        // A call's future is moved whole each time it is queued (a spawned task, a
        // `FuturesUnordered`): boxed, that is a pointer and not kilobytes of state.
        Box::pin(self.call_tool_boxed(call_id, name, arguments)).await
    }

    async fn call_tool_boxed(
        &self,
        call_id: Option<&str>,
        name: &str,
        arguments: Option<serde_json::Value>,
    ) -> Result<CallToolResult> {
        self.require("tools")?;
        // The task paths are rare and their futures large: boxed, they do not make every call's
        // state several times larger.
        if Box::pin(self.calls_as_task(name)).await {
            return Box::pin(self.call_as_task(call_id, name, arguments)).await;
        }
        // Where the server's task support cannot be seen, a tool that must run as a task is
        // found by its refusal (method not found, before it ran) and called again as one.
        let again = self.task_support_unseen().then(|| arguments.clone());
        let answered = self.rounds(tool_params(name, arguments)?, call_id).await;
        if let Some(arguments) = again
            && needs_a_task(&answered)
        {
            tracing::debug!(server = %self.inner.server, tool = name, "calling again as a task");
            return Box::pin(self.call_as_task(call_id, name, arguments)).await;
        }
        match answered? {
            Answered::Done(result) => Ok(result),
            Answered::Task(created) => {
                let task = wire::created_2026(&created.task)
                    .ok_or_else(|| self.unexpected("tools/call"))?;
                Box::pin(self.follow(Era::Modern, task, name, call_id)).await
            }
        }
    }

    /// `prompts/get`, answering the server's input requests on 2026-07-28.
    pub(super) async fn prompt(&self, p: GetPromptRequestParams) -> Result<GetPromptResult> {
        self.rounds(p, None).await?.done(self)
    }

    /// `resources/read`, answering the server's input requests on 2026-07-28.
    pub(super) async fn read(&self, p: ReadResourceRequestParams) -> Result<ReadResourceResult> {
        self.rounds(p, None).await?.done(self)
    }

    /// Sends `p` until the server answers it with a result (or, on 2026-07-28, a task), answering
    /// each `input_required` round and retrying with the answers and the server's state.
    async fn rounds<P: RoundTrip>(&self, mut p: P, call: Option<&str>) -> Result<Answered<P>> {
        let mut rounds = Rounds::default();
        for _ in 0..DEFAULT_MRTR_MAX_ROUNDS {
            match self.request(p.clone().request(), call).await? {
                ServerResult::InputRequiredResult(r) => {
                    let (answers, state) = self.answer_round(r, &mut rounds).await?;
                    p.retry_with(answers, state);
                }
                ServerResult::CreateTaskResult(task) if self.inner.modern => {
                    return Ok(Answered::Task(Box::new(task)));
                }
                other => {
                    return P::answered(other)
                        .map(Answered::Done)
                        .ok_or_else(|| self.unexpected(P::METHOD));
                }
            }
        }
        Err(self.too_many_rounds(P::METHOD))
    }

    fn too_many_rounds(&self, method: &str) -> Error {
        Error::new(
            ErrorCode::ServerError,
            format!(
                "server {:?} asked for input more than {DEFAULT_MRTR_MAX_ROUNDS} times in one {method}",
                self.inner.server
            ),
        )
    }

    /// Answers one `input_required` result: every input request through the handler (so through
    /// the approval door), or, for a round that only carries state, a short backoff.
    async fn answer_round(
        &self,
        result: InputRequiredResult,
        rounds: &mut Rounds,
    ) -> Result<(Option<InputResponses>, Option<String>)> {
        let requests = result.input_requests.unwrap_or_default();
        if requests.is_empty() {
            if result.request_state.is_none() {
                return Err(Error::new(
                    ErrorCode::ServerError,
                    format!(
                        "server {:?} asked for input without saying what",
                        self.inner.server
                    ),
                ));
            }
            tokio::time::sleep(rounds.state_only_backoff()).await;
        } else {
            rounds.state_only = 0;
        }
        let answers = futures::future::try_join_all(
            requests
                .into_iter()
                .map(|(key, request)| self.answer_input(key, request)),
        )
        .await?;
        let answers: InputResponses = answers.into_iter().collect();
        Ok((
            (!answers.is_empty()).then_some(answers),
            result.request_state,
        ))
    }

    pub(super) async fn answer_input(
        &self,
        key: String,
        request: InputRequest,
    ) -> Result<(String, serde_json::Value)> {
        let handler = self.inner.service.service();
        let context = RequestContext::new(
            NumberOrString::String(key.clone().into()),
            self.inner.service.peer().clone(),
        );
        let answer = match request {
            InputRequest::CreateMessage(r) => handler
                .create_message(r.params, context)
                .await
                .and_then(|r| to_value(&r)),
            InputRequest::Elicitation(r) => handler
                .create_elicitation(r.params, context)
                .await
                .and_then(|r| to_value(&r)),
            InputRequest::ListRoots(_) => {
                handler.list_roots(context).await.and_then(|r| to_value(&r))
            }
            _ => {
                return Err(Error::new(
                    ErrorCode::ServerError,
                    format!(
                        "server {:?} asked for input of an unknown kind",
                        self.inner.server
                    ),
                ));
            }
        };
        // As rmcp's own loop does: a refused input request ends the whole request.
        let answer = answer.map_err(|e| self.map_error(ServiceError::McpError(e)))?;
        Ok((key, answer))
    }
}

fn to_value<T: serde::Serialize>(
    value: &T,
) -> std::result::Result<serde_json::Value, rmcp::ErrorData> {
    serde_json::to_value(value).map_err(|e| rmcp::ErrorData::internal_error(e.to_string(), None))
}

fn tool_params(name: &str, arguments: Option<serde_json::Value>) -> Result<CallToolRequestParams> {
    let mut p = serde_json::json!({ "name": name });
    if let Some(args) = arguments {
        if !args.is_object() {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                "tool arguments must be a JSON object",
            ));
        }
        p["arguments"] = args;
    }
    params(p)
}

/// JSON-RPC's "method not found", which a 2025-11-25 server answers for a tool that requires a
/// task when it is called without one.
const METHOD_NOT_FOUND: i32 = -32601;

/// Whether a tool call was refused for want of a task: the JSON-RPC error the spec asks for, or
/// the same error as the TypeScript SDK's servers return it, folded into an error result whose
/// only text is "MCP error -32601: …" (the SDK refuses before the tool runs).
fn needs_a_task(answered: &Result<Answered<CallToolRequestParams>>) -> bool {
    match answered {
        Err(e) => e.rpc_code == Some(METHOD_NOT_FOUND),
        Ok(Answered::Done(r)) if r.is_error == Some(true) && r.content.len() == 1 => {
            r.content[0].as_text().is_some_and(|t| {
                t.text
                    .starts_with(&format!("MCP error {METHOD_NOT_FOUND}:"))
                    && t.text.contains("task")
            })
        }
        Ok(_) => false,
    }
}

/// How a request ended: with its result, or (2026-07-28) with a task to follow.
enum Answered<P: RoundTrip> {
    Done(P::Output),
    Task(Box<CreateTaskResult>),
}

impl<P: RoundTrip> Answered<P> {
    /// The result of a request that cannot become a task.
    fn done(self, connection: &Connection) -> Result<P::Output> {
        match self {
            Answered::Done(result) => Ok(result),
            Answered::Task(_) => Err(connection.unexpected(P::METHOD)),
        }
    }
}

/// A request a 2026-07-28 server may answer with `input_required`, to be sent again with the
/// answers and the state it gave.
trait RoundTrip: Clone {
    type Output;
    const METHOD: &'static str;
    fn request(self) -> ClientRequest;
    fn answered(result: ServerResult) -> Option<Self::Output>;
    fn retry_with(&mut self, answers: Option<InputResponses>, state: Option<String>);
}

impl RoundTrip for CallToolRequestParams {
    type Output = CallToolResult;
    const METHOD: &'static str = "tools/call";
    fn request(self) -> ClientRequest {
        ClientRequest::CallToolRequest(CallToolRequest::new(self))
    }
    fn answered(result: ServerResult) -> Option<CallToolResult> {
        match result {
            ServerResult::CallToolResult(r) => Some(r),
            _ => None,
        }
    }
    fn retry_with(&mut self, answers: Option<InputResponses>, state: Option<String>) {
        (self.input_responses, self.request_state) = (answers, state);
    }
}

impl RoundTrip for GetPromptRequestParams {
    type Output = GetPromptResult;
    const METHOD: &'static str = "prompts/get";
    fn request(self) -> ClientRequest {
        ClientRequest::GetPromptRequest(GetPromptRequest::new(self))
    }
    fn answered(result: ServerResult) -> Option<GetPromptResult> {
        match result {
            ServerResult::GetPromptResult(r) => Some(r),
            _ => None,
        }
    }
    fn retry_with(&mut self, answers: Option<InputResponses>, state: Option<String>) {
        (self.input_responses, self.request_state) = (answers, state);
    }
}

impl RoundTrip for ReadResourceRequestParams {
    type Output = ReadResourceResult;
    const METHOD: &'static str = "resources/read";
    fn request(self) -> ClientRequest {
        ClientRequest::ReadResourceRequest(ReadResourceRequest::new(self))
    }
    fn answered(result: ServerResult) -> Option<ReadResourceResult> {
        match result {
            ServerResult::ReadResourceResult(r) => Some(r),
            _ => None,
        }
    }
    fn retry_with(&mut self, answers: Option<InputResponses>, state: Option<String>) {
        (self.input_responses, self.request_state) = (answers, state);
    }
}

/// Counts the rounds of one multi round-trip request that carried only state.
#[derive(Default)]
struct Rounds {
    state_only: u32,
}

impl Rounds {
    /// 50 ms, doubling, at most 250 ms: a server polling through state gets no busy loop.
    fn state_only_backoff(&mut self) -> Duration {
        let millis = (50u64 << self.state_only.min(3)).min(250);
        self.state_only += 1;
        Duration::from_millis(millis)
    }
}

/// How long a request may take: `idle` without progress under its own token (progress restarts
/// it), and `total` however steady the progress.
pub(super) struct Limits {
    pub(super) idle: Option<Duration>,
    pub(super) total: Option<Duration>,
}

/// The limit a request ran past.
enum Exceeded {
    Idle(Duration),
    Total(Duration),
}

impl Exceeded {
    fn limit(&self) -> Duration {
        match self {
            Self::Idle(limit) | Self::Total(limit) => *limit,
        }
    }

    /// The reason the server is told with the cancellation.
    fn reason(&self) -> &'static str {
        match self {
            Self::Idle(_) => "request timeout",
            Self::Total(_) => "maximum total timeout exceeded",
        }
    }
}

impl Limits {
    /// Waits for `answer` with one timer, set to the nearer of the two ends. When it fires, the
    /// idle end is worked out again from the last progress `route` heard: moved on if progress
    /// came since, the limit exceeded if not.
    fn wait<'a, F: Future>(&'a self, answer: F, route: &'a ProgressRoute<'a>) -> Within<'a, F> {
        let started = Instant::now();
        let total_end = self.total.map(|total| started + total);
        let timer = self.next_end(started, total_end).map(sleep_until);
        Within {
            answer,
            timer,
            limits: self,
            route,
            started,
            total_end,
        }
    }

    /// Where the timer goes after it fired at `now`: to the next end, or nowhere because a
    /// limit was run past.
    fn fired(
        &self,
        now: Instant,
        heard: Instant,
        total_end: Option<Instant>,
    ) -> std::result::Result<Instant, Exceeded> {
        if let (Some(total), Some(end)) = (self.total, total_end)
            && now >= end
        {
            return Err(Exceeded::Total(total));
        }
        match self.next_end(heard, total_end) {
            Some(end) if end > now => Ok(end),
            _ => Err(Exceeded::Idle(self.idle.unwrap_or_default())),
        }
    }

    /// The nearer of the idle end (counted from `from`) and the total end.
    fn next_end(&self, from: Instant, total_end: Option<Instant>) -> Option<Instant> {
        let idle_end = self.idle.map(|idle| from + idle);
        match (idle_end, total_end) {
            (Some(idle), Some(total)) => Some(idle.min(total)),
            (end, None) | (None, end) => end,
        }
    }
}

pin_project_lite::pin_project! {
    /// An answer awaited within its `Limits`. A future of its own rather than an `async fn`: an
    /// `async fn` would hold the answer's future twice (the argument and the pinned copy), and
    /// every request's state would carry both.
    struct Within<'a, F> {
        #[pin]
        answer: F,
        #[pin]
        timer: Option<Sleep>,
        limits: &'a Limits,
        route: &'a ProgressRoute<'a>,
        started: Instant,
        total_end: Option<Instant>,
    }
}

impl<F: Future> Future for Within<'_, F> {
    type Output = std::result::Result<F::Output, Exceeded>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.project();
        if let Poll::Ready(answered) = this.answer.poll(cx) {
            return Poll::Ready(Ok(answered));
        }
        let Some(mut timer) = this.timer.as_pin_mut() else {
            return Poll::Pending;
        };
        while timer.as_mut().poll(cx).is_ready() {
            let heard = this.route.last_heard().unwrap_or(*this.started);
            match this.limits.fired(Instant::now(), heard, *this.total_end) {
                Ok(end) => timer.as_mut().reset(end),
                Err(exceeded) => return Poll::Ready(Err(exceeded)),
            }
        }
        Poll::Pending
    }
}

/// How long a timed-out request waits for its cancellation notice to be sent.
const NOTICE_WAIT: Duration = Duration::from_millis(500);

/// Tells the server about a request its caller stopped waiting for (a cancelled call, a window
/// that went away) unless disarmed once the request ended otherwise. Dropped, it cannot wait:
/// the notice goes from a task of its own.
struct Abandoned {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
}

impl Abandoned {
    fn new(peer: &Peer<RoleClient>, id: RequestId) -> Self {
        Self {
            peer: peer.clone(),
            id: Some(id),
        }
    }

    /// No notice from the drop; the request's id, for a notice of the caller's own.
    fn disarm(&mut self) -> Option<RequestId> {
        self.id.take()
    }
}

impl Drop for Abandoned {
    fn drop(&mut self) {
        let (Some(id), Ok(runtime)) = (self.id.take(), tokio::runtime::Handle::try_current())
        else {
            return;
        };
        let peer = self.peer.clone();
        runtime
            .spawn(async move { notify_cancelled(&peer, id, "the caller stopped waiting").await });
    }
}

async fn notify_cancelled(peer: &Peer<RoleClient>, id: RequestId, reason: &str) {
    let cancelled = serde_json::json!({ "requestId": id, "reason": reason });
    if let Ok(p) = serde_json::from_value(cancelled) {
        let _ = peer.notify_cancelled(p).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(value: serde_json::Value) -> Result<Answered<CallToolRequestParams>> {
        Ok(Answered::Done(serde_json::from_value(value).unwrap()))
    }

    #[test]
    fn a_timeout_is_said_in_the_unit_that_reads_best() {
        assert_eq!(spoken(Duration::from_secs(60)), "60 s");
        assert_eq!(spoken(Duration::from_millis(1500)), "1.5 s");
        assert_eq!(spoken(Duration::from_millis(600)), "600 ms");
        assert_eq!(spoken(Duration::from_micros(10)), "1 ms");
    }

    #[test]
    fn a_refusal_for_want_of_a_task_is_told_apart_from_other_failures() {
        let mut refused = Error::new(ErrorCode::ServerError, "server error -32601: needs a task");
        refused.rpc_code = Some(METHOD_NOT_FOUND);
        assert!(needs_a_task(&Err(refused)));
        let mut invalid = Error::new(ErrorCode::ServerError, "server error -32602: bad");
        invalid.rpc_code = Some(-32602);
        assert!(!needs_a_task(&Err(invalid)));
        let folded = |text: &str, is_error: bool| {
            result(serde_json::json!({
                "content": [{"type": "text", "text": text}], "isError": is_error
            }))
        };
        let sdk = "MCP error -32601: Tool t requires task augmentation (taskSupport: 'required')";
        assert!(needs_a_task(&folded(sdk, true)));
        assert!(!needs_a_task(&folded(sdk, false)));
        assert!(!needs_a_task(&folded(
            "MCP error -32601: no such method",
            true
        )));
        assert!(!needs_a_task(&folded("the tool failed", true)));
    }
}

/// A call's future is moved whole each time it is queued (into a `FuturesUnordered`, a spawned
/// task): its size is paid on every call, three copies in a `FuturesUnordered::push`. The rare
/// paths (tasks) once made it 11 KiB, 2.5 times rmcp's own `call_tool`, and 64 calls in flight
/// spent a fifth of their time copying it.
#[cfg(test)]
mod future_size {
    use super::*;

    fn of<'a, T: 'a, F>(_: impl Fn(&'a T) -> F) -> usize {
        std::mem::size_of::<F>()
    }

    #[test]
    fn a_tool_calls_future_is_not_much_larger_than_rmcps() {
        let ours = of(|c: &Connection| c.call_tool("echo", None));
        let params = || tool_params("echo", None).unwrap();
        let bare = of(|p: &rmcp::Peer<rmcp::RoleClient>| p.call_tool(params()));
        assert!(ours <= 256, "{ours} bytes (rmcp's own: {bare})");
        // What the box holds: the rare paths stay out of it too.
        let boxed = of(|c: &Connection| c.call_tool_boxed(None, "echo", None));
        assert!(boxed <= 2 * bare, "{boxed} bytes against rmcp's {bare}");
    }
}

/// One timer for both limits, on tokio's paused clock: each test controls every instant.
#[cfg(test)]
mod limits {
    use std::future::pending;
    use std::time::Duration;

    use rmcp::model::{NumberOrString, ProgressToken};
    use tokio::time::{Instant, sleep};

    use super::{Exceeded, Limits};
    use crate::handler::{ProgressRoute, ProgressRoutes};

    fn token(n: i64) -> ProgressToken {
        ProgressToken(NumberOrString::Number(n))
    }

    fn secs(n: u64) -> Duration {
        Duration::from_secs(n)
    }

    /// Limits of whole seconds.
    fn within(idle: Option<u64>, total: Option<u64>) -> Limits {
        Limits {
            idle: idle.map(secs),
            total: total.map(secs),
        }
    }

    /// Waits within `limits` for an answer that never comes, and says how long that took.
    async fn timed(limits: &Limits, route: &ProgressRoute<'_>) -> (Result<(), Exceeded>, Duration) {
        let started = Instant::now();
        let waited = limits.wait(pending::<()>(), route).await;
        (waited, started.elapsed())
    }

    /// Progress every `every` seconds under `token`, `times` times.
    async fn progress(routes: &ProgressRoutes, token: ProgressToken, every: u64, times: usize) {
        for _ in 0..times {
            sleep(secs(every)).await;
            routes.hear(&token);
        }
    }

    #[tokio::test(start_paused = true)]
    async fn progress_moves_the_idle_end_on_and_silence_ends_the_wait() {
        let routes = ProgressRoutes::default();
        let route = routes.open(token(1), None);
        let limits = within(Some(10), None);
        let ((waited, took), ()) =
            tokio::join!(timed(&limits, &route), progress(&routes, token(1), 8, 3));
        assert!(matches!(waited, Err(Exceeded::Idle(d)) if d == secs(10)));
        // The last progress came at 24 s: the idle limit ran from there.
        assert_eq!(took, secs(34));
    }

    #[tokio::test(start_paused = true)]
    async fn progress_under_another_token_moves_nothing() {
        let routes = ProgressRoutes::default();
        let route = routes.open(token(1), None);
        let _other = routes.open(token(2), None);
        let limits = within(Some(10), None);
        let ((waited, took), ()) =
            tokio::join!(timed(&limits, &route), progress(&routes, token(2), 4, 5));
        assert!(matches!(waited, Err(Exceeded::Idle(_))));
        assert_eq!(took, secs(10));
    }

    #[tokio::test(start_paused = true)]
    async fn the_total_holds_however_steady_the_progress() {
        let routes = ProgressRoutes::default();
        let route = routes.open(token(1), None);
        let limits = within(Some(10), Some(30));
        let (waited, took) = tokio::select! {
            timed = timed(&limits, &route) => timed,
            () = progress(&routes, token(1), 5, 100) => panic!("the progress outlasted the total"),
        };
        assert!(matches!(waited, Err(Exceeded::Total(d)) if d == secs(30)));
        assert_eq!(took, secs(30));
    }

    #[tokio::test(start_paused = true)]
    async fn an_answer_within_the_limits_is_returned() {
        let routes = ProgressRoutes::default();
        let route = routes.open(token(1), None);
        let limits = within(Some(10), Some(30));
        let answer = async {
            sleep(secs(9)).await;
            "answer"
        };
        assert!(matches!(limits.wait(answer, &route).await, Ok("answer")));
        let unlimited = within(None, None);
        let late = async {
            sleep(secs(3600)).await;
            "late"
        };
        assert!(matches!(unlimited.wait(late, &route).await, Ok("late")));
    }
}
