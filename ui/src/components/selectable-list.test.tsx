// The shared list to choose one item from: marked, chosen by click and by Enter or Space, or by
// the arrow keys (which take the focus along) where asked; and the search over it.
import { fireEvent, render, screen } from "@testing-library/react";
import { useState } from "react";
import { describe, expect, it } from "vitest";
import { matching, NoMatch, SelectableList } from "./selectable-list";

const ITEMS = ["alpha", "beta", "gamma"];

function List(props: { arrowKeys?: boolean }) {
  const [selected, setSelected] = useState<string | null>("alpha");
  return (
    <SelectableList
      items={ITEMS}
      label="Letters"
      keyOf={(x) => x}
      selected={selected}
      onSelect={setSelected}
      testId="row"
      data={(x) => ({ "data-name": x })}
      arrowKeys={props.arrowKeys ?? false}
    >
      {(x) => <strong>{x}</strong>}
    </SelectableList>
  );
}

const chosen = () => screen.getAllByTestId("row").filter((r) => r.getAttribute("aria-selected") === "true").map((r) => r.dataset.name);

describe("SelectableList", () => {
  it("marks the chosen item and chooses by click, Enter or Space", () => {
    render(<List />);
    expect(screen.getByRole("listbox", { name: "Letters" }).className).toBe("item-list");
    expect(chosen()).toEqual(["alpha"]);
    expect(screen.getAllByTestId("row")[0]!.className).toBe("selected");
    const [, beta, gamma] = screen.getAllByTestId("row");
    fireEvent.click(beta!);
    expect(chosen()).toEqual(["beta"]);
    fireEvent.keyDown(gamma!, { key: "Enter" });
    expect(chosen()).toEqual(["gamma"]);
    fireEvent.keyDown(beta!, { key: " " });
    expect(chosen()).toEqual(["beta"]);
    // The arrows are not this list's.
    fireEvent.keyDown(beta!, { key: "ArrowDown" });
    expect(chosen()).toEqual(["beta"]);
  });

  it("moves the choice and the focus with the arrow keys where asked, and stops at the ends", () => {
    render(<List arrowKeys />);
    const rows = screen.getAllByTestId("row");
    fireEvent.keyDown(rows[0]!, { key: "ArrowDown" });
    expect(chosen()).toEqual(["beta"]);
    expect(document.activeElement).toBe(rows[1]);
    fireEvent.keyDown(rows[1]!, { key: "ArrowUp" });
    fireEvent.keyDown(rows[0]!, { key: "ArrowUp" });
    expect(chosen()).toEqual(["alpha"]);
    fireEvent.keyDown(rows[2]!, { key: "Enter" });
    expect(chosen()).toEqual(["alpha"]);
  });
});

describe("matching", () => {
  it("keeps the items any of whose fields contains the trimmed search, whatever the case", () => {
    const items = [
      { name: "echo", title: "Echo" as string | undefined },
      { name: "add", title: undefined },
    ];
    expect(matching(items, "  ECH ", (i) => [i.name, i.title])).toEqual([items[0]]);
    expect(matching(items, " ", (i) => [i.name])).toBe(items);
  });

  it("says nothing matches only when a search hides every item", () => {
    const { container, rerender } = render(<NoMatch what="tool" search=" zz " total={2} shown={0} />);
    expect(container.textContent).toBe("No tool matches “zz”.");
    rerender(<NoMatch what="tool" search="zz" total={0} shown={0} />);
    expect(container.textContent).toBe("");
    rerender(<NoMatch what="tool" search="" total={2} shown={2} />);
    expect(container.textContent).toBe("");
  });
});
