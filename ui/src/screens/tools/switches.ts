// What the chat's model is offered, as the Tools screen reads and changes it: each tool switched
// on or off for the model, what each server's new tools start as, and the tool sets. A switch
// shows its new state at once; when the change fails, the error's sentence is kept and the
// switches are read again.
import { useCallback, useEffect, useState } from "react";
import type { Backend } from "../../backend";
import { errorMessage } from "../../backend";
import type { ToolRef } from "../../bindings/ToolRef";
import type { ToolSet } from "../../bindings/ToolSet";
import type { ToolSwitchesView } from "../../bindings/ToolSwitchesView";

const NONE: ToolSwitchesView = { off: [], newToolsOff: [], sets: [] };

export interface Switches {
  view: ToolSwitchesView;
  /** Why a switch could not be read or changed. */
  error: string | null;
  isOn: (server: string, tool: string) => boolean;
  newToolsOn: (server: string) => boolean;
  /** Counts the changes the core has taken: what depends on the switches (the meter) reads again. */
  saved: number;
  setTool: (server: string, tool: string, on: boolean) => void;
  setNewTools: (server: string, on: boolean) => void;
  /** Saves `set`; `previous`: the name it had, when it is renamed (rejects with the error). */
  saveSet: (set: ToolSet, previous: string | null) => Promise<void>;
  deleteSet: (name: string) => Promise<void>;
}

const sameRef = (server: string, tool: string) => (r: ToolRef) => r.server === server && r.tool === tool;

/** `view` with one tool switched. */
function withTool(view: ToolSwitchesView, server: string, tool: string, on: boolean): ToolSwitchesView {
  const off = view.off.filter((r) => !sameRef(server, tool)(r));
  return { ...view, off: on ? off : [...off, { server, tool }] };
}

function withNewTools(view: ToolSwitchesView, server: string, on: boolean): ToolSwitchesView {
  const servers = view.newToolsOff.filter((s) => s !== server);
  return { ...view, newToolsOff: on ? servers : [...servers, server] };
}

/** Reads the switches. The core records a tool's switch when it first sees it, with its server's
 * choice for new tools: asking what a chat turn would hold back has it see every running
 * server's tools first, so the switches shown are the model's, and a later change of "New tools
 * start" moves only tools that come after it. */
async function readSwitches(backend: Backend): Promise<ToolSwitchesView> {
  await backend.withheldTools().catch(() => []);
  return backend.toolSwitches();
}

/** The conversations limited to set `from` are limited to `to` instead (the set was renamed). */
async function renameInConversations(backend: Backend, from: string, to: string) {
  const conversations = await backend.listConversations();
  for (const c of conversations) {
    if (!c.toolSets?.includes(from)) continue;
    const toolSets = [...new Set(c.toolSets.map((n) => (n === from ? to : n)))];
    await backend.updateConversation({ ...c, toolSets });
  }
}

/** The switches, read again at each `revision` (a server's tools changed: new ones get their switch). */
export function useSwitches(backend: Backend, revision: number): Switches {
  const [view, setView] = useState<ToolSwitchesView>(NONE);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState(0);

  const load = useCallback(
    () => readSwitches(backend).then(setView, (e: unknown) => setError(errorMessage(e))),
    [backend],
  );
  useEffect(() => void load(), [load, revision]);

  const change = (shown: (v: ToolSwitchesView) => ToolSwitchesView, run: () => Promise<void>) => {
    setView(shown);
    run().then(
      () => {
        setError(null);
        setSaved((n) => n + 1);
      },
      (e: unknown) => {
        setError(errorMessage(e));
        void load();
      },
    );
  };

  return {
    view,
    error,
    saved,
    isOn: (server, tool) => !view.off.some(sameRef(server, tool)),
    newToolsOn: (server) => !view.newToolsOff.includes(server),
    setTool: (server, tool, on) =>
      change((v) => withTool(v, server, tool, on), () => backend.setToolEnabled(server, tool, on)),
    setNewTools: (server, on) => change((v) => withNewTools(v, server, on), () => backend.setNewToolsEnabled(server, on)),
    saveSet: async (set, previous) => {
      await backend.saveToolSet(set);
      if (previous !== null && previous !== set.name) {
        await renameInConversations(backend, previous, set.name);
        await backend.deleteToolSet(previous);
      }
      await load();
    },
    deleteSet: async (name) => {
      await backend.deleteToolSet(name);
      await load();
    },
  };
}
