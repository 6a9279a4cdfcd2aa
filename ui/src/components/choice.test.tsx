import { act, fireEvent, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useState } from "react";
import { describe, expect, it, vi } from "vitest";
import { Choice } from "./choice";

function Picker(props: { onChoose?: (v: string) => void; redraw?: number }) {
  const [value, setValue] = useState("a");
  return (
    <>
      <Choice
        data-testid="pick"
        value={value}
        onChoose={(v) => {
          props.onChoose?.(v);
          setValue(v);
        }}
      >
        <option value="a">a</option>
        <option value="b">b</option>
      </Choice>
      <output data-testid="held">{value}</output>
    </>
  );
}

describe("Choice", () => {
  it("keeps a choice when the page draws between its input and its change", () => {
    const { rerender } = render(<Picker redraw={0} />);
    const pick = screen.getByTestId("pick") as HTMLSelectElement;
    pick.value = "b";
    fireEvent.input(pick);
    // A render from elsewhere (a server's state arriving) before the change event.
    act(() => rerender(<Picker redraw={1} />));
    fireEvent.change(pick);
    expect(screen.getByTestId("held").textContent).toBe("b");
    expect(pick.value).toBe("b");
  });

  it("delivers a person's choice once", async () => {
    const chose = vi.fn();
    render(<Picker onChoose={chose} />);
    await userEvent.selectOptions(screen.getByTestId("pick"), "b");
    expect(chose.mock.calls).toEqual([["b"]]);
  });

  it("takes a change after an input that had no change of its own", () => {
    const chose = vi.fn();
    render(<Picker onChoose={chose} />);
    const pick = screen.getByTestId("pick") as HTMLSelectElement;
    pick.value = "b";
    fireEvent.input(pick);
    pick.value = "a";
    fireEvent.change(pick);
    expect(chose.mock.calls).toEqual([["b"], ["a"]]);
    expect(screen.getByTestId("held").textContent).toBe("a");
  });

  it("takes a change that comes without an input", () => {
    const chose = vi.fn();
    render(<Picker onChoose={chose} />);
    fireEvent.change(screen.getByTestId("pick"), { target: { value: "b" } });
    expect(chose.mock.calls).toEqual([["b"]]);
    expect(screen.getByTestId("held").textContent).toBe("b");
  });
});
