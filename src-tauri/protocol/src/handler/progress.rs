//! Which progress tokens belong to the host's requests in flight, the call each belongs to and
//! when each last heard progress, so that progress a server sends under any other token is
//! dropped and restarts no request's idle timeout.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use rmcp::model::ProgressToken;
use tokio::time::Instant;

/// The progress tokens of the host's requests in flight, each with the call it belongs to.
/// Progress naming any other token (another server's, a finished request's, a made-up one) is
/// dropped: it neither reaches the window nor keeps anything alive.
#[derive(Default)]
pub struct ProgressRoutes {
    // A plain lock: held only for a map operation, never across an await.
    open: Mutex<HashMap<ProgressToken, Route>>,
}

/// One request's route: the window's call id, and when its progress was last heard.
struct Route {
    call: Option<String>,
    heard: Option<Instant>,
}

impl ProgressRoutes {
    /// Routes `token`'s progress, labelled with `call` (the window's call id), until the
    /// returned guard drops.
    pub fn open(&self, token: ProgressToken, call: Option<&str>) -> ProgressRoute<'_> {
        let route = Route {
            call: call.map(str::to_owned),
            heard: None,
        };
        self.lock().insert(token.clone(), route);
        ProgressRoute {
            routes: self,
            token,
        }
    }

    /// Records progress heard under `token` now, and says the call it belongs to, or `None` when
    /// no request in flight has it.
    pub(crate) fn hear(&self, token: &ProgressToken) -> Option<Option<String>> {
        let mut open = self.lock();
        let route = open.get_mut(token)?;
        route.heard = Some(Instant::now());
        Some(route.call.clone())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ProgressToken, Route>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// An open progress route; closes when dropped.
pub struct ProgressRoute<'a> {
    routes: &'a ProgressRoutes,
    token: ProgressToken,
}

impl ProgressRoute<'_> {
    /// When progress under this route's token was last heard, if it was.
    pub fn last_heard(&self) -> Option<Instant> {
        self.routes.lock().get(&self.token)?.heard
    }
}

impl Drop for ProgressRoute<'_> {
    fn drop(&mut self) {
        self.routes.lock().remove(&self.token);
    }
}
