// The Approvals screen: every standing rule in one place (change or revoke it), and the audit log
// of what servers and models asked, what was shown, what was decided and what went back —
// searchable, with each flow's steps, exportable as JSON Lines.
import { useCallback, useEffect, useRef, useState } from "react";
import type { Backend } from "../backend";
import { errorMessage } from "../backend";
import type { AuditEntry } from "../bindings/AuditEntry";
import type { CoreEvent } from "../bindings/CoreEvent";
import type { PolicyEntry } from "../bindings/PolicyEntry";
import type { Rule } from "../bindings/Rule";
import { CompareModels } from "../components/compare-models";
import { ErrorBanner } from "../components/error-banner";
import { PinsPanel } from "../components/pins-panel";
import { reveal } from "../components/visible";
import type { HostState } from "../host";
import { Choice } from "../components/choice";

const RULES: { value: Rule; label: string }[] = [
  { value: "ask", label: "ask every time" },
  { value: "allow_session", label: "allow until I quit" },
  { value: "always_allow", label: "always allow" },
  { value: "deny", label: "always deny" },
];

/** Audit rows fetched at a time. */
const AUDIT_PAGE = 200;

const KINDS: Record<PolicyEntry["kind"], string> = {
  sampling: "sampling",
  elicitation: "elicitation",
  tool_call: "tool calls",
};

export function ApprovalsScreen(props: { backend: Backend; host: HostState }) {
  const { backend } = props;
  const [policies, setPolicies] = useState<PolicyEntry[]>([]);
  const [auditRevision, setAuditRevision] = useState(0);
  const [error, setError] = useState<string | null>(null);

  const load = useCallback(() => {
    backend.listPolicies().then(setPolicies, (e: unknown) => setError(errorMessage(e)));
  }, [backend]);

  useEffect(() => {
    load();
    return onHostEvents(backend, (e) => {
      if (e.type === "reviewsChanged" || e.type === "resync") load();
    });
  }, [backend, load]);

  const change = (p: PolicyEntry, rule: Rule) =>
    backend.setPolicy({ ...p, rule }).then(load, (e: unknown) => setError(errorMessage(e)));
  const remove = (p: PolicyEntry) => backend.removePolicy(p).then(load, (e: unknown) => setError(errorMessage(e)));

  return (
    <div className="page" data-testid="approvals-screen">
      <ErrorBanner error={error} testId="error-banner" />
      <section aria-label="Rules">
        <h2>Rules</h2>
        <p className="muted">
          A tool's own rule wins over its server's: “ask every time” for one tool keeps asking about it whatever
          the server's rule (allow or deny). For a whole server, “ask every time” removes its rule. A tool denied here
          is not offered to the model and is not run from anywhere, the Tools screen and the command line included.
        </p>
        <NewRule servers={props.host.servers.map((s) => s.name)} onAdd={(p) => change(p, p.rule)} />
        {policies.length === 0 ? (
          <p className="muted" data-testid="no-policies">
            No standing rules: every request is shown to you. Add one above, or choose “from now on” in an approval
            dialog.
          </p>
        ) : (
          <table className="table" data-testid="policies">
            <thead>
              <tr>
                <th>Server</th>
                <th>Kind</th>
                <th>Tool</th>
                <th>Rule</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {policies.map((p) => (
                <tr key={`${p.server}/${p.kind}/${p.tool ?? ""}`} data-testid="policy-row">
                  <td>{p.server}</td>
                  <td>{KINDS[p.kind]}</td>
                  <td>
                    {p.tool ?? "all"}
                    {p.warning ? (
                      <div className="warn-text" data-testid="policy-warning">
                        {p.warning}
                      </div>
                    ) : null}
                  </td>
                  <td>
                    <Choice
                      data-testid="policy-rule"
                      value={p.rule}
                      onChoose={(picked) => change(p, picked as Rule)}
                    >
                      {RULES.map((r) => (
                        <option key={r.value} value={r.value}>
                          {r.label}
                        </option>
                      ))}
                    </Choice>
                  </td>
                  <td>
                    <button className="small" data-testid="policy-remove" onClick={() => remove(p)}>
                      Remove
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <PinsPanel
        backend={backend}
        host={props.host}
        onApproved={() => {
          load();
          setAuditRevision((n) => n + 1);
        }}
      />
      <AuditLog backend={backend} revision={auditRevision} />
    </div>
  );
}

/** Subscribes to host events until the returned function is called (an effect's cleanup). */
function onHostEvents(backend: Backend, listener: (e: CoreEvent) => void): () => void {
  let unlisten: (() => void) | null = null;
  let live = true;
  void backend.onCoreEvent(listener).then((u) => (live ? (unlisten = u) : u()));
  return () => {
    live = false;
    unlisten?.();
  };
}

/** The audit log, newest first, a page at a time ("Load older" asks for the rows before the last one shown). */
function AuditLog(props: { backend: Backend; revision: number }) {
  const { backend } = props;
  const [rows, setRows] = useState<AuditEntry[]>([]);
  const [more, setMore] = useState(false);
  const [text, setText] = useState("");
  const [exported, setExported] = useState<string | null>(null);
  const [open, setOpen] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const rowsRef = useRef(rows);
  rowsRef.current = rows;
  // The search the rows on screen answer: another one starts over from the newest page.
  const rowsFor = useRef<string | null>(null);
  const query = text.trim() || null;

  const search = useCallback(
    (beforeId: number | null) =>
      backend.searchAudit({ text: query, server: null, kind: null, flow: null, limit: AUDIT_PAGE, beforeId }),
    [backend, query],
  );

  const refresh = useCallback(() => {
    search(null).then(
      (page) => {
        const shown = rowsFor.current === query ? rowsRef.current : [];
        const oldest = page[page.length - 1];
        // Older pages the user opened stay when the newest page reaches them (no gap between).
        const overlaps = page.length === AUDIT_PAGE && !!oldest && !!shown[0] && oldest.id <= shown[0].id;
        const older = overlaps ? shown.filter((r) => r.id < oldest.id) : [];
        rowsFor.current = query;
        setRows([...page, ...older]);
        if (!older.length) setMore(page.length === AUDIT_PAGE);
        setError(null);
      },
      (e: unknown) => setError(errorMessage(e)),
    );
  }, [search, query]);

  useEffect(() => {
    refresh();
    return onHostEvents(backend, (e) => {
      if (e.type === "reviewsChanged" || e.type === "resync") refresh();
    });
  }, [backend, refresh, props.revision]);

  const loadOlder = () => {
    const last = rowsRef.current[rowsRef.current.length - 1];
    if (!last) return;
    search(last.id).then(
      (page) => {
        setRows((shown) => [...shown, ...page.filter((r) => r.id < (shown[shown.length - 1]?.id ?? Infinity))]);
        setMore(page.length === AUDIT_PAGE);
      },
      (e: unknown) => setError(errorMessage(e)),
    );
  };

  // What the search shows, every row of it (not only the pages on screen): the backend writes
  // them to the file you pick.
  const exportLog = async () => {
    try {
      const done = await backend.exportAudit({ text: query, server: null, kind: null, flow: null, limit: null, beforeId: null });
      if (done) setExported(`${done.entries} entries written to ${done.path}`);
    } catch (e) {
      setError(errorMessage(e));
    }
  };

  return (
    <section aria-label="Audit log">
      <header className="pane-header">
        <h2>Audit log</h2>
        <input
          data-testid="audit-search"
          placeholder="Search: server, tool, decision, text…"
          value={text}
          onChange={(e) => setText(e.currentTarget.value)}
        />
        <button data-testid="audit-export" onClick={exportLog}>
          Export JSON Lines
        </button>
      </header>
      <ErrorBanner error={error} testId="audit-error" />
      {exported ? (
        <p className="muted" data-testid="audit-exported">
          {exported}
        </p>
      ) : null}
      <table className="table" data-testid="audit">
        <thead>
          <tr>
            <th>When</th>
            <th>Server</th>
            <th>What</th>
            <th>Step</th>
            <th>Who</th>
            <th>Decision</th>
            <th />
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <AuditRow
              key={r.id}
              backend={backend}
              row={r}
              open={open === r.id}
              toggle={() => setOpen(open === r.id ? null : r.id)}
            />
          ))}
        </tbody>
      </table>
      {rows.length === 0 ? <p className="muted">Nothing recorded{text ? " matches" : " yet"}.</p> : null}
      {more ? (
        <div className="actions">
          <button data-testid="audit-older" onClick={loadOlder}>
            Load older
          </button>
          <span className="muted">{rows.length.toLocaleString("en-US")} most recent shown</span>
        </div>
      ) : null}
    </section>
  );
}

/** Adds a rule for a server, or for one of its tools. */
function NewRule(props: { servers: string[]; onAdd: (p: PolicyEntry) => void }) {
  const [server, setServer] = useState("");
  const [kind, setKind] = useState<PolicyEntry["kind"]>("tool_call");
  const [tool, setTool] = useState("");
  const [rule, setRule] = useState<Rule>("always_allow");
  // The picked server may have been renamed or removed meanwhile: then the first one.
  const chosen = props.servers.includes(server) ? server : (props.servers[0] ?? "");
  return (
    <form
      className="inline-form"
      data-testid="policy-add"
      onSubmit={(e) => {
        e.preventDefault();
        if (!chosen) return;
        props.onAdd({ server: chosen, kind, tool: kind === "tool_call" && tool.trim() ? tool.trim() : null, rule });
        setTool("");
      }}
    >
      <Choice data-testid="policy-new-server" value={chosen} onChoose={setServer}>
        {props.servers.map((name) => (
          <option key={name} value={name}>
            {name}
          </option>
        ))}
      </Choice>
      <Choice
        data-testid="policy-new-kind"
        value={kind}
        onChoose={(picked) => setKind(picked as PolicyEntry["kind"])}
      >
        {Object.entries(KINDS).map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </Choice>
      <input
        data-testid="policy-new-tool"
        placeholder="all tools"
        disabled={kind !== "tool_call"}
        value={kind === "tool_call" ? tool : ""}
        onChange={(e) => setTool(e.currentTarget.value)}
      />
      <Choice data-testid="policy-new-rule" value={rule} onChoose={(picked) => setRule(picked as Rule)}>
        {RULES.map((r) => (
          <option key={r.value} value={r.value}>
            {r.label}
          </option>
        ))}
      </Choice>
      <button type="submit" data-testid="policy-add-button" disabled={!chosen}>
        Add rule
      </button>
    </form>
  );
}

/** Whether `row` is a server's sampling request, which can be sent again to the person's models. */
export function isReplayable(row: AuditEntry): boolean {
  return row.kind === "sampling" && row.step === "requested" && row.actor === "server";
}

function AuditRow(props: { backend: Backend; row: AuditEntry; open: boolean; toggle: () => void }) {
  const { backend, row } = props;
  const [replaying, setReplaying] = useState(false);
  return (
    <>
      <tr data-testid="audit-row" data-step={row.step} onClick={props.toggle} className="clickable">
        <td>{new Date(row.atMs).toLocaleString()}</td>
        <td>{row.server}</td>
        <td>
          {row.kind.replace("_", " ")}
          {row.subject ? `: ${row.subject}` : ""}
        </td>
        <td>{row.step}</td>
        <td>{row.actor}</td>
        <td>{row.decision ?? ""}</td>
        <td>
          {isReplayable(row) ? (
            <button
              className="small"
              data-testid="audit-replay"
              disabled={replaying}
              title="Send this request again to your models, side by side; nothing goes back to the server"
              onClick={(e) => {
                e.stopPropagation();
                setReplaying(true);
              }}
            >
              Replay on models…
            </button>
          ) : null}
        </td>
      </tr>
      {props.open ? (
        <tr>
          <td colSpan={7}>
            <pre className="json" data-testid="audit-detail">
              {reveal(JSON.stringify(row.detail, null, 2))}
            </pre>
          </td>
        </tr>
      ) : null}
      {replaying ? (
        <tr data-testid="audit-replay-row">
          <td colSpan={7}>
            <CompareModels
              backend={backend}
              allowed={[]}
              initial={[]}
              flow={null}
              run={(models) => backend.replaySampling({ flow: row.flow, models })}
              note={
                <p className="muted">
                  The request {reveal(row.server)} made, sent again as it was. Nothing goes back to the server.
                </p>
              }
              onClose={() => setReplaying(false)}
            />
          </td>
        </tr>
      ) : null}
    </>
  );
}
