// The tool sets: named sets of tools across servers, made, renamed, changed and deleted here; a
// chat limited to sets is offered only their tools that are switched on. A set's tools are
// picked by server, from the running servers' tools (a member no server lists now stays, said so).
// Renaming saves the set under its new name, moves the chats limited to it there, then deletes
// the old name.
import { useState } from "react";
import type { Backend } from "../../backend";
import { errorMessage } from "../../backend";
import type { ToolRef } from "../../bindings/ToolRef";
import type { ToolSet } from "../../bindings/ToolSet";
import { isAppOnly } from "../../components/app-frame/tool-ui";
import { ErrorBanner } from "../../components/error-banner";
import { Revealed } from "../../components/revealed";
import type { HostState } from "../../host";
import type { ServerTool } from "../chat/calls";
import { useEverything } from "../chat/everything";
import type { Switches } from "./switches";

/** A set being made (`previous` null) or changed. */
interface Draft {
  previous: string | null;
  name: string;
  members: ToolRef[];
}

/** The tools of one server to pick from: `listed` false for a member no running server lists. */
interface Group {
  server: string;
  tools: { name: string; listed: boolean }[];
}

const isMember = (members: ToolRef[], server: string, tool: string) =>
  members.some((m) => m.server === server && m.tool === tool);

/** The running servers' tools by server, then the members none of them lists now. */
export function groupsOf(tools: ServerTool[], members: ToolRef[]): Group[] {
  const groups: Group[] = [];
  const add = (server: string, name: string, listed: boolean) => {
    let group = groups.find((g) => g.server === server);
    if (!group) groups.push((group = { server, tools: [] }));
    if (!group.tools.some((t) => t.name === name)) group.tools.push({ name, listed });
  };
  for (const t of tools) if (!isAppOnly(t.tool)) add(t.server, t.tool.name, true);
  for (const m of members) add(m.server, m.tool, false);
  return groups;
}

export function ToolSetsPanel(props: { backend: Backend; host: HostState; switches: Switches; onClose: () => void }) {
  const { backend, switches } = props;
  const tools = useEverything<ServerTool>(props.host, "tools", async (server) =>
    (await backend.listTools(server)).map((tool) => ({ server, tool })),
  );
  const [draft, setDraft] = useState<Draft | null>(null);
  const [error, setError] = useState<string | null>(null);
  const sets = switches.view.sets;

  const run = (f: () => Promise<void>) => f().then(() => setError(null), (e: unknown) => setError(errorMessage(e)));
  const save = (d: Draft) => {
    const name = d.name.trim();
    if (name !== d.previous && sets.some((s) => s.name === name)) {
      setError(`A tool set named “${name}” already exists.`);
      return;
    }
    void run(async () => {
      await switches.saveSet({ name, members: d.members }, d.previous);
      setDraft(null);
    });
  };
  const edit = (d: Draft | null) => {
    setDraft(d);
    setError(null);
  };

  return (
    <div className="detail tool-sets" data-testid="tool-sets">
      <header className="pane-header">
        <h2>Tool sets</h2>
        <div className="actions">
          <button data-testid="tool-set-new" disabled={!!draft} onClick={() => edit({ previous: null, name: "", members: [] })}>
            New set
          </button>
          <button data-testid="tool-sets-close" onClick={props.onClose}>
            Close
          </button>
        </div>
      </header>
      <p className="muted">
        A chat limited to one or more sets (chosen above its messages) is offered only their tools, and of those only
        the ones switched on. A chat limited to a set you delete stops with an error until you choose its tools again
        in its header.
      </p>
      <ErrorBanner error={error} testId="tool-sets-error" role="alert" />
      {draft ? <SetEditor draft={draft} tools={tools} onDraft={setDraft} onSave={() => save(draft)} onCancel={() => edit(null)} /> : null}
      <SetList
        sets={sets}
        onEdit={(s) => edit({ previous: s.name, name: s.name, members: s.members })}
        onDelete={(s) => void run(() => switches.deleteSet(s.name))}
      />
    </div>
  );
}

function SetEditor(props: { draft: Draft; tools: ServerTool[]; onDraft: (d: Draft) => void; onSave: () => void; onCancel: () => void }) {
  const { draft } = props;
  const groups = groupsOf(props.tools, draft.members);
  const toggle = (server: string, tool: string, on: boolean) => {
    const rest = draft.members.filter((m) => m.server !== server || m.tool !== tool);
    props.onDraft({ ...draft, members: on ? [...rest, { server, tool }] : rest });
  };
  return (
    <form
      className="tool-set-editor"
      data-testid="tool-set-editor"
      onSubmit={(e) => {
        e.preventDefault();
        props.onSave();
      }}
    >
      <label className="field">
        <span>{draft.previous === null ? "Name of the new set" : `Name (was “${draft.previous}”)`}</span>
        <input data-testid="tool-set-name" value={draft.name} onChange={(e) => props.onDraft({ ...draft, name: e.currentTarget.value })} />
      </label>
      {groups.length ? null : <p className="muted">Start a server that offers tools to pick its tools.</p>}
      {groups.map((g) => (
        <ServerTools key={g.server} group={g} members={draft.members} onToggle={toggle} />
      ))}
      <div className="actions">
        <button type="submit" className="primary" data-testid="tool-set-save" disabled={!draft.name.trim()}>
          Save
        </button>
        <button type="button" data-testid="tool-set-cancel" onClick={props.onCancel}>
          Cancel
        </button>
        <span className="muted">
          {draft.members.length} {draft.members.length === 1 ? "tool" : "tools"} picked
        </span>
      </div>
    </form>
  );
}

function ServerTools(props: { group: Group; members: ToolRef[]; onToggle: (server: string, tool: string, on: boolean) => void }) {
  const { server, tools } = props.group;
  return (
    <fieldset className="multi" data-testid="tool-set-server" data-server={server}>
      <legend>
        <Revealed text={server} />
      </legend>
      {tools.map((t) => (
        <label key={t.name} className="check">
          <input
            type="checkbox"
            data-testid="tool-set-member"
            data-server={server}
            data-tool={t.name}
            checked={isMember(props.members, server, t.name)}
            onChange={(e) => props.onToggle(server, t.name, e.currentTarget.checked)}
          />
          <span className="mono">
            <Revealed text={t.name} />
          </span>
          {t.listed ? null : <span className="muted small">(not listed now)</span>}
        </label>
      ))}
    </fieldset>
  );
}

function SetList(props: { sets: ToolSet[]; onEdit: (s: ToolSet) => void; onDelete: (s: ToolSet) => void }) {
  if (!props.sets.length)
    return (
      <p className="muted" data-testid="no-tool-sets">
        No tool sets yet: “New set” gathers tools from any of your servers under a name.
      </p>
    );
  return (
    <ul className="tool-set-list">
      {props.sets.map((s) => (
        <li key={s.name} data-testid="tool-set" data-name={s.name}>
          <div className="grow">
            <strong>
              <Revealed text={s.name} />
            </strong>{" "}
            <span className="muted">
              {s.members.length} {s.members.length === 1 ? "tool" : "tools"}
            </span>
            <div className="muted small">
              {s.members.map((m, i) => (
                <span key={`${m.server}\u0000${m.tool}`}>
                  {i ? ", " : ""}
                  <Revealed text={`${m.server} · ${m.tool}`} />
                </span>
              ))}
            </div>
          </div>
          <button className="small" data-testid="tool-set-edit" onClick={() => props.onEdit(s)}>
            Edit
          </button>
          <button className="small danger" data-testid="tool-set-delete" onClick={() => props.onDelete(s)}>
            Delete
          </button>
        </li>
      ))}
    </ul>
  );
}
