// The server form's sandbox section: what it saves, and that an untouched default writes nothing.
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { FakeBackend } from "../../backend/fake";
import type { ServerConfig } from "../../bindings/ServerConfig";
import type { ServerView } from "../../bindings/ServerView";
import { sandboxFields, sandboxSetting } from "./sandbox-fields";
import { isPlainHttp, SandboxLine } from "./sandbox-line";
import { ServerForm } from "./server-form";

function view(config: ServerConfig): ServerView {
  return {
    name: "files",
    status: { state: "stopped" },
    stderrTail: [],
    config,
    sandbox: "sandboxed",
    sandboxHint: null,
    refusedHosts: [],
  };
}

async function saved(b: FakeBackend): Promise<ServerConfig> {
  await waitFor(() => expect(b.calls.some((c) => c.method === "saveServer")).toBe(true));
  return b.calls.find((c) => c.method === "saveServer")!.args[1] as ServerConfig;
}

describe("the sandbox fields", () => {
  it("leave an untouched default unwritten, and keep what the file had", () => {
    expect(sandboxSetting(sandboxFields(undefined), undefined)).toBeUndefined();
    expect(sandboxSetting(sandboxFields(true), true)).toBe(true);
    const profile = { write: ["/srv/out"], network: false as const };
    expect(sandboxSetting(sandboxFields(profile), profile)).toEqual(profile);
    expect(sandboxSetting(sandboxFields(false), false)).toBe(false);
  });

  it("save a narrower network and another path from the form", async () => {
    const b = new FakeBackend();
    render(<ServerForm backend={b} original={view({ command: "npx", args: ["-y", "server"] })} onDone={() => {}} />);
    fireEvent.change(screen.getByTestId("sandbox-network"), { target: { value: "hosts" } });
    fireEvent.change(screen.getByTestId("sandbox-hosts"), { target: { value: "api.github.com\n*.example.com" } });
    fireEvent.change(screen.getByTestId("sandbox-write"), { target: { value: "/home/u/drafts" } });
    fireEvent.click(screen.getByTestId("server-save"));
    expect((await saved(b)).sandbox).toEqual({ write: ["/home/u/drafts"], network: ["api.github.com", "*.example.com"] });
  });

  it("save the sandbox off when it is unticked, and say what that means", async () => {
    const b = new FakeBackend();
    render(<ServerForm backend={b} original={view({ command: "npx", args: [] })} onDone={() => {}} />);
    fireEvent.click(screen.getByTestId("sandbox-on"));
    expect(screen.getByTestId("sandbox-fields").textContent).toContain("all of your rights");
    fireEvent.click(screen.getByTestId("server-save"));
    expect((await saved(b)).sandbox).toBe(false);
  });

  it("save a server edited elsewhere without adding a sandbox key", async () => {
    const b = new FakeBackend();
    render(<ServerForm backend={b} original={view({ command: "npx", args: [] })} onDone={() => {}} />);
    fireEvent.click(screen.getByTestId("server-save"));
    expect("sandbox" in (await saved(b))).toBe(false);
  });
});

describe("a remote server's line", () => {
  it("marks plain http to another computer, and nothing else", () => {
    expect(isPlainHttp("http://mcp.example.com/mcp")).toBe(true);
    expect(isPlainHttp("http://192.168.1.20:8080/mcp")).toBe(true);
    for (const fine of ["https://mcp.example.com/mcp", "http://127.0.0.1:3000/mcp", "http://localhost:3000/", "http://[::1]:9/", "not a url", null]) {
      expect(isPlainHttp(fine)).toBe(false);
    }
    const remote = (url: string): ServerView => ({ ...view({ url }), sandbox: "remote" });
    const { rerender } = render(<SandboxLine server={remote("http://mcp.example.com/mcp")} busy={false} onSandbox={() => {}} onAllowHost={() => {}} />);
    expect(screen.getByTestId("plain-http").textContent).toContain("Not encrypted");
    rerender(<SandboxLine server={remote("https://mcp.example.com/mcp")} busy={false} onSandbox={() => {}} onAllowHost={() => {}} />);
    expect(screen.queryByTestId("plain-http")).toBeNull();
  });
});
