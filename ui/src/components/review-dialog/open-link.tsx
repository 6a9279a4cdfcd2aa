// Review of a link a server's view (MCP Apps) wants to open in the browser: the whole URL, its
// host called out (a link's text can say anything, its host cannot lie), opened only on Approve.
import type { EditorProps } from "./review-actions";
import { Actions } from "./review-actions";
import { obj, str } from "./loose-json";
import { reveal } from "../visible";

export function OpenLink(props: EditorProps) {
  const { review } = props;
  const url = str(obj(review.content).url);
  let host = "";
  try {
    host = new URL(url).host;
  } catch {
    host = "";
  }
  return (
    <>
      <div className="review-body" data-testid="open-link">
        <p>
          The view of <strong>{review.server}</strong> wants to open this link in your browser:
        </p>
        <p className="mono link-full" data-testid="open-link-url">
          {reveal(url)}
        </p>
        <p className="muted">
          It goes to <strong data-testid="open-link-host">{reveal(host)}</strong>.
        </p>
      </div>
      <Actions
        busy={props.busy}
        invalid={null}
        approveLabel="Open in browser"
        onApprove={() => props.decide({ decision: "approve", content: review.content, remember: null })}
        onDeny={() => props.decide({ decision: "deny" })}
      />
    </>
  );
}
