// The server chooser shared by the Tools, Resources and Prompts screens: running servers only.
import type { ServerView } from "../bindings/ServerView";
import { running } from "../host";

export function ServerPicker(props: {
  servers: ServerView[];
  value: string | null;
  onChange: (name: string) => void;
  need?: string;
}) {
  const list = running(props.servers).filter((s) =>
    props.need && s.status.state === "running" ? props.need in s.status.summary.capabilities : true,
  );
  return (
    <label className="picker">
      <span>Server</span>
      <select
        data-testid="server-picker"
        value={props.value ?? ""}
        onChange={(e) => props.onChange(e.currentTarget.value)}
      >
        <option value="" disabled>
          {list.length ? "Choose a server…" : "No running server offers this"}
        </option>
        {props.value && !list.some((s) => s.name === props.value) ? (
          // Kept picked while it restarts or waits for sign-in, and said so.
          <option value={props.value} disabled>
            {props.value} (not running)
          </option>
        ) : null}
        {list.map((s) => (
          <option key={s.name} value={s.name}>
            {s.name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** Keeps the picked server valid: the first running one when none is picked yet. */
export function pickDefault(servers: ServerView[], current: string | null, need?: string): string | null {
  const list = running(servers).filter((s) =>
    need && s.status.state === "running" ? need in s.status.summary.capabilities : true,
  );
  if (current && list.some((s) => s.name === current)) return current;
  return current && servers.some((s) => s.name === current) ? current : (list[0]?.name ?? null);
}
