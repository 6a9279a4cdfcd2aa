// What the fake backend keeps of the tools the chat's model is offered: the switches, what each
// server's new tools start as, and the tool sets, as the core's tool_switches.rs keeps them (sets
// by name, their names trimmed and checked, members sorted and once each).
import type { ToolRef } from "../bindings/ToolRef";
import type { ToolSet } from "../bindings/ToolSet";
import type { ToolSwitchesView } from "../bindings/ToolSwitchesView";

/** The longest name a tool set may have (tool_switches.rs `MAX_SET_NAME`). */
const MAX_SET_NAME = 64;

const byName = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byRef = (a: ToolRef, b: ToolRef) => byName(a.server, b.server) || byName(a.tool, b.tool);
const same = (a: ToolRef) => (b: ToolRef) => a.server === b.server && a.tool === b.tool;

/** `name` as a set's name, trimmed; refused as the core refuses it. */
function setName(name: string): string {
  const trimmed = name.trim();
  const chars = [...trimmed];
  if (chars.length === 0 || chars.length > MAX_SET_NAME || /\p{Cc}/u.test(trimmed))
    throw { code: "invalid_input", message: `a tool set's name is 1 to ${MAX_SET_NAME} characters, without control characters` };
  return trimmed;
}

export class FakeSwitches {
  off: ToolRef[] = [];
  newToolsOff: string[] = [];
  sets: ToolSet[] = [];

  view(): ToolSwitchesView {
    return structuredClone({ off: [...this.off].sort(byRef), newToolsOff: [...this.newToolsOff].sort(byName), sets: this.sets });
  }
  setTool(server: string, tool: string, enabled: boolean) {
    const ref = { server, tool };
    this.off = this.off.filter((r) => !same(ref)(r));
    if (!enabled) this.off.push(ref);
  }
  setNewTools(server: string, enabled: boolean) {
    this.newToolsOff = this.newToolsOff.filter((s) => s !== server);
    if (!enabled) this.newToolsOff.push(server);
  }
  saveSet(set: ToolSet) {
    const name = setName(set.name);
    const members = set.members.filter((m, i) => set.members.findIndex(same(m)) === i).sort(byRef);
    this.sets = [...this.sets.filter((s) => s.name !== name), { name, members: structuredClone(members) }];
    this.sets.sort((a, b) => byName(a.name, b.name));
  }
  deleteSet(name: string) {
    this.sets = this.sets.filter((s) => s.name !== name);
  }
}
