//! The desktop's [`Reviewer`]: reviews wait in a queue (one dialog at a time, never a modal on a
//! modal) until the UI decides them. A decision names the review's id and digest; one that does
//! not match a pending review exactly is rejected, so the webview cannot approve something it
//! was not shown, nor approve on its own a review that was replaced or withdrawn.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use tokio::sync::oneshot;

use super::door::{Review, Reviewer, Verdict};
use crate::error::{Error, ErrorCode, Result};
use crate::events::{Bus, ReviewEvent};

/// A review waiting for its decision, with the channel its answer goes back on.
type Waiting = (Review, oneshot::Sender<Verdict>);

/// Pending reviews, oldest first.
pub struct ReviewQueue {
    pending: Arc<Mutex<VecDeque<Waiting>>>,
    events: Bus,
}

impl ReviewQueue {
    /// An empty queue announcing changes on `events`.
    pub fn new(events: Bus) -> Self {
        Self {
            pending: Arc::default(),
            events,
        }
    }

    fn lock(&self) -> Result<std::sync::MutexGuard<'_, VecDeque<Waiting>>> {
        self.pending
            .lock()
            .map_err(|_| Error::new(ErrorCode::Internal, "review queue lock poisoned"))
    }

    fn announce(&self, pending: usize) {
        self.events.publish(ReviewEvent::ReviewsChanged {
            pending: pending as u32,
        });
    }

    /// The reviews waiting for a decision, oldest first. Withdrawn ones (timed out, cancelled by
    /// the server) are dropped here.
    pub fn pending(&self) -> Result<Vec<Review>> {
        let mut q = self.lock()?;
        q.retain(|(_, tx)| !tx.is_closed());
        Ok(q.iter().map(|(r, _)| r.clone()).collect())
    }

    /// Decides review `id`, which must still be pending and have been shown with `digest`.
    pub fn decide(&self, id: &str, digest: &str, verdict: Verdict) -> Result<()> {
        let (tx, left) = {
            let mut q = self.lock()?;
            q.retain(|(_, tx)| !tx.is_closed());
            let Some(pos) = q.iter().position(|(r, _)| r.id == id) else {
                return Err(Error::new(
                    ErrorCode::ApprovalMismatch,
                    "this request is no longer waiting for a decision (it was answered, withdrawn or timed out)",
                ));
            };
            if q[pos].0.digest != digest {
                return Err(Error::new(
                    ErrorCode::ApprovalMismatch,
                    "the decision does not match the request that was shown",
                ));
            }
            let (_, tx) = q
                .remove(pos)
                .ok_or_else(|| Error::new(ErrorCode::Internal, "queue changed"))?;
            (tx, q.len())
        };
        self.announce(left);
        tx.send(verdict).map_err(|_| {
            Error::new(
                ErrorCode::ApprovalMismatch,
                "the request was withdrawn before the decision arrived",
            )
        })
    }
}

/// Lives as long as a review's future: when the door stops waiting (timeout, the server
/// cancelled, the chat turn was stopped), the review leaves the queue and the window is told at
/// once, so no dialog stays up for a request nobody waits for.
struct Withdrawn {
    id: String,
    pending: Arc<Mutex<VecDeque<Waiting>>>,
    events: Bus,
}

impl Drop for Withdrawn {
    fn drop(&mut self) {
        let Ok(mut q) = self.pending.lock() else {
            return;
        };
        let before = q.len();
        // Its own entry goes whether or not the channel looks closed yet (drop order).
        q.retain(|(r, tx)| r.id != self.id && !tx.is_closed());
        if q.len() != before {
            self.events.publish(ReviewEvent::ReviewsChanged {
                pending: q.len() as u32,
            });
        }
    }
}

impl Reviewer for ReviewQueue {
    fn review(&self, review: Review) -> BoxFuture<'static, Verdict> {
        let (tx, rx) = oneshot::channel();
        let withdrawn = Withdrawn {
            id: review.id.clone(),
            pending: self.pending.clone(),
            events: self.events.clone(),
        };
        let len = match self.lock() {
            Ok(mut q) => {
                q.push_back((review, tx));
                q.len()
            }
            Err(_) => return Box::pin(async { Verdict::Deny }),
        };
        self.announce(len);
        Box::pin(async move {
            let _withdrawn = withdrawn;
            rx.await.unwrap_or(Verdict::Cancel)
        })
    }

    fn streamed(&self, flow: &str, text: &str) {
        self.events.publish(ReviewEvent::SamplingText {
            flow: flow.to_owned(),
            text: text.to_owned(),
        });
    }

    fn compared(&self, flow: &str, column: usize, text: &str) {
        self.events.publish(ReviewEvent::ComparedText {
            flow: flow.to_owned(),
            column: u32::try_from(column).unwrap_or(u32::MAX),
            text: text.to_owned(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::audit::{Flow, FlowKind};
    use serde_json::json;

    #[tokio::test]
    async fn decisions_are_bound_to_what_was_shown() {
        let q = std::sync::Arc::new(ReviewQueue::new(crate::events::Bus::new(8, 8)));
        let flow = Flow::new(FlowKind::Sampling, "s", None);
        let review = Review::for_test(&flow, json!({"text": "hello"}));
        let (id, digest) = (review.id.clone(), review.digest.clone());
        let waiting = q.review(review);
        assert_eq!(q.pending().unwrap().len(), 1);

        let e = q.decide(&id, "0000", Verdict::Deny).unwrap_err();
        assert_eq!(e.code, ErrorCode::ApprovalMismatch);
        let e = q.decide("other", &digest, Verdict::Deny).unwrap_err();
        assert_eq!(e.code, ErrorCode::ApprovalMismatch);

        q.decide(
            &id,
            &digest,
            Verdict::Approve {
                content: json!({"text": "hi"}),
                remember: None,
            },
        )
        .unwrap();
        assert_eq!(
            waiting.await,
            Verdict::Approve {
                content: json!({"text": "hi"}),
                remember: None
            }
        );
        // Decided once: a second decision is refused.
        assert!(q.decide(&id, &digest, Verdict::Deny).is_err());
        assert!(q.pending().unwrap().is_empty());
    }

    #[tokio::test]
    async fn withdrawn_reviews_leave_the_queue() {
        let q = ReviewQueue::new(crate::events::Bus::new(8, 8));
        let flow = Flow::new(FlowKind::Elicitation, "s", None);
        let review = Review::for_test(&flow, json!({}));
        let (id, digest) = (review.id.clone(), review.digest.clone());
        let mut events = q.events.control();
        let waiting = q.review(review);
        assert_eq!(
            events.try_recv().unwrap(),
            ReviewEvent::ReviewsChanged { pending: 1 }.into()
        );
        drop(waiting);
        // The window hears of it at once, without asking.
        assert_eq!(
            events.try_recv().unwrap(),
            ReviewEvent::ReviewsChanged { pending: 0 }.into()
        );
        assert!(q.pending().unwrap().is_empty());
        assert!(q.decide(&id, &digest, Verdict::Deny).is_err());
    }
}
