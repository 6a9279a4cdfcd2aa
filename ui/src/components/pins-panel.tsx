// Tool pinning, reviewed: a running server's tool definitions and instructions against what you
// approved. A changed item blocks the model's calls to that tool until you look at the difference
// (field by field, hidden characters shown) and approve it; approval names the digest you saw.
import { useCallback, useEffect, useState } from "react";
import type { Backend } from "../backend";
import { errorMessage } from "../backend";
import type { PinItem } from "../bindings/PinItem";
import type { HostState } from "../host";
import { ErrorBanner } from "./error-banner";
import { pickDefault, ServerPicker } from "./server-picker";
import { HiddenMark } from "./revealed";
import { reveal } from "./visible";

/** The item of a server's instructions (pins.rs `INSTRUCTIONS`). */
const INSTRUCTIONS = "instructions";

const STATES: Record<PinItem["state"], string> = {
  new: "not approved yet",
  pinned: "approved",
  changed: "changed since approved",
};

function show(v: unknown): string {
  return v === undefined || v === null ? "(none)" : reveal(typeof v === "string" ? v : JSON.stringify(v, null, 2));
}

export function PinsPanel(props: { backend: Backend; host: HostState; server?: string | null; onApproved?: () => void }) {
  const { backend, host } = props;
  // `server`: the one to show first (the chat opens the panel on a server whose tools it held back).
  const [server, setServer] = useState<string | null>(props.server ?? null);
  const picked = pickDefault(host.servers, server, "tools");
  const revision = picked ? (host.catalog[picked] ?? 0) : 0;
  const [items, setItems] = useState<PinItem[]>([]);
  const [chosen, setChosen] = useState<Set<string>>(new Set());
  const [error, setError] = useState<string | null>(null);
  const [done, setDone] = useState<string | null>(null);

  const load = useCallback(() => {
    if (!picked) return setItems([]);
    backend.reviewPins(picked).then(
      (list) => {
        setItems(list);
        setChosen(new Set(list.filter((i) => i.state !== "pinned").map((i) => i.item)));
      },
      (e: unknown) => setError(errorMessage(e)),
    );
  }, [backend, picked]);
  useEffect(load, [load, revision]);

  const open = items.filter((i) => i.state !== "pinned");
  const openInstructions = open.some((i) => i.item === INSTRUCTIONS);
  const toggle = (item: string) =>
    setChosen((c) => {
      const n = new Set(c);
      if (n.has(item)) n.delete(item);
      else n.add(item);
      return n;
    });
  // A tool is offered to the model only once its server's instructions are approved too.
  const only = (item: string) => setChosen(new Set(openInstructions && item !== INSTRUCTIONS ? [item, INSTRUCTIONS] : [item]));
  const approve = async () => {
    if (!picked) return;
    try {
      const n = await backend.approvePins(
        picked,
        items.filter((i) => chosen.has(i.item)).map((i) => ({ item: i.item, digest: i.digest })),
      );
      setDone(`${n} approved and pinned.`);
      setError(null);
      load();
      props.onApproved?.();
    } catch (e) {
      setError(errorMessage(e));
      setDone(null);
      load();
    }
  };

  return (
    <section aria-label="Tool definitions" data-testid="pins-panel">
      <header className="pane-header">
        <h2>Tool definitions</h2>
        <ServerPicker servers={host.servers} value={picked} need="tools" onChange={(s) => (setServer(s), setDone(null), setError(null))} />
      </header>
      <ErrorBanner error={error} testId="pins-error" />
      {done ? <div className="banner ok">{done}</div> : null}
      {picked && items.length ? (
        <p className="muted">
          {open.length
            ? `${open.length} of ${items.length} need your review; a changed one is blocked until you approve it.`
            : `All ${items.length} are approved as they are.`}
        </p>
      ) : null}
      {open.length > 1 ? (
        <div className="actions" data-testid="pins-selection">
          <button className="small" data-testid="pins-select-all" onClick={() => setChosen(new Set(open.map((i) => i.item)))}>
            Select all
          </button>
          <button className="small" data-testid="pins-select-none" onClick={() => setChosen(new Set())}>
            Select none
          </button>
        </div>
      ) : null}
      {open.map((i) => (
        <div key={i.item} className="pin-item" data-testid="pin-item" data-item={i.item} data-state={i.state}>
          <div className="pin-head">
            <label className="field check">
              <input type="checkbox" data-testid="pin-choose" checked={chosen.has(i.item)} onChange={() => toggle(i.item)} />
              <strong>{i.item}</strong> <span className={i.state === "changed" ? "warn-text" : "muted"}>{STATES[i.state]}</span>
              {i.hiddenCharacters ? <HiddenMark /> : null}
            </label>
            {open.length > 1 ? (
              <button className="small" data-testid="pin-only" onClick={() => only(i.item)}>
                Only this one
              </button>
            ) : null}
          </div>
          {i.item === INSTRUCTIONS ? (
            <p className="muted small">
              The model is offered this server's tools only once these instructions are approved too, so "Only this
              one" on a tool selects them with it.
            </p>
          ) : null}
          {i.state === "changed" ? (
            <table className="table diff" data-testid="pin-diff">
              <thead>
                <tr>
                  <th>Field</th>
                  <th>Approved</th>
                  <th>Now</th>
                </tr>
              </thead>
              <tbody>
                {i.changes.map((c) => (
                  <tr key={c.path}>
                    <td>
                      <code>{c.path || "(whole)"}</code>
                    </td>
                    <td>
                      <pre className="json before">{show(c.before)}</pre>
                    </td>
                    <td>
                      <pre className="json after">{show(c.after)}</pre>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <details>
              <summary>Definition</summary>
              <pre className="json">{show(i.current)}</pre>
            </details>
          )}
        </div>
      ))}
      {open.length ? (
        <div className="actions">
          <button className="primary" data-testid="pins-approve" disabled={chosen.size === 0} onClick={approve}>
            Approve the selected as shown
          </button>
        </div>
      ) : null}
    </section>
  );
}
