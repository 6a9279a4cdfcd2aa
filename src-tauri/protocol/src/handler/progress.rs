//! Which progress tokens belong to the host's requests in flight, and the call each belongs to,
//! so that progress a server sends under any other token is dropped.

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use rmcp::model::ProgressToken;

/// The progress tokens of the host's requests in flight, each with the call it belongs to.
/// Progress naming any other token (another server's, a finished request's, a made-up one) is
/// dropped: it neither reaches the window nor keeps anything alive.
#[derive(Default)]
pub struct ProgressRoutes {
    // A plain lock: held only for a map operation, never across an await.
    open: Mutex<HashMap<ProgressToken, Option<String>>>,
}

impl ProgressRoutes {
    /// Routes `token`'s progress, labelled with `call` (the window's call id), until the
    /// returned guard drops.
    pub fn open(&self, token: ProgressToken, call: Option<&str>) -> ProgressRoute<'_> {
        self.lock().insert(token.clone(), call.map(str::to_owned));
        ProgressRoute {
            routes: self,
            token,
        }
    }

    /// The call a token belongs to, or `None` when no request in flight has it.
    pub(super) fn route(&self, token: &ProgressToken) -> Option<Option<String>> {
        self.lock().get(token).cloned()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<ProgressToken, Option<String>>> {
        self.open.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// An open progress route; closes when dropped.
pub struct ProgressRoute<'a> {
    routes: &'a ProgressRoutes,
    token: ProgressToken,
}

impl Drop for ProgressRoute<'_> {
    fn drop(&mut self) {
        self.routes.lock().remove(&self.token);
    }
}
