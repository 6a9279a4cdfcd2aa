// The Tools screen's context limits: above how many tools the chat's model searches for them, and
// above what share of its context window the meter warns, saved to the core and read back; and,
// beside the server's tokens, whether the model searches now.
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { FakeBackend } from "../backend/fake";
import { Tools, callsOf } from "./tools-test-helpers";

async function openContext() {
  await screen.findByText("Echo");
  fireEvent.click(screen.getByTestId("context-open"));
  const above = (await screen.findByTestId("context-search-above")) as HTMLInputElement;
  const percent = screen.getByTestId("context-warn-percent") as HTMLInputElement;
  return { above, percent };
}

describe("Tools screen: the context limits", () => {
  it("shows the core's limits, saves both, and shows them as the core has them then", async () => {
    const b = new FakeBackend().addServer("everything");
    render(<Tools backend={b} />);
    const state = await screen.findByTestId("context-search-state");
    expect(state.textContent).toBe("The model is offered all 2 tools (it searches for them above 40).");
    expect(state.dataset["searching"]).toBe("false");

    const { above, percent } = await openContext();
    expect(above.value).toBe("40");
    expect(percent.value).toBe("10");
    fireEvent.change(above, { target: { value: "1" } });
    fireEvent.change(percent, { target: { value: "25" } });
    const meterReads = callsOf(b, "toolTokens").length;
    fireEvent.click(screen.getByTestId("context-save"));

    await waitFor(() => expect(callsOf(b, "setContextLimits")).toEqual([[{ toolSearchAbove: 1, toolTokensWarnPercent: 25 }]]));
    expect([b.toolSearchAbove, b.toolTokensWarnPercent]).toEqual([1, 25]);
    // The meter is read again and the screen shows what it says now.
    await waitFor(() => expect(callsOf(b, "toolTokens").length).toBeGreaterThan(meterReads));
    await waitFor(() => expect(screen.getAllByTestId("context-search-state")[0]!.dataset["searching"]).toBe("true"));
    for (const line of screen.getAllByTestId("context-search-state"))
      expect(line.textContent).toBe("The model searches for tools (2 offered > 1).");
    expect((screen.getByTestId("context-search-above") as HTMLInputElement).value).toBe("1");
    expect((screen.getByTestId("context-warn-percent") as HTMLInputElement).value).toBe("25");
    expect(screen.getByTestId("context-saved")).toBeTruthy();
    expect(screen.queryByTestId("context-error")).toBeNull();
  });

  it("empties a field back to its default", async () => {
    const b = new FakeBackend().addServer("everything");
    b.toolSearchAbove = 5;
    b.toolTokensWarnPercent = 30;
    render(<Tools backend={b} />);
    const { above, percent } = await openContext();
    await waitFor(() => expect(above.value).toBe("5"));
    expect(percent.value).toBe("30");
    fireEvent.change(above, { target: { value: "" } });
    fireEvent.click(screen.getByTestId("context-save"));
    await waitFor(() => expect(callsOf(b, "setContextLimits")).toEqual([[{ toolSearchAbove: null, toolTokensWarnPercent: 30 }]]));
    await waitFor(() => expect((screen.getByTestId("context-search-above") as HTMLInputElement).value).toBe("40"));
  });

  it("shows the core's sentence for a percent it refuses, and keeps the limits", async () => {
    const b = new FakeBackend().addServer("everything");
    render(<Tools backend={b} />);
    const { above, percent } = await openContext();
    fireEvent.change(above, { target: { value: "12" } });
    fireEvent.change(percent, { target: { value: "150" } });
    fireEvent.click(screen.getByTestId("context-save"));
    const error = await screen.findByTestId("context-error");
    expect(error.textContent).toBe("The warning share must be a percentage from 1 to 100.");
    expect(error.getAttribute("role")).toBe("alert");
    expect(callsOf(b, "setContextLimits")).toEqual([[{ toolSearchAbove: 12, toolTokensWarnPercent: 150 }]]);
    expect([b.toolSearchAbove, b.toolTokensWarnPercent]).toEqual([40, 10]);
    expect(screen.queryByTestId("context-saved")).toBeNull();
    // What was typed stays, to be corrected.
    expect(percent.value).toBe("150");
  });

  it("refuses a number of tools that is not a whole number without asking the core", async () => {
    const b = new FakeBackend().addServer("everything");
    render(<Tools backend={b} />);
    const { above } = await openContext();
    fireEvent.change(above, { target: { value: "2.5" } });
    fireEvent.click(screen.getByTestId("context-save"));
    expect((await screen.findByTestId("context-error")).textContent).toMatch(/must be a whole number/);
    expect(callsOf(b, "setContextLimits")).toEqual([]);
  });

  it("counts only the tools the model is offered: switched off, they do not count", async () => {
    const b = new FakeBackend().addServer("everything");
    b.toolSearchAbove = 1;
    b.switches.off = [{ server: "everything", tool: "weather" }];
    render(<Tools backend={b} />);
    await waitFor(() =>
      expect(screen.getByTestId("context-search-state").textContent).toBe("The model is offered all 1 tool (it searches for them above 1)."),
    );
  });

  it("says which tools switched on a turn holds back, and why, instead of offering them all", async () => {
    const b = new FakeBackend().addServer("everything");
    const pin = { current: {}, pinned: null, changes: [], hiddenCharacters: false, digest: "d1" };
    b.pins["everything"] = [{ ...pin, item: "tool:echo", state: "new" }];
    b.policies = [{ server: "everything", kind: "tool_call", tool: "weather", rule: "deny" }];
    render(<Tools backend={b} />);
    await waitFor(() =>
      expect(screen.getByTestId("context-search-state").textContent).toBe(
        "The model is offered 0 tools (it searches for them above 40). 1 waits for your approval in a chat; 1 is refused (a deny rule, or hidden characters).",
      ),
    );
  });

  it("reads the count again when a tool is switched off on the screen", async () => {
    const b = new FakeBackend().addServer("everything");
    b.toolSearchAbove = 1;
    const { container } = render(<Tools backend={b} />);
    await waitFor(() => expect(screen.getByTestId("context-search-state").textContent).toBe("The model searches for tools (2 offered > 1)."));
    const weather = await waitFor(() => {
      const e = container.querySelector('[data-testid=tool-item][data-name=weather] [data-testid=tool-model-switch]');
      if (!e) throw new Error("no switch for weather yet");
      return e;
    });
    fireEvent.click(weather);
    await waitFor(() =>
      expect(screen.getByTestId("context-search-state").textContent).toBe("The model is offered all 1 tool (it searches for them above 1)."),
    );
  });
});
