// What the app is asked to open from outside (a .mcpb file, an install link) comes to the Gallery,
// whichever screen was showing, and opens the dialog it asks for; nothing is installed until the
// person submits that dialog.
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { App } from "../app";
import { FAKE_BUNDLE, FAKE_REGISTRY } from "../backend/fake-gallery";
import { FakeBackend } from "../backend/fake";
import type { ServerConfig } from "../bindings/ServerConfig";

function calls(b: FakeBackend, method: string): unknown[][] {
  return b.calls.filter((c) => c.method === method).map((c) => c.args);
}

/** The window on the Chat screen, with one server. */
async function onChat(): Promise<FakeBackend> {
  const b = new FakeBackend().addServer("alpha");
  render(<App backend={b} />);
  await screen.findByRole("listbox", { name: "Configured servers" });
  fireEvent.click(screen.getByRole("tab", { name: "Chat" }));
  expect(screen.getByRole("tab", { name: "Chat" }).getAttribute("aria-selected")).toBe("true");
  return b;
}

function galleryShown() {
  expect(screen.getByRole("tab", { name: "Gallery" }).getAttribute("aria-selected")).toBe("true");
}

describe("Opened from outside: a bundle file", () => {
  it("brings the Gallery forward with the bundle's dialog, and installs it only when submitted", async () => {
    const b = await onChat();
    act(() => b.emitOpened({ kind: "bundle", form: FAKE_BUNDLE }));
    const dialog = await screen.findByTestId("bundle-dialog");
    galleryShown();
    expect(within(dialog).getByRole("heading").textContent).toBe("Install Dice");
    expect(within(dialog).getByTestId("bundle-sha256").textContent).toBe(FAKE_BUNDLE.sha256);
    expect(calls(b, "installBundle")).toEqual([]);
    const sides = within(dialog)
      .getAllByTestId("install-input")
      .find((e) => e.dataset.key === "sides");
    fireEvent.change(sides!, { target: { value: "6" } });
    fireEvent.click(within(dialog).getByTestId("install-submit"));
    expect((await screen.findByTestId("gallery-notice")).textContent).toContain("Installed dice");
    expect(calls(b, "installBundle")).toEqual([["dice", { sides: "6" }]]);
    expect(calls(b, "pickBundle")).toEqual([]);
  });
});

describe("Opened from outside: an install link", () => {
  it("for a registry server opens its install dialog, named by the link", async () => {
    const b = await onChat();
    act(() =>
      b.emitOpened({
        kind: "link",
        link: { kind: "registry", registry: FAKE_REGISTRY, name: "io.github.example/weather", version: null },
      }),
    );
    const dialog = await screen.findByTestId("install-dialog");
    galleryShown();
    await within(dialog).findByTestId("install-form");
    expect(within(dialog).getByRole("heading").textContent).toBe("Install Weather");
    expect(calls(b, "installForm")).toEqual([[{ registry: FAKE_REGISTRY, name: "io.github.example/weather", version: null }]]);
    expect(calls(b, "installServer")).toEqual([]);
  });

  it("for a registry server reaches the Gallery already showing", async () => {
    const b = new FakeBackend();
    render(<App backend={b} />);
    fireEvent.click(screen.getByRole("tab", { name: "Gallery" }));
    await screen.findByRole("article", { name: "Weather" });
    act(() => b.emitOpened({ kind: "link", link: { kind: "registry", registry: null, name: "io.github.example/files", version: "1.2.0" } }));
    const dialog = await screen.findByTestId("install-dialog");
    expect(await within(dialog).findByRole("heading", { name: "Install Files" })).toBeTruthy();
    expect(calls(b, "installForm")).toEqual([[{ registry: null, name: "io.github.example/files", version: "1.2.0" }]]);
  });

  it("carrying a definition shows what it would run, hidden characters revealed, and adds it only after Add…", async () => {
    const b = await onChat();
    const config: ServerConfig = {
      command: "npx",
      args: ["-y", "@example/notes\u200B-mcp", "--dir=/home/me/notes"],
      env: { NOTES_URL: "https://notes.example.com\u202E" },
      sandbox: false,
    };
    act(() => b.emitOpened({ kind: "link", link: { kind: "definition", name: "notes", config } }));
    const dialog = await screen.findByTestId("definition-dialog");
    galleryShown();
    expect(within(dialog).getByTestId("definition-ask").textContent).toContain("A link asks to add this server");
    expect(within(dialog).getByTestId("definition-command").textContent).toBe("npx");
    expect(within(dialog).getAllByTestId("definition-arg").map((a) => a.textContent)).toEqual([
      "-y",
      "@example/notes⟨U+200B⟩-mcp",
      "--dir=/home/me/notes",
    ]);
    expect(within(dialog).getAllByTestId("definition-env").map((e) => e.textContent)).toEqual([
      "NOTES_URL=https://notes.example.com⟨U+202E⟩",
    ]);
    expect(within(dialog).getByTestId("definition-sandbox").dataset.sandbox).toBe("off");
    expect(dialog.textContent).not.toMatch(/[\u200B\u202E]/);
    expect((within(dialog).getByTestId("install-name") as HTMLInputElement).value).toBe("notes");
    expect(calls(b, "saveServer")).toEqual([]);

    fireEvent.change(within(dialog).getByTestId("install-name"), { target: { value: "my-notes" } });
    expect(calls(b, "saveServer")).toEqual([]);
    fireEvent.click(within(dialog).getByRole("button", { name: "Add…" }));
    expect((await screen.findByTestId("gallery-notice")).textContent).toContain("Installed my-notes");
    expect(calls(b, "saveServer")).toEqual([["my-notes", config, null]]);
    expect(screen.queryByTestId("definition-dialog")).toBeNull();
  });

  it("carrying a remote definition shows its URL and headers, and says calmly when it was not trusted", async () => {
    const b = await onChat();
    b.saveServer = async (...args) => {
      b.calls.push({ method: "saveServer", args });
      throw { code: "denied", message: "You did not trust it." };
    };
    const config: ServerConfig = { url: "https://mcp.example.com/mcp", headers: { "X-Team": "blue\u200B" } };
    act(() => b.emitOpened({ kind: "link", link: { kind: "definition", name: "remote", config } }));
    const dialog = await screen.findByTestId("definition-dialog");
    expect(within(dialog).getByTestId("definition-url").textContent).toBe("https://mcp.example.com/mcp");
    expect(within(dialog).getAllByTestId("definition-header").map((h) => h.textContent)).toEqual(["X-Team: blue⟨U+200B⟩"]);
    expect(within(dialog).queryByTestId("definition-command")).toBeNull();
    fireEvent.click(within(dialog).getByRole("button", { name: "Cancel" }));
    expect(screen.queryByTestId("definition-dialog")).toBeNull();

    act(() => b.emitOpened({ kind: "link", link: { kind: "definition", name: "remote", config } }));
    const again = await screen.findByTestId("definition-dialog");
    fireEvent.click(within(again).getByRole("button", { name: "Add…" }));
    expect((await within(again).findByTestId("install-declined")).textContent).toContain("Not installed");
    expect(within(again).queryByTestId("install-error")).toBeNull();
    expect(screen.queryByTestId("gallery-notice")).toBeNull();
    expect(calls(b, "saveServer")).toEqual([["remote", config, null]]);
  });
});

describe("Opened from outside: a failure", () => {
  it("shows its message in the Gallery's error banner", async () => {
    const b = await onChat();
    act(() =>
      b.emitOpened({ kind: "failed", error: { code: "invalid_input", message: "The link is not a Switchboard install link." } }),
    );
    await waitFor(() => expect(screen.getByTestId("error-banner").textContent).toContain("The link is not a Switchboard install link."));
    galleryShown();
    expect(screen.queryByRole("dialog")).toBeNull();
  });
});
