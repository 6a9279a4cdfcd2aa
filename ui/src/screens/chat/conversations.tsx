// The list of conversations, and the header of the one open: its model (changeable) and Delete.
import type { Conversation } from "../../bindings/Conversation";

/** The manual provider: no key, the person writes the model's answers in the approval dialog. */
export const MANUAL = { provider: "manual", model: "manual" };

export interface ModelChoice {
  provider: string;
  model: string;
}

export function ConversationList(props: { conversations: Conversation[]; current: string | null; onOpen: (id: string) => void }) {
  return (
    <>
      <ul className="item-list" role="listbox" aria-label="Conversations">
        {props.conversations.map((c) => (
          <li
            key={c.id}
            role="option"
            tabIndex={0}
            aria-selected={c.id === props.current}
            className={c.id === props.current ? "selected" : undefined}
            data-testid="conversation"
            data-id={c.id}
            onClick={() => props.onOpen(c.id)}
            onKeyDown={(e) => {
              if (e.key === "Enter" || e.key === " ") {
                e.preventDefault();
                props.onOpen(c.id);
              }
            }}
          >
            <div className="item-title">
              <strong>{c.title}</strong>
            </div>
            <div className="muted small">
              {c.provider} · {c.model}
            </div>
          </li>
        ))}
      </ul>
      {props.conversations.length === 0 ? <p className="muted">No conversations yet.</p> : null}
    </>
  );
}

export function ConversationHeader(props: {
  conversation: Conversation;
  models: ModelChoice[];
  onModel: (choice: ModelChoice) => void;
  onDelete: () => void;
}) {
  const { conversation } = props;
  return (
    <header className="pane-header">
      <h2>{conversation.title}</h2>
      <select
        data-testid="chat-model"
        value={`${conversation.provider}/${conversation.model}`}
        onChange={(e) => {
          // Provider names never contain "/"; model names may (OpenRouter).
          const v = e.currentTarget.value;
          const cut = v.indexOf("/");
          props.onModel({ provider: v.slice(0, cut), model: v.slice(cut + 1) });
        }}
      >
        {props.models.map((m) => (
          <option key={`${m.provider}/${m.model}`} value={`${m.provider}/${m.model}`}>
            {m.provider === MANUAL.provider ? "manual · you write the answers" : `${m.provider} · ${m.model}`}
          </option>
        ))}
      </select>
      <button className="small danger" data-testid="delete-chat" onClick={props.onDelete}>
        Delete
      </button>
    </header>
  );
}
