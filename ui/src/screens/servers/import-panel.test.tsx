import { act, fireEvent, render, screen } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { FakeBackend } from "../../backend/fake";
import { ImportPanel } from "./import-panel";

async function previewAndImport(b: FakeBackend) {
  render(<ImportPanel backend={b} onDone={() => {}} onImported={() => {}} />);
  await act(async () => fireEvent.click(screen.getByTestId("import-choose")));
  return screen.findByTestId("import-server");
}

describe("ImportPanel", () => {
  it("takes the file from the native picker, never a typed path; a cancelled picker changes nothing", async () => {
    const b = new FakeBackend();
    b.importFile = null;
    render(<ImportPanel backend={b} onDone={() => {}} onImported={() => {}} />);
    expect(screen.queryByRole("textbox")).toBeNull();
    await act(async () => fireEvent.click(screen.getByTestId("import-choose")));
    expect(screen.queryByTestId("import-server")).toBeNull();
    expect(screen.queryByTestId("import-apply")).toBeNull();
    expect(b.servers).toEqual([]);
  });

  it("adds a new server and says so", async () => {
    const b = new FakeBackend();
    const row = await previewAndImport(b);
    expect(row.dataset.change).toBe("new");
    // Everything it would run with, hidden characters shown.
    const runs = screen.getByTestId("import-runs").textContent ?? "";
    expect(runs).toContain("cwd: /home/me/work");
    expect(runs).toContain("envFile: /home/me/.env");
    expect(runs).toContain("env GITHUB_TOKEN=${secret:server/github/env/GITHUB_TOKEN}");
    expect(runs).toContain("env NODE_OPTIONS=--require⟨U+200B⟩/tmp/x.js");
    await act(async () => fireEvent.click(screen.getByTestId("import-apply")));
    expect((await screen.findByTestId("import-report")).textContent).toContain("Added github");
    expect(b.servers.map((s) => s.name)).toEqual(["github"]);
  });

  it("shows a server already here as unchanged, and a second import adds no copy", async () => {
    const b = new FakeBackend().addServer("github");
    const row = await previewAndImport(b);
    expect(row.dataset.change).toBe("unchanged");
    expect(row.textContent).toContain("already here");
    expect(screen.getByTestId("import-nothing")).toBeTruthy();
    await act(async () => fireEvent.click(screen.getByTestId("import-apply")));
    expect((await screen.findByTestId("import-report")).textContent).toContain("Nothing changed.");
    expect(b.servers.map((s) => s.name)).toEqual(["github"]);
  });
});
