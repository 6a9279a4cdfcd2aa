// The Servers screen as a new user found it (issue 33): a remote server's card, an import that
// shows its servers at once, the usual files offered, and a config file broken in an editor.
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { App } from "../app";
import { FakeBackend } from "../backend/fake";
import type { ServerStatus } from "../bindings/ServerStatus";
import { useHost } from "../host";
import { ServersScreen } from "./servers";

function WithHost(props: { backend: FakeBackend }) {
  const host = useHost(props.backend);
  return <ServersScreen backend={props.backend} host={host} />;
}

const overHttp: ServerStatus = {
  state: "running",
  summary: {
    protocolVersion: "2025-11-25",
    transport: "streamable-http",
    serverInfo: { name: "remote", version: "1" },
    capabilities: {},
    instructions: null,
  },
};

describe("a remote server's card", () => {
  it("shows the transport negotiated, no stderr tab and no Sign out without a sign-in", async () => {
    const b = new FakeBackend().addServer("remote", overHttp, { url: "https://r.example/mcp", transport: "auto" });
    render(<WithHost backend={b} />);
    expect((await screen.findByTestId("server-transport")).textContent).toBe("streamable-http · https://r.example/mcp");
    expect(screen.queryByRole("tab", { name: /Stderr/ })).toBeNull();
    await waitFor(() => expect(b.calls.some((c) => c.method === "signInInfo")).toBe(true));
    expect(screen.queryByTestId("sign-out")).toBeNull();
  });

  it("still has a stderr tab for a local server, with each argument shown on its own", async () => {
    const b = new FakeBackend().addServer("local", undefined, { command: "npx", args: ["-y", "a b"] });
    render(<WithHost backend={b} />);
    await screen.findByTestId("server-transport");
    expect(screen.getByRole("tab", { name: /Stderr/ })).toBeTruthy();
    const args = screen.getAllByTestId("command-arg").map((a) => a.textContent);
    expect(args).toEqual(['"-y"', '"a b"']);
  });
});

describe("a server's card", () => {
  it("shows what failed on the server it was pressed for, not on the next one opened", async () => {
    const b = new FakeBackend().addServer("waiting", { state: "stopped" }).addServer("other", { state: "stopped" });
    b.startServer = async () => {
      throw { code: "not_trusted", message: "waiting is not trusted yet: trust it first" };
    };
    render(<WithHost backend={b} />);
    const row = async (name: string) => (await screen.findAllByTestId("server-row")).find((r) => r.dataset.name === name)!;
    fireEvent.click(await row("waiting"));
    fireEvent.click(await screen.findByTestId("server-start"));
    expect((await screen.findByTestId("error-banner")).textContent).toContain("not trusted yet");
    fireEvent.click(await row("other"));
    await screen.findByRole("heading", { name: "other" });
    expect(screen.queryByTestId("error-banner")).toBeNull();
  });
});

describe("import", () => {
  it("offers the files found in their usual places and previews one with a click", async () => {
    const b = new FakeBackend();
    b.importFound = [{ app: "Claude Desktop", path: "/home/you/.config/Claude/claude_desktop_config.json" }];
    render(<WithHost backend={b} />);
    await act(async () => fireEvent.click(await screen.findByTestId("import-server")));
    const found = await screen.findByTestId("import-candidate");
    expect(found.textContent).toBe("Claude Desktop");
    await act(async () => fireEvent.click(found));
    await screen.findByTestId("import-apply");
    const asked = b.calls.find((c) => c.method === "importPreview");
    expect(asked?.args).toEqual(["/home/you/.config/Claude/claude_desktop_config.json"]);
  });

  it("lists the imported server beside the panel at once, and Import cannot be pressed twice", async () => {
    const b = new FakeBackend();
    render(<WithHost backend={b} />);
    await act(async () => fireEvent.click(await screen.findByTestId("import-server")));
    await act(async () => fireEvent.click(screen.getByTestId("import-choose")));
    await act(async () => fireEvent.click(await screen.findByTestId("import-apply")));
    await screen.findByTestId("import-report");
    const list = screen.getByRole("listbox", { name: "Configured servers" });
    await waitFor(() => expect(within(list).getByText("github")).toBeTruthy());
    expect((screen.getByTestId("import-apply") as HTMLButtonElement).disabled).toBe(true);
  });
});

describe("the configuration file changed outside Switchboard", () => {
  it("says on every screen when it cannot be read, reloads the list, and clears once fixed", async () => {
    const b = new FakeBackend().addServer("alpha");
    render(<App backend={b} />);
    const list = await screen.findByRole("listbox", { name: "Configured servers" });
    await waitFor(() => expect(within(list).getByText("alpha")).toBeTruthy());
    b.addServer("from-editor");
    act(() => b.emit({ type: "configChanged", error: null }));
    await waitFor(() => expect(within(list).getByText("from-editor")).toBeTruthy());
    act(() => b.emit({ type: "configChanged", error: { code: "config_invalid", message: "config.json: not valid JSON: EOF at line 3 column 1" } }));
    expect((await screen.findByTestId("config-problem")).textContent).toContain("line 3 column 1");
    act(() => b.emit({ type: "configChanged", error: null }));
    await waitFor(() => expect(screen.queryByTestId("config-problem")).toBeNull());
  });
});

describe("no OS keychain (SSH, a container, a minimal desktop)", () => {
  it("says what does not work and how to fix it, with the platform's words behind Details", async () => {
    const b = new FakeBackend().addServer("alpha");
    b.keychain = { code: "keychain", message: "The OS keychain could not be opened.", details: "there is no desktop session bus" };
    render(<App backend={b} />);
    const banner = await screen.findByTestId("keychain-problem");
    expect(banner.textContent).toContain("Sign-ins last only until Switchboard quits");
    expect(banner.textContent).toContain("gnome-keyring");
    expect(within(banner).getByTestId("error-details").textContent).toContain("no desktop session bus");
    // The servers go on: the list is there as ever.
    const list = screen.getByRole("listbox", { name: "Configured servers" });
    await waitFor(() => expect(within(list).getByText("alpha")).toBeTruthy());
  });

  it("appears when the keychain fails while the app runs", async () => {
    const b = new FakeBackend().addServer("alpha");
    render(<App backend={b} />);
    await screen.findByRole("listbox", { name: "Configured servers" });
    expect(screen.queryByTestId("keychain-problem")).toBeNull();
    act(() => b.emit({ type: "keychainProblem", error: { code: "keychain", message: "The OS keychain could not be opened." } }));
    await screen.findByTestId("keychain-problem");
  });
});

describe("a server that cannot be reached", () => {
  it("shows the sentence on the status line and what lay behind it under Details", async () => {
    const failed: ServerStatus = {
      state: "failed",
      error: { code: "connect_failed", message: 'Server "alpha" at http://127.0.0.1:1/mcp refused access (HTTP 403).', details: "HTTP 403: go away" },
    };
    const b = new FakeBackend().addServer("alpha", failed);
    render(<App backend={b} />);
    expect((await screen.findByTestId("server-status-text")).textContent).toContain("refused access (HTTP 403)");
    expect(screen.getByTestId("error-details").textContent).toContain("go away");
  });
});

describe("a server's sandbox", () => {
  it("says a local server is sandboxed, with its network, and says nothing for a remote one", async () => {
    const b = new FakeBackend()
      .addServer("boxed", undefined, { command: "npx", args: [], sandbox: { network: false } })
      .addServer("remote", overHttp, { url: "https://r.example/mcp", transport: "auto" });
    render(<WithHost backend={b} />);
    const line = await screen.findByTestId("sandbox-state");
    expect(line.textContent).toContain("Sandboxed");
    expect(line.textContent).toContain("no network");
    const row = (await screen.findAllByTestId("server-row")).find((r) => r.dataset.name === "remote")!;
    fireEvent.click(row);
    await screen.findByRole("heading", { name: "remote" });
    expect(screen.queryByTestId("sandbox-state")).toBeNull();
  });

  it("shows an unsandboxed server in warning colours and sandboxes it in one click", async () => {
    const b = new FakeBackend().addServer("old", undefined, { command: "npx", args: [] });
    b.servers[0]!.sandbox = "trusted_before";
    const asked: unknown[] = [];
    b.faked.set("sandbox_server", (args: never) => {
      asked.push(args);
      b.servers[0]!.sandbox = "sandboxed";
      return null;
    });
    render(<WithHost backend={b} />);
    const line = await screen.findByTestId("sandbox-state");
    expect(line.className).toContain("warn");
    expect(line.textContent).toContain("Not sandboxed");
    expect(line.textContent).toContain("trusted before");
    fireEvent.click(screen.getByTestId("sandbox-it"));
    await waitFor(() => expect(screen.getByTestId("sandbox-state").textContent).toContain("Sandboxed"));
    expect(asked).toEqual([{ server: "old" }]);
  });

  it("says a container server is held by its container, in no warning colours and with no Sandbox it", async () => {
    const b = new FakeBackend().addServer("weather", undefined, {
      command: "docker",
      args: ["run", "--rm", "-i", "--cap-drop=ALL", "ghcr.io/example/weather-mcp:1.4.0"],
    });
    render(<WithHost backend={b} />);
    const line = await screen.findByTestId("sandbox-state");
    expect(line.dataset.state).toBe("container");
    expect(line.textContent).toContain("In a container");
    expect(line.className).not.toContain("warn");
    expect(screen.queryByTestId("sandbox-it")).toBeNull();
  });

  it("tells the user what the sandbox refused and where to allow it", async () => {
    const b = new FakeBackend().addServer("files", undefined, { command: "npx", args: [] });
    b.servers[0]!.sandboxHint = 'The sandbox refused server "files" access to /home/u/.ssh/id_ed25519. If it needs it, allow it in the server\'s sandbox settings.';
    render(<WithHost backend={b} />);
    expect((await screen.findByTestId("sandbox-hint")).textContent).toContain("/home/u/.ssh/id_ed25519");
  });
});

describe("a server limited to listed hosts", () => {
  it("offers to allow a refused host, saving the wider box for the native dialog to confirm", async () => {
    const b = new FakeBackend().addServer("gh", undefined, {
      command: "npx",
      args: [],
      sandbox: { network: ["api.github.com"] },
    });
    b.servers[0]!.refusedHosts = ["uploads.github.com"];
    render(<WithHost backend={b} />);
    expect((await screen.findByTestId("refused-hosts")).textContent).toContain("uploads.github.com");
    fireEvent.click(screen.getByTestId("allow-host"));
    await waitFor(() => expect(b.calls.some((c) => c.method === "saveServer")).toBe(true));
    const saved = b.calls.find((c) => c.method === "saveServer")!;
    expect(saved.args[0]).toBe("gh");
    expect((saved.args[1] as { sandbox: unknown }).sandbox).toEqual({ network: ["api.github.com", "uploads.github.com"] });
    expect(saved.args[2]).toBe("gh");
  });
});

describe("a server added elsewhere", () => {
  it("appears in the list when its first status arrives (installed from the gallery, added by the CLI)", async () => {
    const b = new FakeBackend().addServer("first");
    render(<WithHost backend={b} />);
    await screen.findByTestId("server-transport");
    expect(document.querySelector('[data-testid=server-row][data-name="installed"]')).toBeNull();
    b.addServer("installed", { state: "starting", attempt: 0 });
    act(() => b.emit({ type: "status", server: "installed", status: { state: "starting", attempt: 0 } }));
    await waitFor(() => expect(document.querySelector('[data-testid=server-row][data-name="installed"]')).not.toBeNull());
  });
});

describe("a server entry that is not valid", () => {
  it("is listed as not valid with why, runs nothing, and can be removed while the others run", async () => {
    const why = 'config.json: server "vault/env": field `name`: a server\'s name must not contain `/`';
    const b = new FakeBackend()
      .addServer("good")
      .addServer("vault/env", { state: "invalid", error: { code: "config_invalid", message: why } });
    b.servers.find((s) => s.name === "vault/env")!.config = null;
    render(<WithHost backend={b} />);
    const rows = await screen.findAllByTestId("server-row");
    const bad = rows.find((r) => r.getAttribute("data-name") === "vault/env")!;
    expect(within(bad).getByText("not valid")).toBeTruthy();
    expect(rows.find((r) => r.getAttribute("data-name") === "good")!.getAttribute("data-state")).toBe("running");
    fireEvent.click(bad);
    expect((await screen.findByTestId("server-invalid-why")).textContent).toBe(why);
    expect(screen.getByTestId("server-invalid").textContent).toContain("does not run");
    expect(screen.queryByTestId("server-start")).toBeNull();
    expect(screen.queryByTestId("server-enabled")).toBeNull();
    const confirm = vi.spyOn(window, "confirm").mockReturnValue(true);
    fireEvent.click(screen.getByTestId("server-remove"));
    await waitFor(() => expect(b.calls.some((c) => c.method === "removeServer" && c.args[0] === "vault/env")).toBe(true));
    confirm.mockRestore();
  });
});
