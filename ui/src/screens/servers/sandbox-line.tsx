// A server's sandbox at a glance: "Sandboxed" with its profile, "In a container" (its container is
// its box), or "Not sandboxed" in warning colours with a one-click "Sandbox it"; and, when the sandbox may have refused it something,
// which setting to change.
import type { ServerConfig } from "../../bindings/ServerConfig";
import type { ServerView } from "../../bindings/ServerView";
import { profileOf } from "./sandbox-fields";

/** The profile in a few words: what it may reach beyond the defaults. */
export function profileSummary(server: ServerView): string {
  const profile = profileOf(server.config?.sandbox);
  const network = profile.network;
  const parts = [
    network === false ? "no network" : Array.isArray(network) ? `network: ${network.join(", ")}` : "network on",
  ];
  if (profile.read?.length) parts.push(`also reads ${profile.read.join(", ")}`);
  if (profile.write?.length) parts.push(`also writes ${profile.write.join(", ")}`);
  if (profile.readOnlyRoots?.length) parts.push(`read-only roots ${profile.readOnlyRoots.join(", ")}`);
  return parts.join("; ");
}

/** `config` with `host` added to the hosts its sandbox may reach. */
export function withHost(config: ServerConfig, host: string): ServerConfig {
  const profile = profileOf(config.sandbox);
  const hosts = Array.isArray(profile.network) ? profile.network : [];
  return { ...config, sandbox: { ...profile, network: [...hosts.filter((h) => h !== host), host] } };
}

/** Whether `url` is plain http:// to a host that is not this computer. */
export function isPlainHttp(url: string | null | undefined): boolean {
  if (!url) return false;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return false;
  }
  const host = parsed.hostname.toLowerCase();
  const loopback = host === "localhost" || host === "[::1]" || /^127\./.test(host);
  return parsed.protocol === "http:" && !loopback;
}

export function SandboxLine(props: {
  server: ServerView;
  busy: boolean;
  onSandbox: () => void;
  onAllowHost: (host: string) => void;
}) {
  const { server } = props;
  if (server.sandbox === "remote") {
    if (!isPlainHttp(server.config?.url)) return null;
    return (
      <div className="sandbox-line" data-testid="plain-http">
        <span className="badge warn" title="Anyone on the way can read and change what is sent, sign-in tokens included.">
          Not encrypted
        </span>{" "}
        <span className="warn-text">plain http:// to another computer</span>
      </div>
    );
  }
  if (server.sandbox === "sandboxed") {
    return (
      <div className="sandbox-line" data-testid="sandbox-state">
        <span className="badge ok" title="It may read the system, its program and runtime, and write its roots and its own folders.">
          Sandboxed
        </span>{" "}
        <span className="muted">{profileSummary(server)}</span>
        {server.refusedHosts.length ? (
          <ul className="refused-hosts" data-testid="refused-hosts">
            {server.refusedHosts.map((host) => (
              <li key={host}>
                The sandbox refused a connection to <code>{host}</code>.{" "}
                <button data-testid="allow-host" disabled={props.busy} onClick={() => props.onAllowHost(host)}>
                  Allow this host
                </button>
              </li>
            ))}
          </ul>
        ) : null}
        {server.sandboxHint ? (
          <p className="banner warn" data-testid="sandbox-hint">
            {server.sandboxHint}
          </p>
        ) : null}
      </div>
    );
  }
  if (server.sandbox === "container") {
    return (
      <div className="sandbox-line" data-testid="sandbox-state" data-state="container">
        <span
          className="badge"
          title="Switchboard's own box cannot hold a container engine's client; the container's walls are what hold the server."
        >
          In a container
        </span>{" "}
        <span className="muted">it sees only the folders, variables and network its command line gives it</span>
      </div>
    );
  }
  const why =
    server.sandbox === "trusted_before"
      ? "It was trusted before Switchboard ran servers in a sandbox, and runs with all of your rights."
      : "You turned its sandbox off: it runs with all of your rights.";
  return (
    <div className="sandbox-line banner warn" data-testid="sandbox-state">
      <span className="badge warn">Not sandboxed</span> {why}{" "}
      <button data-testid="sandbox-it" disabled={props.busy} onClick={props.onSandbox}>
        Sandbox it
      </button>
    </div>
  );
}
