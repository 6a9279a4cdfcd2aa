// The tool sets, on the Tools screen: made from tools of several servers, renamed (the chats
// limited to a set follow it), changed and deleted; what the core refuses is said in its words.
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { FakeBackend } from "../backend/fake";
import { Tools, callsOf } from "./tools-test-helpers";

async function openSets(b: FakeBackend) {
  render(<Tools backend={b} />);
  fireEvent.click(await screen.findByTestId("tool-sets-open"));
  return screen.findByTestId("tool-sets");
}

/** The checkbox of `tool` of `server` in the set being edited (once the servers' tools are read). */
async function member(server: string, tool: string) {
  await waitFor(() => expect(screen.getAllByTestId("tool-set-server").length).toBeGreaterThan(0));
  return (await screen.findAllByTestId("tool-set-member")).find(
    (m) => m.dataset["server"] === server && m.dataset["tool"] === tool,
  ) as HTMLInputElement;
}

function listed() {
  return screen.queryAllByTestId("tool-set").map((s) => s.dataset["name"]);
}

describe("Tools screen: tool sets", () => {
  it("makes a set of tools from two servers", async () => {
    const b = new FakeBackend().addServer("everything").addServer("weatherman");
    await openSets(b);
    expect(screen.getByTestId("no-tool-sets")).toBeTruthy();
    fireEvent.click(screen.getByTestId("tool-set-new"));
    fireEvent.change(screen.getByTestId("tool-set-name"), { target: { value: "Research" } });
    await waitFor(async () => expect(await member("weatherman", "weather")).toBeTruthy());
    fireEvent.click(await member("everything", "echo"));
    fireEvent.click(await member("weatherman", "weather"));
    fireEvent.click(screen.getByTestId("tool-set-save"));
    await waitFor(() => expect(listed()).toEqual(["Research"]));
    expect(callsOf(b, "saveToolSet")).toEqual([
      [
        {
          name: "Research",
          members: [
            { server: "everything", tool: "echo" },
            { server: "weatherman", tool: "weather" },
          ],
        },
      ],
    ]);
    expect(screen.queryByTestId("tool-set-editor")).toBeNull();
    expect(screen.getByTestId("tool-set").textContent).toContain("2 tools");
  });

  it("shows the core's sentence when it refuses the name, and keeps what was picked", async () => {
    const b = new FakeBackend().addServer("everything");
    await openSets(b);
    fireEvent.click(screen.getByTestId("tool-set-new"));
    fireEvent.change(screen.getByTestId("tool-set-name"), { target: { value: "x".repeat(65) } });
    fireEvent.click(await member("everything", "echo"));
    fireEvent.click(screen.getByTestId("tool-set-save"));
    expect((await screen.findByTestId("tool-sets-error")).textContent).toBe(
      "a tool set's name is 1 to 64 characters, without control characters",
    );
    expect(screen.getByTestId("tool-set-editor")).toBeTruthy();
    expect((await member("everything", "echo")).checked).toBe(true);
    expect(listed()).toEqual([]);
  });

  it("refuses a name another set has, rather than replace that set", async () => {
    const b = new FakeBackend().addServer("everything");
    b.switches.sets = [{ name: "Writing", members: [{ server: "everything", tool: "echo" }] }];
    await openSets(b);
    fireEvent.click(screen.getByTestId("tool-set-new"));
    fireEvent.change(screen.getByTestId("tool-set-name"), { target: { value: " Writing " } });
    fireEvent.click(screen.getByTestId("tool-set-save"));
    expect((await screen.findByTestId("tool-sets-error")).textContent).toBe("A tool set named “Writing” already exists.");
    expect(callsOf(b, "saveToolSet")).toEqual([]);
  });

  it("renames a set and changes its tools; the chats limited to it follow it", async () => {
    const b = new FakeBackend().addServer("everything");
    b.switches.sets = [{ name: "Old", members: [{ server: "everything", tool: "echo" }] }];
    const c = await b.newConversation("Chat", "manual", "manual");
    await b.updateConversation({ ...c, toolSets: ["Old"] });
    await openSets(b);
    fireEvent.click(await within(await screen.findByTestId("tool-set")).findByTestId("tool-set-edit"));
    expect((await member("everything", "echo")).checked).toBe(true);
    fireEvent.change(screen.getByTestId("tool-set-name"), { target: { value: "New" } });
    fireEvent.click(await member("everything", "weather"));
    fireEvent.click(screen.getByTestId("tool-set-save"));
    await waitFor(() => expect(listed()).toEqual(["New"]));
    expect(b.switches.sets).toEqual([
      {
        name: "New",
        members: [
          { server: "everything", tool: "echo" },
          { server: "everything", tool: "weather" },
        ],
      },
    ]);
    expect(callsOf(b, "deleteToolSet")).toEqual([["Old"]]);
    expect(b.conversations[0]!.conversation.toolSets).toEqual(["New"]);
  });

  it("keeps a member no running server lists, said so", async () => {
    const b = new FakeBackend().addServer("everything");
    b.switches.sets = [{ name: "Mixed", members: [{ server: "gone", tool: "search" }] }];
    await openSets(b);
    fireEvent.click(await screen.findByTestId("tool-set-edit"));
    const gone = await member("gone", "search");
    expect(gone.checked).toBe(true);
    expect(gone.closest("label")!.textContent).toContain("(not listed now)");
  });

  it("deletes a set", async () => {
    const b = new FakeBackend().addServer("everything");
    b.switches.sets = [{ name: "Writing", members: [] }];
    await openSets(b);
    fireEvent.click(await screen.findByTestId("tool-set-delete"));
    await waitFor(() => expect(listed()).toEqual([]));
    expect(callsOf(b, "deleteToolSet")).toEqual([["Writing"]]);
    expect(screen.getByTestId("no-tool-sets")).toBeTruthy();
  });

  it("closes when a tool is chosen", async () => {
    const b = new FakeBackend().addServer("everything");
    await openSets(b);
    fireEvent.click(await screen.findByText("Echo"));
    expect(await screen.findByTestId("call-tool")).toBeTruthy();
    expect(screen.queryByTestId("tool-sets")).toBeNull();
  });
});
