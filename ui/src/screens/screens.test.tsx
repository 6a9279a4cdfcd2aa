import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeBackend } from "../backend/fake";
import { useHost } from "../host";
import type { Prompt } from "../mcp";
import { withAppStyles } from "../test-styles";
import { PromptPanel, PromptsScreen } from "./prompts";
import { expandTemplate, ResourcesScreen, templateVars } from "./resources";
import { RootsScreen } from "./roots";
import { ServersScreen } from "./servers";
import type { ToolSelection } from "./tools";
import { ToolsScreen } from "./tools";

function WithHost(props: { backend: FakeBackend; screen: "servers" | "resources" | "roots" | "tools" }) {
  const host = useHost(props.backend);
  const [tools, setTools] = useState<ToolSelection>({ server: null, tools: {} });
  if (props.screen === "servers") return <ServersScreen backend={props.backend} host={host} />;
  if (props.screen === "tools") return <ToolsScreen backend={props.backend} host={host} selection={tools} onSelect={setTools} />;
  if (props.screen === "roots") return <RootsScreen backend={props.backend} host={host} />;
  return <ResourcesScreen backend={props.backend} host={host} listHeight={440} />;
}

describe("Servers screen: sign-in", () => {
  const needsSignIn = {
    state: "failed" as const,
    error: { code: "auth_required" as const, message: 'server "tracker" at https://t.example/mcp: the server requires sign-in' },
  };

  it("offers Sign in when the server asks for it, waits for the browser, and can cancel", async () => {
    const b = new FakeBackend().addServer("tracker", needsSignIn, { url: "https://t.example/mcp" });
    render(<WithHost backend={b} screen="servers" />);
    // Asking, not failing.
    expect((await screen.findByTestId("server-status-text")).textContent).toBe("Sign in required");
    expect(screen.getByTestId("server-row").textContent).toContain("sign in");
    await userEvent.click(await screen.findByTestId("sign-in"));
    expect(await screen.findByTestId("sign-in-waiting")).toBeTruthy();
    expect(b.calls.filter((c) => c.method === "signInServer").map((c) => c.args)).toEqual([["tracker"]]);
    await userEvent.click(screen.getByTestId("sign-in-cancel"));
    // Cancelled: back to the offer, with no error (the person chose it).
    expect(await screen.findByTestId("sign-in")).toBeTruthy();
    expect(screen.queryByTestId("sign-in-error")).toBeNull();
    expect(b.calls.some((c) => c.method === "cancelSignIn")).toBe(true);

    await userEvent.click(screen.getByTestId("sign-in"));
    await screen.findByTestId("sign-in-waiting");
    act(() => b.finishSignIn());
    await waitFor(() => expect(screen.getByTestId("server-status-text").textContent).toMatch(/^Running/));
    expect(screen.queryByTestId("sign-in-required")).toBeNull();
    await userEvent.click(await screen.findByTestId("sign-out"));
    expect(b.calls.some((c) => c.method === "signOutServer" && c.args[0] === "tracker")).toBe(true);
  });

  it("offers no sign-in to a local server or for another failure", async () => {
    const b = new FakeBackend()
      .addServer("local", { state: "failed", error: { code: "auth_required", message: "x" } })
      .addServer("remote", { state: "failed", error: { code: "connect_failed", message: "refused" } }, { url: "https://r.example/mcp" });
    render(<WithHost backend={b} screen="servers" />);
    await screen.findByTestId("server-status-text");
    expect(screen.queryByTestId("sign-in")).toBeNull();
    await userEvent.click(await screen.findByText("remote"));
    await waitFor(() => expect(screen.getByTestId("server-status-text").textContent).toMatch(/refused/));
    expect(screen.queryByTestId("sign-in")).toBeNull();
  });
});

describe("Servers screen: trust", () => {
  it("says a server waits for trust and asks the native dialog through trustServer", async () => {
    const b = new FakeBackend().addServer("fs", { state: "needsTrust" }, { command: "npx", args: ["-y", "x"] });
    b.trustAnswer = false;
    render(<WithHost backend={b} screen="servers" />);
    expect((await screen.findByTestId("server-status-text")).textContent).toMatch(/Not trusted yet/);
    expect(screen.getByTestId("server-row").textContent).toContain("needs trust");
    await userEvent.click(screen.getByTestId("trust-server"));
    // Declined in the dialog: still waiting, nothing started.
    await waitFor(() => expect(b.calls.filter((c) => c.method === "trustServer").length).toBe(1));
    expect(screen.getByTestId("needs-trust")).toBeTruthy();
    b.trustAnswer = true;
    await userEvent.click(screen.getByTestId("trust-server"));
    await waitFor(() => expect(screen.getByTestId("server-status-text").textContent).toMatch(/^Running/));
    expect(screen.queryByTestId("needs-trust")).toBeNull();
    expect(b.calls.filter((c) => c.method === "trustServer").map((c) => c.args)).toEqual([["fs"], ["fs"]]);
  });
});

describe("Servers screen: a sign-in that ended, and who is signed in", () => {
  it("says a sign-in ended and offers to sign in again", async () => {
    const ended = {
      state: "failed" as const,
      error: { code: "sign_in_expired" as const, message: 'server "tracker" no longer accepts the sign-in' },
    };
    const b = new FakeBackend().addServer("tracker", ended, { url: "https://t.example/mcp" });
    render(<WithHost backend={b} screen="servers" />);
    expect((await screen.findByTestId("server-status-text")).textContent).toBe("Sign in required");
    expect(screen.getByTestId("sign-in-required").textContent).toMatch(/no longer accepts your sign-in/);
    await userEvent.click(screen.getByTestId("sign-in"));
    act(() => b.finishSignIn());
    await waitFor(() => expect(screen.getByTestId("server-status-text").textContent).toMatch(/^Running/));
  });

  it("shows who is signed in, where and for what", async () => {
    const b = new FakeBackend().addServer("tracker", undefined, { url: "https://t.example/mcp" });
    b.signIns["tracker"] = { issuer: "https://auth.t.example", account: "ada@example.com", scopes: ["read", "write"] };
    render(<WithHost backend={b} screen="servers" />);
    expect((await screen.findByTestId("signed-in-as")).textContent).toBe(
      "Signed in as ada@example.com at https://auth.t.example · read write. ",
    );
    await userEvent.click(screen.getByTestId("sign-out"));
    expect(b.calls.some((c) => c.method === "signOutServer")).toBe(true);
  });

  it("shows nothing about a sign-in, not even Sign out, on a remote server nobody signed in to", async () => {
    const b = new FakeBackend().addServer("open", undefined, { url: "https://o.example/mcp" });
    render(<WithHost backend={b} screen="servers" />);
    await screen.findByTestId("server-transport");
    await waitFor(() => expect(b.calls.some((c) => c.method === "signInInfo")).toBe(true));
    expect(screen.queryByTestId("signed-in-as")).toBeNull();
    expect(screen.queryByTestId("sign-out")).toBeNull();
  });
});

describe("Servers screen", () => {
  it("shows live status: running details, a restart countdown and the failure reason", async () => {
    const b = new FakeBackend().addServer("alpha").addServer("beta", {
      state: "restarting",
      attempt: 2,
      retryInMs: 5000,
      error: { code: "transport_closed", message: "server exited (exit status: 1)" },
    });
    b.addServer("gamma", { state: "failed", error: { code: "spawn_failed", message: "no such program: nope" } });
    render(<WithHost backend={b} screen="servers" />);
    await screen.findByText("alpha", { selector: ".name" });
    // The first server is selected once the list has loaded.
    expect((await screen.findByTestId("server-status-text")).textContent).toBe("Running · 2025-11-25");
    expect(screen.getByText("Use alpha for testing.")).toBeTruthy();

    fireEvent.click(screen.getByText("beta", { selector: ".name" }));
    expect(screen.getByTestId("server-status-text").textContent).toMatch(/^Restarting in 5 s \(attempt 2\) — server exited/);
    fireEvent.click(screen.getByText("gamma", { selector: ".name" }));
    expect(screen.getByTestId("server-status-text").textContent).toBe("Failed — no such program: nope");

    // A status event updates the row without a reload.
    act(() => b.emit({ type: "status", server: "gamma", status: { state: "starting", attempt: 0 } }));
    const row = screen.getAllByTestId("server-row").find((r) => r.dataset["name"] === "gamma");
    expect(row?.dataset["state"]).toBe("starting");
  });

  it("adds a server from the form with the config the user typed", async () => {
    const b = new FakeBackend();
    render(<WithHost backend={b} screen="servers" />);
    await screen.findByText("No servers yet.");
    fireEvent.click(screen.getByTestId("add-server"));
    fireEvent.change(screen.getByTestId("server-name"), { target: { value: "files" } });
    fireEvent.change(screen.getByTestId("server-command"), { target: { value: "npx" } });
    fireEvent.change(screen.getByTestId("server-args"), { target: { value: "-y\n@modelcontextprotocol/server-filesystem\n" } });
    fireEvent.change(screen.getByTestId("server-env"), { target: { value: "TOKEN=${secret:files.TOKEN}\nDEBUG=1" } });
    fireEvent.click(screen.getByTestId("server-save"));
    await waitFor(() => expect(b.calls.some((c) => c.method === "saveServer")).toBe(true));
    const call = b.calls.find((c) => c.method === "saveServer");
    expect(call?.args[0]).toBe("files");
    expect(call?.args[1]).toMatchObject({
      command: "npx",
      args: ["-y", "@modelcontextprotocol/server-filesystem"],
      env: { TOKEN: "${secret:files.TOKEN}", DEBUG: "1" },
      enabled: true,
      url: null,
    });
    expect(call?.args[2]).toBeNull();
    await screen.findByText("files", { selector: ".name" });
  });

  it("keeps the form and shows the backend's message when saving fails", async () => {
    const b = new FakeBackend().addServer("files");
    render(<WithHost backend={b} screen="servers" />);
    await screen.findByText("files", { selector: ".name" });
    fireEvent.click(screen.getByTestId("add-server"));
    fireEvent.change(screen.getByTestId("server-name"), { target: { value: "files" } });
    fireEvent.click(screen.getByTestId("server-save"));
    expect((await screen.findByTestId("error-banner")).textContent).toBe('a server named "files" already exists');
    expect((screen.getByTestId("server-name") as HTMLInputElement).value).toBe("files");
  });
});

describe("Servers screen: selection, order and layout", () => {
  const names = () => screen.getAllByTestId("server-row").map((r) => r.dataset["name"]);
  const chosen = () => screen.getAllByTestId("server-row").find((r) => r.getAttribute("aria-selected") === "true")?.dataset["name"];

  it("selects a server just added", async () => {
    const b = new FakeBackend().addServer("alpha");
    render(<WithHost backend={b} screen="servers" />);
    await screen.findByText("alpha", { selector: ".name" });
    fireEvent.click(screen.getByTestId("add-server"));
    fireEvent.change(screen.getByTestId("server-name"), { target: { value: "files" } });
    fireEvent.change(screen.getByTestId("server-command"), { target: { value: "npx" } });
    fireEvent.click(screen.getByTestId("server-save"));
    await screen.findByText("files", { selector: ".name" });
    expect(chosen()).toBe("files");
    expect(screen.getByRole("heading", { level: 2, name: "files" })).toBeTruthy();
  });

  it("keeps an edited (and renamed) server in its place, selected", async () => {
    const b = new FakeBackend().addServer("alpha").addServer("beta").addServer("gamma");
    render(<WithHost backend={b} screen="servers" />);
    fireEvent.click(await screen.findByText("beta", { selector: ".name" }));
    fireEvent.click(screen.getByText("Edit"));
    fireEvent.change(screen.getByTestId("server-name"), { target: { value: "beta2" } });
    fireEvent.click(screen.getByTestId("server-save"));
    await screen.findByText("beta2", { selector: ".name" });
    // The backend lists the renamed server last; the window keeps it where it was.
    expect(b.servers.map((s) => s.name)).toEqual(["alpha", "gamma", "beta2"]);
    expect(names()).toEqual(["alpha", "beta2", "gamma"]);
    expect(chosen()).toBe("beta2");
    fireEvent.click(screen.getByText("Edit"));
    fireEvent.change(screen.getByTestId("server-command"), { target: { value: "node" } });
    fireEvent.click(screen.getByTestId("server-save"));
    await waitFor(() => expect(b.servers.find((s) => s.name === "beta2")?.config?.command).toBe("node"));
    await waitFor(() => expect(screen.queryByTestId("server-save")).toBeNull());
    await act(() => new Promise((r) => setTimeout(r, 0)));
    expect(names()).toEqual(["alpha", "beta2", "gamma"]);
    expect(chosen()).toBe("beta2");
  });

  describe("with the app's styles", () => {
    let removeStyles: () => void = () => undefined;
    beforeEach(() => {
      removeStyles = withAppStyles();
    });
    afterEach(() => removeStyles());

    it("keeps the buttons out of the status text's way", async () => {
      const b = new FakeBackend().addServer("alpha");
      render(<WithHost backend={b} screen="servers" />);
      const status = await screen.findByTestId("server-status-text");
      const actions = screen.getByTestId("server-restart").closest(".actions")!;
      // Not in the row of the buttons, and of a fixed height whatever its text.
      expect(actions.contains(status) || actions.parentElement!.contains(status)).toBe(false);
      expect(getComputedStyle(status).height).toBe("2.9em");
      expect(getComputedStyle(status).overflow).toBe("clip");
      // Start and Stop take each other's place at one width.
      expect(getComputedStyle(screen.getByTestId("server-stop")).minWidth).toBe("4.5em");
      fireEvent.click(screen.getByTestId("server-stop"));
      expect(getComputedStyle(await screen.findByTestId("server-start")).minWidth).toBe("4.5em");
    });
  });
});

describe("Tools screen", () => {
  it("calls a tool and can cancel a call in flight", async () => {
    const b = new FakeBackend().addServer("everything");
    render(<WithHost backend={b} screen="tools" />);
    fireEvent.click(await screen.findByText("Echo"));
    expect(screen.getByText("read-only")).toBeTruthy();
    fireEvent.change(screen.getByTestId("arg-message"), { target: { value: "hi" } });
    fireEvent.click(screen.getByTestId("call-tool"));
    expect((await screen.findByTestId("tool-result")).textContent).toContain("Echo: hi");

    b.holdCalls = true;
    fireEvent.click(screen.getByTestId("call-tool"));
    const cancel = await screen.findByTestId("cancel-call");
    act(() => b.onProgress?.({ progress: 1, total: 4, message: "step 1 of 4" }));
    expect(screen.getByText(/step 1 of 4/)).toBeTruthy();
    expect((document.querySelector("progress") as HTMLProgressElement).value).toBe(1);
    fireEvent.click(cancel);
    expect((await screen.findByTestId("error-banner")).textContent).toBe("Cancelled; the server was told.");
    expect(b.calls.some((c) => c.method === "cancelCall")).toBe(true);
  });
});

describe("Tools screen: more access", () => {
  it("offers to sign in for more scopes when a call is refused for them, then repeats the call", async () => {
    const b = new FakeBackend().addServer("everything");
    b.callFailures.push({ code: "insufficient_scope", message: "the server needs more access than was granted at sign-in" });
    render(<WithHost backend={b} screen="tools" />);
    fireEvent.click(await screen.findByText("Echo"));
    fireEvent.change(screen.getByTestId("arg-message"), { target: { value: "hi" } });
    fireEvent.click(screen.getByTestId("call-tool"));
    expect((await screen.findByTestId("error-banner")).textContent).toMatch(/needs more access/);
    await userEvent.click(screen.getByTestId("sign-in-more-access"));
    expect(await screen.findByTestId("sign-in-waiting")).toBeTruthy();
    act(() => b.finishSignIn());
    expect((await screen.findByTestId("tool-result")).textContent).toContain("Echo: hi");
    expect(b.calls.map((c) => c.method).filter((m) => m === "callTool" || m === "signInServer")).toEqual([
      "callTool",
      "signInServer",
      "callTool",
    ]);
    expect(screen.queryByTestId("error-banner")).toBeNull();
  });

  it("offers no sign-in for other failures", async () => {
    const b = new FakeBackend().addServer("everything");
    b.callFailures.push({ code: "server_error", message: "boom" });
    render(<WithHost backend={b} screen="tools" />);
    fireEvent.click(await screen.findByText("Echo"));
    fireEvent.change(screen.getByTestId("arg-message"), { target: { value: "hi" } });
    fireEvent.click(screen.getByTestId("call-tool"));
    expect((await screen.findByTestId("error-banner")).textContent).toBe("boom");
    expect(screen.queryByTestId("sign-in-more-access")).toBeNull();
  });
});

describe("Tools screen: a server that stops", () => {
  it("stays picked, marked not running, until it is back", async () => {
    const b = new FakeBackend().addServer("alpha").addServer("beta");
    render(<WithHost backend={b} screen="tools" />);
    const picker = (await screen.findByTestId("server-picker")) as HTMLSelectElement;
    // Chosen once it is offered: the picker is on screen before the server list has loaded (a
    // busy machine showed the change landing on a picker with no "beta" yet).
    await waitFor(() => expect(picker.value).toBe("alpha"));
    fireEvent.change(picker, { target: { value: "beta" } });
    await waitFor(() => expect(picker.value).toBe("beta"));
    act(() => b.emit({ type: "status", server: "beta", status: { state: "starting", attempt: 0 } }));
    await waitFor(() => expect(picker.selectedOptions[0]?.textContent).toBe("beta (not running)"));
    expect(picker.value).toBe("beta");
    await act(async () => {
      await b.startServer("beta");
    });
    await waitFor(() => expect(picker.selectedOptions[0]?.textContent).toBe("beta"));
  });
});

describe("Tools screen: search and checks", () => {
  it("filters the list with the search box", async () => {
    const b = new FakeBackend().addServer("everything");
    render(<WithHost backend={b} screen="tools" />);
    await screen.findByText("Echo");
    fireEvent.change(screen.getByTestId("tool-search"), { target: { value: "STRUCT" } });
    expect(screen.getAllByTestId("tool-item").map((t) => t.dataset["name"])).toEqual(["weather"]);
    fireEvent.change(screen.getByTestId("tool-search"), { target: { value: "nothing like it" } });
    expect(screen.queryAllByTestId("tool-item")).toHaveLength(0);
    expect(screen.getByText(/No tool matches/)).toBeTruthy();
  });

  it("holds Call back until the arguments are right, saying why beside it", async () => {
    const b = new FakeBackend().addServer("everything");
    render(<WithHost backend={b} screen="tools" />);
    fireEvent.click(await screen.findByText("Echo"));
    const call = screen.getByTestId("call-tool") as HTMLButtonElement;
    expect(call.disabled).toBe(true);
    expect(screen.getByTestId("call-needs").textContent).toBe("message is required");
    // The form does not scold a field nobody has been in yet.
    expect(screen.queryByRole("alert")).toBeNull();
    fireEvent.change(screen.getByTestId("arg-message"), { target: { value: "hi" } });
    expect(call.disabled).toBe(false);
    expect(screen.queryByTestId("call-needs")).toBeNull();

    fireEvent.click(screen.getByText("weather"));
    fireEvent.change(await screen.findByTestId("arg-days"), { target: { value: "2.5" } });
    expect((screen.getByTestId("call-tool") as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByTestId("call-needs").textContent).toBe("days must be a whole number");
    fireEvent.click(screen.getByTestId("call-tool"));
    expect(b.calls.some((c) => c.method === "callTool")).toBe(false);
  });

  it("names a tool by its title with its name beneath, or by its name alone", async () => {
    const b = new FakeBackend().addServer("everything");
    render(<WithHost backend={b} screen="tools" />);
    await screen.findByText("Echo");
    const item = (name: string) => screen.getAllByTestId("tool-item").find((t) => t.dataset["name"] === name)!;
    expect(item("echo").querySelector("strong")?.textContent).toBe("Echo");
    expect(item("echo").querySelector("[data-testid=item-name]")?.textContent).toBe("echo");
    expect(item("weather").querySelector("strong")?.textContent).toBe("weather");
    expect(item("weather").querySelector("[data-testid=item-name]")).toBeNull();
  });
});

describe("Resources screen", () => {
  it("pages through 100,000 resources with a bounded DOM and searches what is loaded", async () => {
    const b = new FakeBackend({ resources: 100_000 }).addServer("big");
    render(<WithHost backend={b} screen="resources" />);
    await waitFor(() => expect(screen.getByTestId("resource-count").textContent).toMatch(/^100 loaded/));
    const list = screen.getByTestId("resource-list");
    // 440 px of 44 px rows plus overscan: a few dozen rows, never thousands.
    expect(screen.getAllByTestId("resource-row").length).toBeLessThanOrEqual(30);
    for (let page = 2; page <= 5; page++) {
      fireEvent.scroll(list, { target: { scrollTop: (page - 1) * 100 * 44 } });
      await waitFor(() => expect(screen.getByTestId("resource-count").textContent).toMatch(new RegExp(`^${page * 100} loaded`)));
    }
    expect(screen.getAllByTestId("resource-row").length).toBeLessThanOrEqual(40);
    expect(screen.getByTestId("resource-count").textContent).toContain("more available");
    fireEvent.change(screen.getByTestId("resource-search"), { target: { value: "resource 42" } });
    const rows = screen.getAllByTestId("resource-row").map((r) => r.dataset["uri"]);
    expect(rows).toEqual(["demo://r/42", "demo://r/420", "demo://r/421", "demo://r/422", "demo://r/423", "demo://r/424", "demo://r/425", "demo://r/426", "demo://r/427", "demo://r/428", "demo://r/429"]);
  });

  it("reads an image resource into the viewer", async () => {
    const b = new FakeBackend().addServer("media");
    render(<WithHost backend={b} screen="resources" />);
    fireEvent.click(await screen.findByText("image.png"));
    const viewer = await screen.findByTestId("resource-viewer");
    await waitFor(() => expect(viewer.querySelector("img")?.getAttribute("src")).toMatch(/^data:image\/png;base64,/));
    expect(screen.getByTestId("resource-subscribe")).toBeTruthy();
  });

  it("completes template variables as the user types", async () => {
    const b = new FakeBackend().addServer("geo");
    render(<WithHost backend={b} screen="resources" />);
    const input = await screen.findByTestId("template-var-city");
    fireEvent.change(input, { target: { value: "P" } });
    const options = await screen.findAllByTestId("completion-option");
    expect(options.map((o) => o.textContent)).toEqual(["Paris", "Prague"]);
    fireEvent.keyDown(input, { key: "ArrowDown" });
    fireEvent.keyDown(input, { key: "ArrowDown" });
    fireEvent.keyDown(input, { key: "Enter" });
    expect((input as HTMLInputElement).value).toBe("Prague");
    fireEvent.click(screen.getByTestId("template-read"));
    await waitFor(() => expect(b.calls.some((c) => c.method === "readResource" && c.args[1] === "demo://city/Prague")).toBe(true));
  });

  it("expands URI templates by RFC 6570", () => {
    expect(templateVars("demo://{a}/x{?b,c}")).toEqual(["a", "b", "c"]);
    expect(expandTemplate("demo://{a}/x{?b,c}", { a: "a b", b: "1" })).toBe("demo://a%20b/x?b=1");
    expect(expandTemplate("file://{+path}", { path: "/tmp/a b" })).toBe("file:///tmp/a%20b");
    // Path-style parameters are named; a prefix takes the first characters only.
    expect(templateVars("demo://m{;x,y}/{z:3}")).toEqual(["x", "y", "z"]);
    expect(expandTemplate("demo://m{;x,y}", { x: "1", y: "" })).toBe("demo://m;x=1");
    expect(expandTemplate("demo://{z:3}/", { z: "abcdef" })).toBe("demo://abc/");
    expect(expandTemplate("demo://{/p*}{#f}", { p: "a b", f: "x/y" })).toBe("demo:///a%20b#x/y");
  });

  it("reads a template on the first click of Read, with no suggestion left over it", async () => {
    const b = new FakeBackend().addServer("geo");
    const user = userEvent.setup();
    render(<WithHost backend={b} screen="resources" />);
    const input = await screen.findByTestId("template-var-city");
    await user.type(input, "Paris");
    // The only suggestion is what was typed: no list to cover the button below.
    await waitFor(() => expect(b.calls.filter((c) => c.method === "complete").pop()?.args[3]).toBe("Paris"));
    await act(() => new Promise((r) => setTimeout(r, 50)));
    expect(screen.queryAllByTestId("completion-option")).toHaveLength(0);
    await user.click(screen.getByTestId("template-read"));
    await waitFor(() => expect(b.calls.filter((c) => c.method === "readResource").map((c) => c.args[1])).toEqual(["demo://city/Paris"]));

    // With suggestions open, leaving the field closes them at once.
    await user.clear(input);
    await user.type(input, "P");
    await screen.findAllByTestId("completion-option");
    await user.click(screen.getByTestId("template-read"));
    expect(screen.queryAllByTestId("completion-option")).toHaveLength(0);
    await waitFor(() => expect(b.calls.filter((c) => c.method === "readResource")).toHaveLength(2));
    expect(b.calls.filter((c) => c.method === "readResource").pop()?.args[1]).toBe("demo://city/P");

    // Enter in a field reads too.
    await user.type(input, "rague{Enter}");
    await waitFor(() => expect(b.calls.filter((c) => c.method === "readResource").pop()?.args[1]).toBe("demo://city/Prague"));
  });

  it("shows a text blob as text and says why Attach to chat is disabled", async () => {
    const b = new FakeBackend().addServer("files");
    const text = "Hello, blob — in UTF-8.";
    b.readResource = async (_server: string, uri: string) => ({
      contents: [{ uri, mimeType: "text/plain; charset=utf-8", blob: btoa(String.fromCharCode(...new TextEncoder().encode(text))) }],
    });
    render(<WithHost backend={b} screen="resources" />);
    fireEvent.click(await screen.findByText("resource 1"));
    const viewer = await screen.findByTestId("resource-viewer");
    await waitFor(() => expect(viewer.querySelector("pre")?.textContent).toBe(text));
    expect(viewer.textContent).not.toContain("Binary");
    const attach = screen.getByText("Attach to chat") as HTMLButtonElement;
    expect(attach.disabled).toBe(true);
    expect(attach.title).toMatch(/type @/);
    expect(screen.getByTestId("attach-hint").textContent).toBe(attach.title);
    expect(attach.getAttribute("aria-describedby")).toBe(screen.getByTestId("attach-hint").id);
  });
});

describe("Prompts", () => {
  it("completes an argument with the other arguments as context and previews the messages", async () => {
    const b = new FakeBackend().addServer("everything");
    const prompt = (await b.listPrompts("everything"))[0]!;
    render(<PromptPanel backend={b} server="everything" prompt={prompt} />);
    expect((screen.getByTestId("get-prompt") as HTMLButtonElement).disabled).toBe(true);
    fireEvent.change(screen.getByTestId("prompt-arg-department"), { target: { value: "Eng" } });
    fireEvent.mouseDown(await screen.findByText("Engineering"));
    fireEvent.change(screen.getByTestId("prompt-arg-name"), { target: { value: "A" } });
    expect((await screen.findAllByTestId("completion-option")).map((o) => o.textContent)).toEqual(["Alice"]);
    const call = b.calls.filter((c) => c.method === "complete").pop();
    expect(call?.args[4]).toEqual({ department: "Engineering" });
    fireEvent.mouseDown(screen.getByText("Alice"));
    fireEvent.click(screen.getByTestId("get-prompt"));
    expect((await screen.findByTestId("prompt-preview")).textContent).toContain("Promote Alice to head of Engineering.");
  });
});

describe("Prompts screen", () => {
  it("shows the picked server's prompts, not a late answer for the server picked before", async () => {
    let answerFirst: (p: Prompt[]) => void = () => undefined;
    class Slow extends FakeBackend {
      override async listPrompts(server: string): Promise<Prompt[]> {
        if (server === "first") return new Promise((r) => (answerFirst = r));
        return [{ name: "second-prompt" }];
      }
    }
    const b = new Slow().addServer("first").addServer("second");
    function Screen() {
      return <PromptsScreen backend={b} host={useHost(b)} />;
    }
    render(<Screen />);
    const picker = (await screen.findByTestId("server-picker")) as HTMLSelectElement;
    await waitFor(() => expect(picker.value).toBe("first"));
    fireEvent.change(picker, { target: { value: "second" } });
    await screen.findByText("second-prompt");
    await act(async () => answerFirst([{ name: "first-prompt" }]));
    expect(screen.queryByText("first-prompt")).toBeNull();
    expect(screen.getByText("second-prompt")).toBeTruthy();
  });
});

describe("Prompts screen: search and names", () => {
  it("filters by name, title and description, and names each prompt as the Tools screen does", async () => {
    class Several extends FakeBackend {
      override async listPrompts(): Promise<Prompt[]> {
        return [
          { name: "team", title: "Team Management", description: "Promotes someone" },
          { name: "simple-prompt", description: "A prompt without arguments" },
          { name: "sum", title: "Summarize", description: "Shortens a text" },
        ];
      }
    }
    const b = new Several().addServer("everything");
    function Screen() {
      return <PromptsScreen backend={b} host={useHost(b)} />;
    }
    render(<Screen />);
    await screen.findByText("Team Management");
    const item = (name: string) => screen.getAllByTestId("prompt-item").find((p) => p.dataset["name"] === name)!;
    expect(item("team").querySelector("strong")?.textContent).toBe("Team Management");
    expect(item("team").querySelector("[data-testid=item-name]")?.textContent).toBe("team");
    expect(item("simple-prompt").querySelector("strong")?.textContent).toBe("simple-prompt");
    expect(item("simple-prompt").querySelector("[data-testid=item-name]")).toBeNull();

    const names = () => screen.queryAllByTestId("prompt-item").map((p) => p.dataset["name"]);
    const search = screen.getByTestId("prompt-search");
    fireEvent.change(search, { target: { value: "SUMMAR" } });
    expect(names()).toEqual(["sum"]);
    fireEvent.change(search, { target: { value: "without" } });
    expect(names()).toEqual(["simple-prompt"]);
    fireEvent.change(search, { target: { value: "team" } });
    expect(names()).toEqual(["team"]);
    fireEvent.change(search, { target: { value: "nothing like it" } });
    expect(names()).toEqual([]);
    expect(screen.getByText("No prompt matches “nothing like it”.")).toBeTruthy();
  });
});

describe("Roots screen", () => {
  it("adds, rejects, removes and overrides roots", async () => {
    const b = new FakeBackend().addServer("files");
    render(<WithHost backend={b} screen="roots" />);
    fireEvent.change(await screen.findByTestId("root-path"), { target: { value: "/work/project" } });
    fireEvent.click(screen.getByTestId("root-add"));
    await screen.findByText("/work/project");
    expect(b.roots.global).toEqual(["/work/project"]);

    fireEvent.change(screen.getByTestId("root-path"), { target: { value: "relative/path" } });
    fireEvent.click(screen.getByTestId("root-add"));
    expect((await screen.findByTestId("error-banner")).textContent).toBe("relative/path is not a folder on this computer");
    expect((screen.getByTestId("root-path") as HTMLInputElement).value).toBe("relative/path");

    fireEvent.click(screen.getByTestId("root-pick"));
    await screen.findByText("/home/you/picked");

    fireEvent.click(screen.getByLabelText(/uses its own roots/));
    await waitFor(() => expect(b.roots.servers["files"]).toEqual(["/work/project", "/home/you/picked"]));

    fireEvent.click(screen.getByLabelText("Remove /work/project", { selector: "[data-testid=roots-global] button" }));
    await waitFor(() => expect(b.roots.global).toEqual(["/home/you/picked"]));
  });
});
