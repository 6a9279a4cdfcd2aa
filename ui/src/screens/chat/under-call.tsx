// What shows under a call the model made: the status of the task the server runs for it, and the
// tool's view (MCP Apps), which sees the call only once the person approved it, as approved.
import type { Dispatch } from "react";
import type { Backend } from "../../backend";
import { ToolAppView } from "../../components/app-frame";
import { resolveExposed, toolUiUri } from "../../components/app-frame/tool-ui";
import { Revealed } from "../../components/revealed";
import { taskStatusText } from "../tasks";
import type { Json, ServerTool } from "./calls";
import { chatCallId, chatResult, inputOf, sentArguments } from "./calls";
import type { ChatAction, ChatSession } from "./session";
import { viewLabel } from "./views";

interface UnderCallProps {
  backend: Backend;
  /** The model's `tool_use` block. */
  toolUse: Json;
  session: ChatSession;
  /** The results of the conversation's calls, by call id. */
  results: ReadonlyMap<string, Json>;
  /** The running servers' tools, to find the view of the one called. */
  tools: ServerTool[];
  dispatch: Dispatch<ChatAction>;
}

export function UnderCall(props: UnderCallProps) {
  const { session, toolUse } = props;
  const task = session.current && typeof toolUse.id === "string" ? session.tasks.get(chatCallId(session.current, toolUse.id)) : undefined;
  return (
    <>
      {task ? (
        <div className="muted" data-testid="chat-task-status" data-status={task.status} aria-live="polite">
          Task <Revealed text={taskStatusText(task)} />
        </div>
      ) : null}
      <CallView {...props} />
    </>
  );
}

function CallView(props: UnderCallProps) {
  const { toolUse, session, dispatch } = props;
  const found = resolveExposed(props.tools, String(toolUse.name ?? ""));
  const uri = found ? toolUiUri(found.tool) : null;
  if (!found || !uri || typeof toolUse.id !== "string") return null;
  const result = props.results.get(toolUse.id);
  // The view is the server's: it sees a call only as the person approved it, once approved.
  const args = session.approved.get(toolUse.id) ?? (result ? sentArguments(result, inputOf(toolUse)) : null);
  if (!args) return null;
  return (
    <ToolAppView
      key={toolUse.id}
      backend={props.backend}
      server={found.server}
      tool={found.tool}
      uri={uri}
      args={args}
      result={result ? chatResult(result) : null}
      cancelled={!result && !session.busy ? "the call did not finish" : null}
      onMessage={(view, message) => {
        dispatch({ type: "viewMessage", label: viewLabel(view, found.tool), message });
        return true;
      }}
      onContext={(view, context) =>
        dispatch({ type: "viewContext", context: { viewId: view.viewId, label: viewLabel(view, found.tool), context } })
      }
    />
  );
}
