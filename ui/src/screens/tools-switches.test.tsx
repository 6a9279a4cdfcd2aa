// The Tools screen's say over what the chat's model is offered: a switch beside each tool (off,
// the tool stays callable here), and per server what its new tools start as.
import { fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { APP_TOOLS, FakeBackend } from "../backend/fake";
import { Tools, callsOf } from "./tools-test-helpers";

async function item(name: string) {
  await screen.findByText("Echo");
  return screen.getAllByTestId("tool-item").find((t) => t.dataset["name"] === name)!;
}

function switchOf(row: HTMLElement) {
  return within(row).getByTestId("tool-model-switch") as HTMLInputElement;
}

describe("Tools screen: what the model is offered", () => {
  it("switches a tool off for the model and on again, and the row says it stays callable here", async () => {
    const b = new FakeBackend().addServer("everything");
    render(<Tools backend={b} />);
    const echo = await item("echo");
    expect(switchOf(echo).checked).toBe(true);
    expect(within(echo).queryByTestId("tool-model-off")).toBeNull();

    fireEvent.click(switchOf(echo));
    await waitFor(() => expect(callsOf(b, "setToolEnabled")).toEqual([["everything", "echo", false]]));
    expect(switchOf(echo).checked).toBe(false);
    expect(within(echo).getByTestId("tool-model-off").textContent).toContain("you can still call it here");
    expect(b.switches.off).toEqual([{ server: "everything", tool: "echo" }]);
    // The switch is not a click on the tool: no tool was opened.
    expect(screen.queryByTestId("call-tool")).toBeNull();

    fireEvent.click(switchOf(echo));
    await waitFor(() => expect(callsOf(b, "setToolEnabled")).toHaveLength(2));
    expect(callsOf(b, "setToolEnabled")[1]).toEqual(["everything", "echo", true]);
    expect(switchOf(echo).checked).toBe(true);
    expect(within(echo).queryByTestId("tool-model-off")).toBeNull();
  });

  it("shows the switches as the core has them, and none for a tool only its view calls", async () => {
    const b = new FakeBackend().addServer("everything");
    b.extraTools = APP_TOOLS;
    b.switches.off = [{ server: "everything", tool: "weather" }];
    render(<Tools backend={b} />);
    await waitFor(async () => expect(switchOf(await item("weather")).checked).toBe(false));
    expect(switchOf(await item("echo")).checked).toBe(true);
    expect(within(await item("refresh")).queryByTestId("tool-model-switch")).toBeNull();
  });

  it("sets what the server's new tools start as", async () => {
    const b = new FakeBackend().addServer("everything");
    render(<Tools backend={b} />);
    const select = (await screen.findByTestId("new-tools-switch")) as HTMLSelectElement;
    expect(select.value).toBe("on");
    fireEvent.change(select, { target: { value: "off" } });
    await waitFor(() => expect(callsOf(b, "setNewToolsEnabled")).toEqual([["everything", false]]));
    expect(select.value).toBe("off");
    expect(b.switches.newToolsOff).toEqual(["everything"]);
  });

  it("shows why a switch could not be changed, and the switch as it is", async () => {
    const b = new FakeBackend().addServer("everything");
    b.setToolEnabled = async () => {
      throw { code: "internal", message: "the database is locked" };
    };
    render(<Tools backend={b} />);
    const echo = await item("echo");
    fireEvent.click(switchOf(echo));
    expect((await screen.findByTestId("switch-error")).textContent).toBe("the database is locked");
    await waitFor(() => expect(switchOf(echo).checked).toBe(true));
  });
});
