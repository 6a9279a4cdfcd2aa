// Review of a URL elicitation: the server wants the person to open a page; the whole address is
// shown (hidden characters revealed) and only https pages can be opened from here.
import { useContext, useState } from "react";
import type { Backend } from "../../backend";
import type { Review } from "../../bindings/Review";
import { reveal } from "../visible";
import { obj, str } from "./loose-json";
import type { EditorProps } from "./review-actions";
import { Actions, Armed, CancelButton } from "./review-actions";

/** Whether an elicitation asks the person to open a page (rather than fill in a form). */
export function isUrlElicitation(review: Review): boolean {
  return typeof obj(review.content).url === "string";
}

export function UrlElicitation(props: EditorProps & { backend: Backend }) {
  const { review, backend } = props;
  const content = obj(review.content);
  const [opened, setOpened] = useState(false);
  const armed = useContext(Armed);
  const url = str(content.url);
  return (
    <>
      <div className="review-body" data-testid="elicitation-url">
        <p>{reveal(str(content.message))}</p>
        <p className="muted">It wants you to open this page. Check the whole address before you do:</p>
        <pre className="json url" data-testid="elicitation-url-text">
          {reveal(url)}
        </pre>
        <button
          data-testid="elicitation-open"
          disabled={!armed || !url.startsWith("https://")}
          onClick={() => backend.openExternal(url).then(() => setOpened(true), () => setOpened(false))}
        >
          Open in my browser
        </button>
        {opened ? <span className="muted"> Opened. Come back here when you are done.</span> : null}
      </div>
      <Actions
        busy={props.busy}
        invalid={null}
        approveLabel="Done"
        denyLabel="Decline"
        extra={<CancelButton busy={props.busy} decide={props.decide} />}
        onApprove={() => props.decide({ decision: "approve", content, remember: null })}
        onDeny={() => props.decide({ decision: "deny" })}
      />
    </>
  );
}
