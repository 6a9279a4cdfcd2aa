// Adding a server whose whole definition an install link carried (switchboard://install?…, as
// VS Code's links carry one): said plainly to come from a link, and shown whole before anything is
// added — the command and each argument on a line of its own (or the URL), the environment and
// headers with their values (they came from the link, so they are no secrets of the person's), and
// the sandbox setting. Every piece goes through `reveal`, so a character hidden in it shows. Adding
// saves it through `saveServer`, whose native trust dialog shows it once more.
import type { FormEvent, ReactNode } from "react";
import { useState } from "react";
import type { Backend } from "../../backend";
import type { SandboxSetting } from "../../bindings/SandboxSetting";
import type { ServerConfig } from "../../bindings/ServerConfig";
import { hasHidden, reveal } from "../../components/visible";
import { GalleryDialog, InstallFooter, useInstall } from "./dialog";
import type { Values } from "./install-fields";

const NO_VALUES: Values = {};

/** One line each: the values of a list, or "none". */
function Lines(props: { items: string[]; testId: string }) {
  if (!props.items.length) return <span className="muted">none</span>;
  return (
    <ul className="definition-lines">
      {props.items.map((item, i) => (
        <li key={i}>
          <code data-testid={props.testId}>{reveal(item)}</code>
        </li>
      ))}
    </ul>
  );
}

/** Names and values, one pair a line (`=` for the environment, `: ` for headers). */
function Pairs(props: { pairs: Record<string, string>; separator: string; testId: string }) {
  return (
    <ul className="definition-lines">
      {Object.entries(props.pairs).map(([key, value]) => (
        <li key={key} data-testid={props.testId}>
          <code>{reveal(key)}</code>
          {props.separator}
          <code>{reveal(value)}</code>
        </li>
      ))}
    </ul>
  );
}

function sandboxLines(setting: SandboxSetting): string[] {
  if (typeof setting === "boolean") return [];
  const lines = [
    ...(setting.read ?? []).map((p) => `may also read ${p}`),
    ...(setting.write ?? []).map((p) => `may also read and write ${p}`),
    ...(setting.readOnlyRoots ?? []).map((p) => `may only read the root ${p}`),
  ];
  const net = setting.network;
  if (net === false) lines.push("no network");
  else if (Array.isArray(net)) lines.push(net.length ? `network only to ${net.join(", ")}` : "no network");
  return lines;
}

function Sandbox(props: { setting: SandboxSetting }) {
  const s = props.setting;
  if (s === false) {
    return (
      <span className="warn-text" data-testid="definition-sandbox" data-sandbox="off">
        Off: it would run without the OS sandbox, with all your user&apos;s access.
      </span>
    );
  }
  const lines = sandboxLines(s);
  return (
    <span data-testid="definition-sandbox" data-sandbox={s === true ? "default" : "profile"}>
      {s === true ? "On, with the default profile." : "On, with a profile of its own:"}
      {lines.length ? <Lines items={lines} testId="definition-sandbox-line" /> : null}
    </span>
  );
}

function Fact(props: { term: string; children: ReactNode }) {
  return (
    <>
      <dt>{props.term}</dt>
      <dd>{props.children}</dd>
    </>
  );
}

export function DefinitionDialog(props: {
  backend: Backend;
  /** The name the link gives the server. */
  name: string;
  config: ServerConfig;
  onInstalled: (name: string) => void;
  onClose: () => void;
}) {
  const { backend, config } = props;
  const [name, setName] = useState(props.name);
  const state = useInstall([], NO_VALUES, props.onInstalled);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const local = name.trim();
    state.install(async () => {
      await backend.saveServer(local, config, null);
      return local;
    });
  };
  const env = config.env ?? {};
  const headers = config.headers ?? {};
  return (
    <GalleryDialog title="Add a server from a link" testId="definition-dialog" onClose={props.onClose}>
      <form noValidate onSubmit={submit} data-testid="definition-form">
        <p data-testid="definition-ask">
          <strong>A link asks to add this server.</strong> Check what it would run; nothing is added until you trust it in
          the dialog that follows.
        </p>
        {hasHidden(props.name) ? (
          <div className="banner warn" role="status" data-testid="definition-hidden-name">
            The name the link gives hides characters: <code>{reveal(props.name)}</code>
          </div>
        ) : null}
        <dl className="facts">
          <Fact term="Name in the link">
            <code data-testid="definition-name">{reveal(props.name)}</code>
          </Fact>
          {config.command != null ? (
            <>
              <Fact term="Command">
                <code data-testid="definition-command">{reveal(config.command)}</code>
              </Fact>
              <Fact term="Arguments">
                <Lines items={config.args ?? []} testId="definition-arg" />
              </Fact>
            </>
          ) : null}
          {config.url != null ? (
            <Fact term="URL">
              <code data-testid="definition-url">{reveal(config.url)}</code>
              {config.transport && config.transport !== "auto" ? <span className="muted"> ({config.transport})</span> : null}
            </Fact>
          ) : null}
          {config.command == null && config.url == null ? (
            <Fact term="Runs">
              <span className="warn-text">The link names no command and no URL.</span>
            </Fact>
          ) : null}
          {config.cwd != null ? (
            <Fact term="Folder">
              <code data-testid="definition-cwd">{reveal(config.cwd)}</code>
            </Fact>
          ) : null}
          {config.envFile != null ? (
            <Fact term="Env file">
              <code data-testid="definition-env-file">{reveal(config.envFile)}</code>
            </Fact>
          ) : null}
          {Object.keys(env).length ? (
            <Fact term="Environment">
              <Pairs pairs={env} separator="=" testId="definition-env" />
            </Fact>
          ) : null}
          {Object.keys(headers).length ? (
            <Fact term="Headers">
              <Pairs pairs={headers} separator=": " testId="definition-header" />
            </Fact>
          ) : null}
          {config.sandbox != null ? (
            <Fact term="Sandbox">
              <Sandbox setting={config.sandbox} />
            </Fact>
          ) : null}
        </dl>
        <InstallFooter name={name} onName={setName} state={state} onClose={props.onClose} submit={{ label: "Add…", busy: "Adding…" }} />
      </form>
    </GalleryDialog>
  );
}
