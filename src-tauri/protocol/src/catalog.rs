//! What a running server offers that fits in memory (tools, prompts and resource templates), kept
//! current: fetched once the server connects and fetched again whenever it says a list changed, so
//! the UI and the chat read a fresh list without asking the server each time. Resources are not
//! cached here: a server may have 100,000 of them, and the resource browser pages through them.

use std::sync::Arc;

use rmcp::model::{Prompt, ResourceTemplate, Tool};

use crate::ErrorCode;
use crate::connection::Connection;
use crate::events::{Bus, CoreEvent, ListKind, Listener, ServerEvent};

/// The cached lists of one connection; `revision` grows with every refresh.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalog {
    /// Every tool (empty when the server has no tools capability).
    pub tools: Vec<Tool>,
    /// Every prompt.
    pub prompts: Vec<Prompt>,
    /// Every resource template.
    pub templates: Vec<ResourceTemplate>,
    /// Counts refreshes, starting at 1 for the first complete fetch.
    pub revision: u64,
}

/// Keeps the catalog of `connection` current until the connection closes, handing every fetch
/// to `store`. `events` must have been subscribed before the connection was announced, so no
/// `list_changed` is missed. Changes are coalesced: one refresh runs at a time, and everything
/// said while it ran makes one more (a server flooding `list_changed` costs at most two).
pub async fn keep(
    connection: Connection,
    mut events: Listener,
    publish: Bus,
    store: impl Fn(Arc<Catalog>) + Send + 'static,
) {
    let mut catalog = Catalog::default();
    refresh(
        &connection,
        &mut catalog,
        &[ListKind::Tools, ListKind::Prompts, ListKind::Resources],
    )
    .await;
    announce(&connection, &catalog, &store, &publish, None);
    while let Some(first) = events.recv().await {
        let Some(mut lists) = changed(&connection, first) else {
            continue;
        };
        while let Some(more) = events.try_recv() {
            for list in changed(&connection, more).unwrap_or_default() {
                if !lists.contains(&list) {
                    lists.push(list);
                }
            }
        }
        if connection.is_closed() {
            return;
        }
        refresh(&connection, &mut catalog, &lists).await;
        let one = (lists.len() == 1).then(|| lists[0]);
        announce(&connection, &catalog, &store, &publish, one);
    }
}

/// The lists an event says changed on this connection: all of them after a resync (events were
/// dropped, one may have been a list change), none for anything else.
fn changed(connection: &Connection, event: CoreEvent) -> Option<Vec<ListKind>> {
    match event {
        CoreEvent::Server(ServerEvent::ListChanged { server, list })
            if server == connection.server() =>
        {
            Some(vec![list])
        }
        CoreEvent::Resync(_) => Some(vec![
            ListKind::Tools,
            ListKind::Prompts,
            ListKind::Resources,
        ]),
        _ => None,
    }
}

fn announce(
    connection: &Connection,
    catalog: &Catalog,
    store: &impl Fn(Arc<Catalog>),
    publish: &Bus,
    list: Option<ListKind>,
) {
    store(Arc::new(catalog.clone()));
    publish.publish(ServerEvent::CatalogUpdated {
        server: connection.server().to_owned(),
        list,
        revision: catalog.revision,
    });
}

async fn refresh(connection: &Connection, catalog: &mut Catalog, lists: &[ListKind]) {
    for list in lists {
        match list {
            ListKind::Tools => {
                if let Some(tools) = fetched(connection, "tools", connection.list_tools().await) {
                    catalog.tools = tools;
                }
            }
            ListKind::Prompts => {
                if let Some(p) = fetched(connection, "prompts", connection.list_prompts().await) {
                    catalog.prompts = p;
                }
            }
            // Templates have no notification of their own; a resource list change covers them.
            ListKind::Resources => {
                let templates = connection.list_resource_templates().await;
                if let Some(t) = fetched(connection, "resource templates", templates) {
                    catalog.templates = t;
                }
            }
        }
    }
    catalog.revision += 1;
}

/// The fetched list; empty when the server lacks the capability; `None` (keep the old list) on
/// any other failure, which is logged.
fn fetched<T>(
    connection: &Connection,
    what: &str,
    result: crate::Result<Vec<T>>,
) -> Option<Vec<T>> {
    match result {
        Ok(items) => Some(items),
        Err(e) if e.code == ErrorCode::NotSupported => Some(Vec::new()),
        Err(e) => {
            tracing::warn!(server = %connection.server(), "refreshing {what} failed: {e}");
            None
        }
    }
}
