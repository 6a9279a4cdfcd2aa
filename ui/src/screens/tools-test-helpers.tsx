// The Tools screen as the app mounts it, on a fake backend, for the component tests of its parts.
import { useState } from "react";
import type { FakeBackend } from "../backend/fake";
import { useHost } from "../host";
import type { ToolSelection } from "./tools";
import { ToolsScreen } from "./tools";

export function Tools(props: { backend: FakeBackend }) {
  const host = useHost(props.backend);
  const [selection, setSelection] = useState<ToolSelection>({ server: null, tools: {} });
  return <ToolsScreen backend={props.backend} host={host} selection={selection} onSelect={setSelection} />;
}

/** The arguments of each call the screen made of `method`, in order. */
export function callsOf(b: FakeBackend, method: string) {
  return b.calls.filter((c) => c.method === method).map((c) => c.args);
}
