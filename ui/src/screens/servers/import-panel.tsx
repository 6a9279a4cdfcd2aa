// Importing servers from a Claude Desktop or VS Code configuration file: preview what it holds
// and what it would change (new, already here, an update of an existing server), fill in the
// inputs it asks for, apply, and report what happened.
import { useEffect, useState } from "react";
import type { Backend } from "../../backend";
import { errorMessage } from "../../backend";
import type { ImportCandidate } from "../../bindings/ImportCandidate";
import type { ImportPlan } from "../../bindings/ImportPlan";
import type { ImportChange } from "../../bindings/ImportChange";
import type { ImportReport } from "../../bindings/ImportReport";
import type { ServerConfig } from "../../bindings/ServerConfig";
import { CommandLine } from "../../components/command-line";
import { ErrorBanner } from "../../components/error-banner";
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
      {s.url ? <code>{reveal(s.url)}</code> : <CommandLine command={s.command ?? ""} args={s.args ?? []} />}
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

/** The other hosts' files found where they keep them, each a click from its preview. */
function Found(props: { backend: Backend; onChoose: (path: string) => void }) {
  const [found, setFound] = useState<ImportCandidate[]>([]);
  useEffect(() => {
    let live = true;
    props.backend.importCandidates().then(
      (list) => live && setFound(list),
      () => live && setFound([]),
    );
    return () => {
      live = false;
    };
  }, [props.backend]);
  if (!found.length) return null;
  return (
    <ul className="import-found" data-testid="import-found">
      {found.map((c) => (
        <li key={c.path}>
          <button data-testid="import-candidate" data-app={c.app} onClick={() => props.onChoose(c.path)}>
            {c.app}
          </button>{" "}
          <code className="muted">{c.path}</code>
        </li>
      ))}
    </ul>
  );
}

export function ImportPanel(props: { backend: Backend; onDone: () => void; onImported: () => void }) {
  const [plan, setPlan] = useState<ImportPlan | null>(null);
  const [inputs, setInputs] = useState<Record<string, string>>({});
  const [report, setReport] = useState<ImportReport | null>(null);
  const [applying, setApplying] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // A file found in its usual place, or one chosen in the native picker the shell opens: the
  // window names no other path.
  const preview = (known?: string) => {
    setError(null);
    setPlan(null);
    setReport(null);
    props.backend.importPreview(known).then(setPlan, (e: unknown) => setError(errorMessage(e)));
  };
  const apply = (previewed: ImportPlan) => {
    setApplying(true);
    setError(null);
    props.backend
      .importApply(inputs, previewed.sourceDigest)
      .then((done) => {
        setReport(done);
        // The list beside the panel shows what was added at once, not only after Done.
        props.onImported();
      }, (e: unknown) => setError(errorMessage(e)))
      .finally(() => setApplying(false));
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
      <Found backend={props.backend} onChoose={preview} />
      <div className="row">
        <button data-testid="import-choose" onClick={() => preview()}>
          Choose file…
        </button>
      </div>
      <ErrorBanner error={error} testId="error-banner" />
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
              <span className="hint muted">
                {" "}
                (where there is no keychain, write <code>{"${env:NAME}"}</code> in their place in the configuration and set
                NAME in the environment Switchboard starts from)
              </span>
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
              disabled={applying || report !== null}
              title={report ? "Imported: choose another file to import more" : undefined}
              onClick={() => apply(plan)}
            >
              {report ? "Imported" : "Import"}
            </button>
            {report ? null : <button onClick={props.onDone}>Cancel</button>}
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
