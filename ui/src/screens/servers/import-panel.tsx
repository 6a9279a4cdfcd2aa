// Importing servers from a Claude Desktop or VS Code configuration file: preview what it holds
// and what it would change (new, already here, an update of an existing server), fill in the
// inputs it asks for, apply, and report what happened.
import { useState } from "react";
import type { Backend } from "../../backend";
import { errorMessage } from "../../backend";
import type { ImportPlan } from "../../bindings/ImportPlan";
import type { ImportChange } from "../../bindings/ImportChange";
import type { ImportReport } from "../../bindings/ImportReport";
import type { ServerConfig } from "../../bindings/ServerConfig";
import { reveal } from "../../components/visible";

/** Everything the server would run with, hidden characters revealed: the command or URL, the
 * working directory, the environment file, and each environment variable and header. */
function Runs(props: { server: ServerConfig }) {
  const s = props.server;
  const lines: string[] = [];
  if (s.cwd) lines.push(`cwd: ${s.cwd}`);
  if (s.envFile) lines.push(`envFile: ${s.envFile}`);
  for (const [k, v] of Object.entries(s.env ?? {})) lines.push(`env ${k}=${v}`);
  for (const [k, v] of Object.entries(s.headers ?? {})) lines.push(`header ${k}: ${v}`);
  return (
    <>
      <code>{reveal(s.url ?? [s.command, ...(s.args ?? [])].join(" "))}</code>
      {lines.length ? (
        <ul className="import-runs" data-testid="import-runs">
          {lines.map((l) => (
            <li key={l}>
              <code>{reveal(l)}</code>
            </li>
          ))}
        </ul>
      ) : null}
    </>
  );
}

const CHANGES: Record<ImportChange, string> = {
  new: "new",
  unchanged: "already here, unchanged",
  update: "update of the existing server",
};

export function ImportPanel(props: { backend: Backend; onDone: () => void }) {
  const [plan, setPlan] = useState<ImportPlan | null>(null);
  const [inputs, setInputs] = useState<Record<string, string>>({});
  const [report, setReport] = useState<ImportReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  // The file is chosen in the native picker the shell opens: the window never names a path.
  const choose = () => {
    setError(null);
    setPlan(null);
    setReport(null);
    props.backend.importPreview().then(setPlan, (e: unknown) => setError(errorMessage(e)));
  };
  return (
    <div className="import">
      <header className="pane-header">
        <h2>Import servers</h2>
      </header>
      <p className="muted">
        From Claude Desktop (<code>claude_desktop_config.json</code>) or VS Code (<code>mcp.json</code>). Secrets in the file go to the
        system keychain, never into Switchboard's configuration.
      </p>
      <div className="row">
        <button data-testid="import-choose" onClick={choose}>
          Choose file…
        </button>
      </div>
      {error ? (
        <div className="banner error" data-testid="error-banner">
          {error}
        </div>
      ) : null}
      {plan ? (
        <div className="plan">
          <h3>
            {Object.keys(plan.servers).length} server(s) from {plan.source === "vs-code" ? "VS Code" : "Claude Desktop"}
          </h3>
          <table>
            <thead>
              <tr>
                <th>Name</th>
                <th>Runs</th>
                <th>Import</th>
              </tr>
            </thead>
            <tbody>
              {Object.entries(plan.servers).map(([n, s]) => (
                <tr key={n} data-testid="import-server" data-change={plan.changes[n] ?? "new"}>
                  <td>{n}</td>
                  <td>
                    <Runs server={s} />
                  </td>
                  <td>{CHANGES[plan.changes[n] ?? "new"]}</td>
                </tr>
              ))}
            </tbody>
          </table>
          {Object.values(plan.changes).length && Object.values(plan.changes).every((c) => c === "unchanged") ? (
            <p data-testid="import-nothing">Everything in this file is already here: importing changes nothing.</p>
          ) : null}
          {plan.secretNames.length ? (
            <p>
              Into the keychain: {plan.secretNames.map((n) => <code key={n}>{n} </code>)}
            </p>
          ) : null}
          {plan.inputs.map((i) => (
            <label className="field" key={i.id}>
              <span>{i.description || i.id}</span>
              <input
                type={i.password ? "password" : "text"}
                value={inputs[i.id] ?? ""}
                onChange={(e) => {
                  const v = e.currentTarget.value;
                  setInputs((old) => ({ ...old, [i.id]: v }));
                }}
              />
            </label>
          ))}
          <div className="actions">
            <button
              className="primary"
              data-testid="import-apply"
              onClick={() =>
                props.backend.importApply(inputs, plan.sourceDigest).then(setReport, (e: unknown) => setError(errorMessage(e)))
              }
            >
              Import
            </button>
            <button onClick={props.onDone}>Cancel</button>
          </div>
        </div>
      ) : null}
      {report ? (
        <div className="banner ok" data-testid="import-report">
          {report.added.length ? `Added ${report.added.join(", ")}. ` : ""}
          {report.updated.length ? `Updated ${report.updated.join(", ")}. ` : ""}
          {report.unchanged.length ? `Already here: ${report.unchanged.join(", ")}. ` : ""}
          {!report.added.length && !report.updated.length ? "Nothing changed." : ""}
          {report.inputsMissing.length ? ` Missing values: ${report.inputsMissing.join(", ")}.` : ""}{" "}
          <button onClick={props.onDone}>Done</button>
        </div>
      ) : null}
    </div>
  );
}
