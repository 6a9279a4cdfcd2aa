import { act, fireEvent, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { useLayoutEffect, useState } from "react";
import { describe, expect, it, vi } from "vitest";
import { Choice } from "./choice";

function Picker(props: { onChoose?: (v: string) => void; redraw?: number; later?: boolean }) {
  const [value, setValue] = useState("a");
  return (
    <>
      <Choice
        data-testid="pick"
        value={value}
        onChoose={(v) => {
          props.onChoose?.(v);
          if (props.later) setTimeout(() => setValue(v), 0);
          else setValue(v);
        }}
      >
        <option value="a">a</option>
        <option value="b">b</option>
      </Choice>
      <output data-testid="held">{value}</output>
    </>
  );
}

/** A Picker whose next render makes a choice in the middle of React's commit. */
function Committing(props: { step: number; onChoose: (v: string) => void }) {
  const { step } = props;
  useLayoutEffect(
    () => () => {
      if (step !== 0) return;
      const pick = document.querySelector<HTMLSelectElement>("[data-testid=pick]")!;
      pick.value = "b";
      pick.dispatchEvent(new Event("input", { bubbles: true }));
      pick.dispatchEvent(new Event("change", { bubbles: true }));
    },
    [step],
  );
  return <Picker onChoose={props.onChoose} />;
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

  it("keeps a choice the page put back between its input and its change", async () => {
    const chose = vi.fn();
    const { rerender } = render(<Picker onChoose={chose} later redraw={0} />);
    const pick = screen.getByTestId("pick") as HTMLSelectElement;
    pick.value = "b";
    fireEvent.input(pick);
    // A render before the page has taken the choice: the select shows the old value again.
    act(() => rerender(<Picker onChoose={chose} later redraw={1} />));
    expect(pick.value).toBe("a");
    fireEvent.change(pick);
    await act(() => new Promise((r) => setTimeout(r, 0)));
    expect(chose.mock.calls).toEqual([["b"]]);
    expect(screen.getByTestId("held").textContent).toBe("b");
    expect(pick.value).toBe("b");
  });

  it("takes a choice the page drew over before the select's own listeners heard it", () => {
    const chose = vi.fn();
    render(<Picker onChoose={chose} />);
    const pick = screen.getByTestId("pick") as HTMLSelectElement;
    // A render run between two listeners of the same event puts the old value back.
    const redraw = () => (pick.value = "a");
    document.addEventListener("input", redraw, { capture: true });
    try {
      pick.value = "b";
      fireEvent.input(pick);
      fireEvent.change(pick);
    } finally {
      document.removeEventListener("input", redraw, { capture: true });
    }
    expect(chose.mock.calls).toEqual([["b"]]);
    expect(screen.getByTestId("held").textContent).toBe("b");
    expect(pick.value).toBe("b");
  });

  it("takes a later change after an input that had no change of its own", async () => {
    const chose = vi.fn();
    render(<Picker onChoose={chose} />);
    const pick = screen.getByTestId("pick") as HTMLSelectElement;
    pick.value = "b";
    fireEvent.input(pick);
    await act(() => new Promise((r) => setTimeout(r, 0)));
    pick.value = "a";
    fireEvent.change(pick);
    expect(chose.mock.calls).toEqual([["b"], ["a"]]);
    expect(screen.getByTestId("held").textContent).toBe("a");
  });

  it("takes a choice whose events come while React commits", () => {
    const chose = vi.fn();
    const { rerender } = render(<Committing step={0} onChoose={chose} />);
    // The layout effect's clean-up runs in React's commit, where its own event handlers are off.
    rerender(<Committing step={1} onChoose={chose} />);
    expect(chose.mock.calls).toEqual([["b"]]);
    expect(screen.getByTestId("held").textContent).toBe("b");
  });

  it("takes a change that comes without an input", () => {
    const chose = vi.fn();
    render(<Picker onChoose={chose} />);
    fireEvent.change(screen.getByTestId("pick"), { target: { value: "b" } });
    expect(chose.mock.calls).toEqual([["b"]]);
    expect(screen.getByTestId("held").textContent).toBe("b");
  });
});
