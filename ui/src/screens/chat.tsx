// The Chat: conversations with one of your models, which may call the running servers' tools —
// only those you approved as they are, each call shown in the approval dialog with its arguments
// editable, and in the chat as it went out. The tools held back are listed (before the first
// message too) and can be reviewed here. The composer's "/" palette finds every prompt and skill of
// every server, "@" attaches a server's resource; a skill loaded on the Skills screen waits in the
// composer too. The header says which tools the model is offered: every tool switched on, or
// those of the tool sets chosen for the conversation; above the composer, what their definitions
// take of the model's context window in tokens (a warning above the configured share). Answers
// stream in. The session's state is chat/session.ts; the parts shown are the other files of chat/.
import { useMemo, useState } from "react";
import type { Backend } from "../backend";
import type { SkillForChat } from "../bindings/SkillForChat";
import { ErrorBanner } from "../components/error-banner";
import type { HostState } from "../host";
import type { ServerTool } from "./chat/calls";
import { resultsById, sentFor } from "./chat/calls";
import { Composer } from "./chat/composer";
import { ConversationHeader, ConversationList, useConversations } from "./chat/conversations";
import { useEverything } from "./chat/everything";
import { LiveTurn } from "./chat/live";
import { Message } from "./chat/message";
import { useChatSession } from "./chat/session";
import { ToolChoice } from "./chat/tool-choice";
import type { ChatSkills } from "./chat/skills";
import { SkillChips } from "./chat/skills";
import { ChatTokens } from "./chat/tokens";
import { UnderCall } from "./chat/under-call";
import { WithheldReview } from "./chat/withheld";

export { chatCallId, sentArguments } from "./chat/calls";
export { fuzzyScore } from "./chat/composer";

/** `skills`: those loaded for the next message, kept by the window while another screen shows
 * (else by the chat itself). */
export function ChatScreen(props: { backend: Backend; host: HostState } & Partial<ChatSkills>) {
  const { backend, host } = props;
  const own = useState<SkillForChat[]>([]);
  const [skills, onSkills] = props.skills && props.onSkills ? [props.skills, props.onSkills] : own;
  const tools = useEverything<ServerTool>(host, "tools", async (server) =>
    (await backend.listTools(server)).map((tool) => ({ server, tool })),
  );
  const { state, dispatch, send, recheckWithheld } = useChatSession(backend, tools);
  const list = useConversations(backend, state.listRevision, dispatch);
  const conversation = list.conversations.find((c) => c.id === state.current) ?? null;
  const results = useMemo(() => resultsById(state.messages), [state.messages]);

  return (
    <div className="split">
      <section className="list-pane" aria-label="Conversations">
        <header className="pane-header">
          <h2>Chat</h2>
          <button className="primary" data-testid="new-chat" onClick={list.start}>
            New chat
          </button>
        </header>
        <ConversationList
          conversations={list.conversations}
          current={state.current}
          onOpen={(id) => dispatch({ type: "open", conversation: id })}
        />
      </section>
      <section className="detail-pane chat" aria-label="Conversation">
        <ErrorBanner error={state.error} testId="chat-error" />
        {conversation ? (
          <>
            <ConversationHeader
              conversation={conversation}
              models={list.models}
              onModel={(choice) => void list.changeModel(conversation, choice)}
              onDelete={() => void list.remove(conversation)}
            >
              <ToolChoice
                backend={backend}
                conversation={conversation}
                onChange={(toolSets) => void list.changeToolSets(conversation, toolSets)}
              />
            </ConversationHeader>
            <div className="messages" data-testid="chat-messages">
              {state.messages.map((m) => (
                <Message
                  key={m.id}
                  message={m}
                  sentFor={(toolUse) => sentFor(toolUse, state.approved, results)}
                  appFor={(toolUse) => (
                    <UnderCall backend={backend} toolUse={toolUse} session={state} results={results} tools={tools} dispatch={dispatch} />
                  )}
                />
              ))}
              <LiveTurn session={state} />
            </div>
            <WithheldReview
              backend={backend}
              host={host}
              state={state.withheld}
              reviewing={state.reviewing}
              onToggle={() => dispatch({ type: "toggleReview" })}
              onClose={() => dispatch({ type: "closeReview" })}
              onApproved={recheckWithheld}
            />
            <ChatTokens backend={backend} host={host} conversation={conversation} withheld={state.withheld.tools.length} />
            <Composer
              backend={backend}
              host={host}
              busy={state.busy}
              viewMessages={state.viewMessages}
              onDropViewMessage={(key) => dispatch({ type: "dropViewMessage", key })}
              skills={skills}
              onSkills={onSkills}
              viewContexts={state.viewContexts}
              onDropViewContext={(viewId) => dispatch({ type: "dropViewContext", viewId })}
              onSend={(added) => void send(conversation, added)}
              onStop={() => backend.cancelTurn(conversation.id).catch(() => undefined)}
            />
          </>
        ) : (
          <>
            {skills.length ? (
              <div className="banner ok" data-testid="skills-waiting">
                <SkillChips skills={skills} onSkills={onSkills} /> will go with your next message: open a conversation or
                start a New chat.
              </div>
            ) : null}
            <p className="muted">
              Start a chat with one of your models. It can use the running servers' tools you approved (Approvals ›
              Tool definitions); you approve each call.
            </p>
          </>
        )}
      </section>
    </div>
  );
}
