//! Subscriptions on 2026-07-28: list changes and resource updates arrive only on a
//! `subscriptions/listen` stream, kept open here and turned into host events.

use std::collections::BTreeSet;

use rmcp::RoleClient;
use rmcp::model::{ServerNotification, SubscriptionFilter};
use serde_json::Value;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

pub use crate::events::ServerSummary;
use crate::events::{Bus, ListKind, ServerEvent};

/// The list-changed notifications a modern server's capabilities say it can send.
pub(super) fn base_filter(summary: &ServerSummary) -> SubscriptionFilter {
    let offers = |cap: &str| {
        summary
            .capabilities
            .pointer(&format!("/{cap}/listChanged"))
            .and_then(Value::as_bool)
            .unwrap_or(false)
            .then_some(true)
    };
    let mut filter = SubscriptionFilter::new();
    filter.tools_list_changed = offers("tools");
    filter.prompts_list_changed = offers("prompts");
    filter.resources_list_changed = offers("resources");
    filter
}

/// On 2026-07-28, list changes and resource updates arrive only on a `subscriptions/listen`
/// stream. This task keeps one open with the current filter, re-listening when the set of
/// subscribed resources changes, and turns what arrives into host events.
pub(super) async fn listen_loop(
    peer: rmcp::service::Peer<RoleClient>,
    server: String,
    base: SubscriptionFilter,
    mut uris: watch::Receiver<BTreeSet<String>>,
    events: Bus,
    closed: CancellationToken,
) {
    loop {
        let mut filter = base.clone();
        let wanted: Vec<String> = uris.borrow_and_update().iter().cloned().collect();
        if !wanted.is_empty() {
            filter.resource_subscriptions = Some(wanted);
        }
        let nothing = filter == SubscriptionFilter::new();
        let mut subscription = if nothing {
            None
        } else {
            tokio::select! {
                r = peer.listen(filter) => match r {
                    Ok(s) => Some(s),
                    Err(e) => {
                        tracing::warn!(server, "subscriptions/listen failed: {e}");
                        None
                    }
                },
                _ = closed.cancelled() => return,
            }
        };
        loop {
            tokio::select! {
                n = async {
                    match subscription.as_mut() {
                        Some(s) => s.next().await,
                        None => std::future::pending().await,
                    }
                } => match n {
                    Ok(Some(notification)) => {
                        if let Some(event) = subscription_event(&server, notification) {
                            events.publish(event);
                        }
                    }
                    // The server ended the stream; wait for a new filter before asking again.
                    Ok(None) | Err(_) => subscription = None,
                },
                changed = uris.changed() => {
                    if changed.is_err() {
                        return;
                    }
                    if let Some(mut s) = subscription.take() {
                        let _ = s.cancel().await;
                    }
                    break;
                }
                _ = closed.cancelled() => return,
            }
        }
    }
}

fn subscription_event(server: &str, notification: ServerNotification) -> Option<ServerEvent> {
    let server = server.to_owned();
    match notification {
        ServerNotification::ToolListChangedNotification(_) => Some(ServerEvent::ListChanged {
            server,
            list: ListKind::Tools,
        }),
        ServerNotification::PromptListChangedNotification(_) => Some(ServerEvent::ListChanged {
            server,
            list: ListKind::Prompts,
        }),
        ServerNotification::ResourceListChangedNotification(_) => Some(ServerEvent::ListChanged {
            server,
            list: ListKind::Resources,
        }),
        ServerNotification::ResourceUpdatedNotification(n) => Some(ServerEvent::ResourceUpdated {
            server,
            uri: n.params.uri,
        }),
        _ => None,
    }
}
