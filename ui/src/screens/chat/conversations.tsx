// The conversations: their list (read again as the session asks), new ones, another model or
// other tool sets for one, and its deletion; shown as a list, with the header of the one open: its
// model (changeable), what follows it (the tools it is offered) and Delete.
import type { Dispatch, ReactNode } from "react";
import { useCallback, useEffect, useRef, useState } from "react";
import type { Backend } from "../../backend";
import { errorMessage } from "../../backend";
import type { Conversation } from "../../bindings/Conversation";
import type { ProviderSettings } from "../../bindings/ProviderSettings";
import { Revealed } from "../../components/revealed";
import { SelectableList } from "../../components/selectable-list";
import type { ChatAction } from "./session";
import { Choice } from "../../components/choice";

/** The manual provider: no key, the person writes the model's answers in the approval dialog. */
export const MANUAL = { provider: "manual", model: "manual" };

export interface ModelChoice {
  provider: string;
  model: string;
}

/** The conversations, read when shown and again at each `revision`, and the models to choose
 * from; a new conversation is opened in the session, which shows what fails. */
export function useConversations(backend: Backend, revision: number, dispatch: Dispatch<ChatAction>) {
  const [conversations, setConversations] = useState<Conversation[]>([]);
  const [providers, setProviders] = useState<ProviderSettings[]>([]);
  const fail = useCallback((e: unknown) => dispatch({ type: "error", error: errorMessage(e) }), [dispatch]);

  // Only the newest reading applies: one asked for before a change but answered after it would
  // put the conversation back as it was (its model, in the header's select).
  const asked = useRef(0);
  const load = useCallback(() => {
    const mine = ++asked.current;
    backend.listConversations().then((list) => mine === asked.current && setConversations(list), fail);
  }, [backend, fail]);
  useEffect(() => load(), [load, revision]);
  useEffect(() => {
    backend.listProviders().then(setProviders, () => setProviders([]));
  }, [backend]);

  const models = [...providers.flatMap((p) => p.models.map((m) => ({ provider: p.id, model: m.model }))), MANUAL];

  const start = async () => {
    // The list may still be loading (or changed on the Models screen): ask again when empty.
    const known = providers.length ? providers : await backend.listProviders().catch(() => [] as ProviderSettings[]);
    if (known !== providers) setProviders(known);
    // With no model configured, you write the answers yourself (the manual provider).
    const first = known.flatMap((p) => p.models.map((m) => ({ provider: p.id, model: m.model })))[0] ?? MANUAL;
    try {
      const c = await backend.newConversation("New chat", first.provider, first.model);
      asked.current++;
      setConversations((list) => [c, ...list]);
      dispatch({ type: "open", conversation: c.id });
      dispatch({ type: "error", error: null });
    } catch (e) {
      fail(e);
    }
  };

  const change = async (changed: Conversation) => {
    // Shown (and used by a message sent right away) at once, not when the list comes back: a
    // send in between would otherwise save the old model (or tool sets) over the new one.
    asked.current++;
    setConversations((list) => list.map((c) => (c.id === changed.id ? changed : c)));
    await backend.updateConversation(changed).catch(fail);
    load();
  };
  const changeModel = (conversation: Conversation, choice: ModelChoice) => change({ ...conversation, ...choice });
  const changeToolSets = (conversation: Conversation, toolSets: string[] | null) => change(withToolSets(conversation, toolSets));

  const remove = async (conversation: Conversation) => {
    await backend.deleteConversation(conversation.id).catch(fail);
    dispatch({ type: "open", conversation: null });
    load();
  };

  return { conversations, models, start, changeModel, changeToolSets, remove };
}

/** `conversation` limited to `toolSets`; null: offered every tool switched on. */
export function withToolSets(conversation: Conversation, toolSets: string[] | null): Conversation {
  const { toolSets: _, ...rest } = conversation;
  return toolSets ? { ...rest, toolSets } : rest;
}

export function ConversationList(props: { conversations: Conversation[]; current: string | null; onOpen: (id: string) => void }) {
  return (
    <>
      <SelectableList
        items={props.conversations}
        label="Conversations"
        keyOf={(c) => c.id}
        selected={props.current}
        onSelect={props.onOpen}
        testId="conversation"
        data={(c) => ({ "data-id": c.id })}
      >
        {(c) => (
          <>
            <div className="item-title">
              <strong>
                <Revealed text={c.title} />
              </strong>
            </div>
            <div className="muted small">
              {c.provider} · {c.model}
            </div>
          </>
        )}
      </SelectableList>
      {props.conversations.length === 0 ? <p className="muted">No conversations yet.</p> : null}
    </>
  );
}

export function ConversationHeader(props: {
  conversation: Conversation;
  models: ModelChoice[];
  onModel: (choice: ModelChoice) => void;
  onDelete: () => void;
  /** Shown between the model and Delete. */
  children?: ReactNode;
}) {
  const { conversation } = props;
  return (
    <header className="pane-header">
      <h2>
        <Revealed text={conversation.title} />
      </h2>
      <Choice
        data-testid="chat-model"
        value={`${conversation.provider}/${conversation.model}`}
        onChoose={(v) => {
          // Provider names never contain "/"; model names may (OpenRouter).
          const cut = v.indexOf("/");
          props.onModel({ provider: v.slice(0, cut), model: v.slice(cut + 1) });
        }}
      >
        {props.models.map((m) => (
          <option key={`${m.provider}/${m.model}`} value={`${m.provider}/${m.model}`}>
            {m.provider === MANUAL.provider ? "manual · you write the answers" : `${m.provider} · ${m.model}`}
          </option>
        ))}
      </Choice>
      {props.children}
      <button className="small danger" data-testid="delete-chat" onClick={props.onDelete}>
        Delete
      </button>
    </header>
  );
}
