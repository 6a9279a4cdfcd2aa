// The tool definitions to approve: every one needing review is selected at first; the person can
// select none, all again, or only one (with its server's instructions, without which the model is
// not offered the tool), and approve just those.
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { FakeBackend } from "../backend/fake";
import type { PinItem } from "../bindings/PinItem";
import { useHost } from "../host";
import { PinsPanel } from "./pins-panel";

function Panel(props: { backend: FakeBackend }) {
  const host = useHost(props.backend);
  return <PinsPanel backend={props.backend} host={host} server="everything" />;
}

function pin(item: string, state: PinItem["state"] = "new"): PinItem {
  return { item, state, current: { name: item }, pinned: null, changes: [], hiddenCharacters: false, digest: `d-${item}` };
}

async function open(items: PinItem[]) {
  const b = new FakeBackend().addServer("everything");
  b.pins.everything = items;
  render(<Panel backend={b} />);
  await waitFor(() => expect(screen.getAllByTestId("pin-item")).toHaveLength(items.filter((i) => i.state !== "pinned").length));
  return b;
}

const chosen = () =>
  screen
    .getAllByTestId("pin-item")
    .filter((i) => (i.querySelector("[data-testid=pin-choose]") as HTMLInputElement).checked)
    .map((i) => i.dataset.item);

const only = (item: string) =>
  fireEvent.click(screen.getAllByTestId("pin-item").find((i) => i.dataset.item === item)!.querySelector("[data-testid=pin-only]")!);

describe("PinsPanel", () => {
  it("selects none, then all again", async () => {
    await open([pin("tool:echo"), pin("tool:weather"), pin("tool:add", "pinned")]);
    expect(chosen()).toEqual(["tool:echo", "tool:weather"]);
    fireEvent.click(screen.getByTestId("pins-select-none"));
    expect(chosen()).toEqual([]);
    expect((screen.getByTestId("pins-approve") as HTMLButtonElement).disabled).toBe(true);
    fireEvent.click(screen.getByTestId("pins-select-all"));
    expect(chosen()).toEqual(["tool:echo", "tool:weather"]);
  });

  it("approves only the one tool chosen", async () => {
    const b = await open([pin("tool:echo"), pin("tool:weather"), pin("tool:add")]);
    only("tool:weather");
    expect(chosen()).toEqual(["tool:weather"]);
    fireEvent.click(screen.getByTestId("pins-approve"));
    await waitFor(() => expect(screen.getAllByTestId("pin-item").map((i) => i.dataset.item)).toEqual(["tool:echo", "tool:add"]));
    expect(b.pins.everything!.map((p) => p.state)).toEqual(["new", "pinned", "new"]);
  });

  it("chooses the server's instructions with the one tool while they are not approved", async () => {
    await open([pin("tool:echo"), pin("tool:weather"), pin("instructions", "changed")]);
    only("tool:echo");
    expect(chosen()).toEqual(["tool:echo", "instructions"]);
    only("instructions");
    expect(chosen()).toEqual(["instructions"]);
  });

  it("offers no selection buttons for a single item", async () => {
    await open([pin("tool:echo"), pin("tool:weather", "pinned")]);
    expect(screen.queryByTestId("pins-select-none")).toBeNull();
    expect(screen.queryByTestId("pin-only")).toBeNull();
  });
});
