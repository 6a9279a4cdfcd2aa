// The turn that runs, below the conversation's messages: the answer streaming in, the calls the
// model is still writing, a called tool's progress, or that the model is awaited; hidden
// characters shown revealed, with a warning.
import { Revealed } from "../../components/revealed";
import { ChatText } from "./message";
import type { ChatSession } from "./session";

export function LiveTurn(props: { session: ChatSession }) {
  const { busy, streaming, writing, progress } = props.session;
  return (
    <>
      {streaming !== null ? (
        <div className="message assistant streaming" data-testid="chat-streaming">
          <div className="role">assistant</div>
          <ChatText text={streaming} />
        </div>
      ) : null}
      {/* Shown here only: no server (nor its view) sees a call's arguments before the person
          approved them. */}
      {[...writing].map(([index, call]) => (
        <div className="message assistant streaming" key={`writing-${index}`} data-testid="chat-writing-call">
          <div className="role">assistant</div>
          <div className="muted">
            <span className="spinner" aria-hidden="true" /> Writing a call to{" "}
            <code>
              <Revealed text={call.name} />
            </code>
          </div>
          <pre className="json">
            <Revealed text={JSON.stringify(call.args, null, 2)} />
          </pre>
        </div>
      ))}
      {progress ? (
        <div className="muted" data-testid="chat-progress">
          {progress.server}: <Revealed text={progress.message ?? "working"} />{" "}
          {progress.total ? <progress value={progress.progress} max={progress.total} /> : `(${progress.progress})`}
        </div>
      ) : null}
      {busy && streaming === null && !progress ? <p className="muted">Waiting for the model…</p> : null}
    </>
  );
}
