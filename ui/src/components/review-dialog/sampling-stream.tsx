// The model's answer as it streams in, shown while no review is pending (between a sampling
// request's approval and its answer's review).
import { useEffect } from "react";
import { reveal } from "../visible";

/** While the model answers (between the request and the answer's review), its text as it streams. */
export function SamplingStream(props: { streamed: Record<string, string>; drop: (flow: string) => void }) {
  const { drop } = props;
  const flows = Object.keys(props.streamed);
  const flow = flows[flows.length - 1];
  const text = flow ? (props.streamed[flow] ?? "") : "";
  useEffect(() => {
    if (!flow) return;
    // A stream that stops without an answer (the provider failed) is dropped after a while.
    const t = setTimeout(() => drop(flow), 15_000);
    return () => clearTimeout(t);
  }, [flow, text, drop]);
  if (!flow) return null;
  return (
    <aside className="stream-panel" aria-live="polite" data-testid="sampling-stream">
      <header className="muted">The model is answering…</header>
      <div className="stream-text">{reveal(text)}</div>
    </aside>
  );
}
