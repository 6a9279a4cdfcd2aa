// The approval dialog: one pending review at a time (never a modal on a modal), with how many
// more are waiting. Sampling requests are shown whole and editable before they reach the model;
// the model's answer streams in and is editable before it goes back; elicitation forms and URLs;
// a model's tool call with its arguments. Decisions carry the digest of what was shown, so the
// backend refuses a decision about anything else. Hidden characters are shown visibly. Approve is
// armed only a moment after a request appears, so a click or Enter meant for the window beneath
// (the chat composer, say) cannot approve what nobody has read.
// Each kind of review has its own component under ./review-dialog/; this file keeps the queue,
// the arming and the choice of component.
import { useCallback, useEffect, useRef, useState } from "react";
import type { Backend } from "../backend";
import { errorMessage } from "../backend";
import type { Review } from "../bindings/Review";
import type { Verdict } from "../bindings/Verdict";
import { ErrorBanner } from "./error-banner";
import { ElicitationForm } from "./review-dialog/elicitation-form";
import { isUrlElicitation, UrlElicitation } from "./review-dialog/elicitation-url";
import { Armed } from "./review-dialog/review-actions";
import { isChatAnswer, SamplingCompletion } from "./review-dialog/sampling-completion";
import { SamplingRequest } from "./review-dialog/sampling-request";
import { SamplingStream } from "./review-dialog/sampling-stream";
import { OpenLink } from "./review-dialog/open-link";
import { ToolCall } from "./review-dialog/tool-call";

/** The pending reviews and the text streaming from the model, kept current from host events. */
export function useReviews(backend: Backend) {
  const [reviews, setReviews] = useState<Review[]>([]);
  const [streamed, setStreamed] = useState<Record<string, string>>({});
  // Flows whose answer is up for review: their stream is over, and text that arrives late (the
  // window hears streams and state changes on separate channels) must not bring it back.
  const finished = useRef(new Set<string>());
  const refresh = useCallback(() => {
    backend.pendingReviews().then(setReviews, () => setReviews([]));
  }, [backend]);
  useEffect(() => {
    let unlisten: (() => void) | null = null;
    let live = true;
    refresh();
    backend
      .onCoreEvent((e) => {
        if (e.type === "reviewsChanged" || e.type === "resync") refresh();
        if (e.type === "samplingText" && !finished.current.has(e.flow))
          setStreamed((old) => ({ ...old, [e.flow]: (old[e.flow] ?? "") + e.text }));
      })
      .then((u) => {
        if (live) unlisten = u;
        else u();
      });
    return () => {
      live = false;
      unlisten?.();
    };
  }, [backend, refresh]);
  const drop = useCallback((flow: string) => {
    finished.current.add(flow);
    setStreamed((old) => {
      if (!(flow in old)) return old;
      const next = { ...old };
      delete next[flow];
      return next;
    });
  }, []);
  // Once the answer is up for review, its stream is over.
  useEffect(() => {
    for (const r of reviews) if (r.kind === "sampling_completion") drop(r.flow);
  }, [reviews, drop]);
  return { reviews, streamed, refresh, drop };
}

const TITLES: Record<Review["kind"], string> = {
  sampling_request: "A server asks the model",
  sampling_completion: "The model's answer",
  elicitation: "A server asks you",
  tool_call: "The model wants to call a tool",
  open_link: "A view wants to open a link",
};

/** A view's tool call reads as the view's, not the model's. */
function title(review: Review): string {
  const fromView = typeof review.context === "object" && review.context !== null && "from" in review.context
    && (review.context as { from?: unknown }).from === "view";
  return review.kind === "tool_call" && fromView ? "A view wants to call a tool" : TITLES[review.kind];
}

/** How long Approve stays disabled after a request appears (as browsers do for permission prompts). */
export const ARM_DELAY_MS = 700;

export function ReviewDialog(props: { backend: Backend; armDelayMs?: number }) {
  const { backend } = props;
  const delay = props.armDelayMs ?? ARM_DELAY_MS;
  const { reviews, streamed, refresh, drop } = useReviews(backend);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [armedFor, setArmedFor] = useState<string | null>(null);
  const review = reviews[0];
  const reviewId = review?.id;
  useEffect(() => {
    if (reviewId === undefined || delay <= 0) return;
    const t = setTimeout(() => setArmedFor(reviewId), delay);
    return () => clearTimeout(t);
  }, [reviewId, delay]);
  if (!review) return <SamplingStream streamed={streamed} drop={drop} />;
  const armed = delay <= 0 || armedFor === review.id;

  const decide = async (verdict: Verdict) => {
    setBusy(true);
    try {
      await backend.decideReview(review.id, review.digest, verdict);
      setError(null);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
      refresh();
    }
  };
  const more = reviews.length - 1;
  // The person writing the chat's answer is the model, not a reviewer of a server's request.
  const chat = isChatAnswer(review);
  return (
    <div className="modal-backdrop">
      <div
        className="modal review"
        role="dialog"
        aria-modal="true"
        aria-labelledby="review-title"
        data-testid="review-dialog"
        data-kind={review.kind}
      >
        <header className="pane-header">
          <h2 id="review-title">{chat ? "Your answer as the model" : title(review)}</h2>
          <span className="muted">
            {chat ? "for " : "from "}
            <strong>{chat ? "the chat" : review.server}</strong>
            {more > 0 ? <span data-testid="review-more"> · {more} more waiting</span> : null}
          </span>
        </header>
        {review.hiddenCharacters ? (
          <div className="banner error" data-testid="review-hidden">
            This contains hidden characters. They are shown below as ⟨U+XXXX⟩ or ␛; the text may try to tell the
            model something you cannot see.
          </div>
        ) : null}
        <ErrorBanner error={error} testId="review-error" />
        <Armed.Provider value={armed}>
          {review.kind === "sampling_request" ? (
            <SamplingRequest key={review.id} review={review} backend={backend} busy={busy} decide={decide} />
          ) : review.kind === "sampling_completion" ? (
            <SamplingCompletion key={review.id} review={review} busy={busy} decide={decide} />
          ) : review.kind === "elicitation" ? (
            isUrlElicitation(review) ? (
              <UrlElicitation key={review.id} review={review} backend={backend} busy={busy} decide={decide} />
            ) : (
              <ElicitationForm key={review.id} review={review} busy={busy} decide={decide} />
            )
          ) : review.kind === "open_link" ? (
            <OpenLink key={review.id} review={review} busy={busy} decide={decide} />
          ) : (
            <ToolCall key={review.id} review={review} busy={busy} decide={decide} />
          )}
        </Armed.Provider>
      </div>
    </div>
  );
}
