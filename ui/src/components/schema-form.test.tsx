import { fireEvent, render, screen } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { describe, expect, it, vi } from "vitest";
import type { JsonSchema } from "../mcp";
import type { FormDraft } from "./schema-form";
import { SchemaForm } from "./schema-form";

const schema: JsonSchema = {
  type: "object",
  properties: {
    city: { type: "string", default: "Paris", description: "Where" },
    units: { type: "string", enum: ["metric", "imperial"] },
    days: { type: "integer" },
    alerts: { type: "boolean", default: true },
    tags: { type: "array", items: { type: "string" } },
  },
  required: ["days"],
};

function last(fn: ReturnType<typeof vi.fn>) {
  return fn.mock.calls[fn.mock.calls.length - 1] as [Record<string, unknown> | null, string | null];
}

describe("SchemaForm", () => {
  it("builds typed fields with defaults and requires what the schema requires", () => {
    const onChange = vi.fn();
    render(<SchemaForm schema={schema} onChange={onChange} />);
    expect((screen.getByTestId("arg-city") as HTMLInputElement).value).toBe("Paris");
    expect(screen.getByTestId("arg-units").tagName).toBe("SELECT");
    expect((screen.getByTestId("arg-days") as HTMLInputElement).type).toBe("number");
    expect((screen.getByTestId("arg-alerts") as HTMLInputElement).checked).toBe(true);
    expect(last(onChange)).toEqual([null, "days is required"]);

    fireEvent.change(screen.getByTestId("arg-days"), { target: { value: "2.5" } });
    expect(last(onChange)[1]).toBe("days must be a whole number");
    fireEvent.change(screen.getByTestId("arg-days"), { target: { value: "3" } });
    fireEvent.change(screen.getByTestId("arg-units"), { target: { value: "imperial" } });
    fireEvent.change(screen.getByTestId("arg-tags"), { target: { value: "a\nb\n" } });
    expect(last(onChange)).toEqual([{ city: "Paris", units: "imperial", days: 3, alerts: true, tags: ["a", "b"] }, null]);
  });

  it("falls back to raw JSON for nested schemas and reports parse errors", () => {
    const onChange = vi.fn();
    render(
      <SchemaForm
        schema={{ type: "object", properties: { filter: { type: "object", properties: { q: { type: "string" } } } } }}
        onChange={onChange}
      />,
    );
    const raw = screen.getByTestId("args-raw") as HTMLTextAreaElement;
    expect((screen.getByTestId("args-raw-toggle") as HTMLInputElement).disabled).toBe(true);
    fireEvent.change(raw, { target: { value: "{ nope" } });
    expect(last(onChange)[0]).toBeNull();
    expect(last(onChange)[1]).toMatch(/^Invalid JSON/);
    expect(screen.getByRole("alert").textContent).toMatch(/Invalid JSON/);
    fireEvent.change(raw, { target: { value: "[1]" } });
    expect(last(onChange)[1]).toBe("Arguments must be a JSON object");
    fireEvent.change(raw, { target: { value: '{"filter": {"q": "x"}}' } });
    expect(last(onChange)).toEqual([{ filter: { q: "x" } }, null]);
  });

  it("switches a flat form to raw JSON carrying the values over", () => {
    const onChange = vi.fn();
    render(<SchemaForm schema={schema} onChange={onChange} />);
    fireEvent.change(screen.getByTestId("arg-days"), { target: { value: "4" } });
    fireEvent.click(screen.getByTestId("args-raw-toggle"));
    const raw = screen.getByTestId("args-raw") as HTMLTextAreaElement;
    expect(JSON.parse(raw.value)).toEqual({ city: "Paris", days: 4, alerts: true });
  });

  it("offers titled, legacy and multi-select enums as choices", () => {
    const onChange = vi.fn();
    const form: JsonSchema = {
      type: "object",
      properties: {
        hero: { type: "string", oneOf: [{ const: "hero-1", title: "Superman" }, { const: "hero-2", title: "Wonder Woman" }], default: "hero-1" },
        pet: { type: "string", enum: ["pet-1", "pet-2"], enumNames: ["Cats", "Dogs"] },
        fish: { type: "array", minItems: 1, maxItems: 2, items: { anyOf: [{ const: "f1", title: "Tuna" }, { const: "f2", title: "Salmon" }, { const: "f3", title: "Trout" }] }, default: ["f1"] },
        email: { type: "string", format: "email" },
      },
    };
    render(<SchemaForm schema={form} onChange={onChange} />);
    const hero = screen.getByTestId("arg-hero") as HTMLSelectElement;
    expect([...hero.options].map((o) => o.textContent)).toEqual(["(none)", "Superman", "Wonder Woman"]);
    expect(hero.value).toBe("hero-1");
    expect([...(screen.getByTestId("arg-pet") as HTMLSelectElement).options].map((o) => o.textContent)).toEqual(["(none)", "Cats", "Dogs"]);
    expect((screen.getByTestId("arg-email") as HTMLInputElement).type).toBe("email");
    expect((screen.getByTestId("arg-fish-f1") as HTMLInputElement).checked).toBe(true);
    fireEvent.click(screen.getByTestId("arg-fish-f3"));
    expect(last(onChange)).toEqual([{ hero: "hero-1", fish: ["f1", "f3"] }, null]);
    fireEvent.click(screen.getByTestId("arg-fish-f2"));
    expect(last(onChange)).toEqual([null, "fish: choose at most 2"]);
    fireEvent.click(screen.getByTestId("arg-fish-f1"));
    fireEvent.click(screen.getByTestId("arg-fish-f2"));
    fireEvent.click(screen.getByTestId("arg-fish-f3"));
    // Not required: none chosen leaves it out rather than breaking minItems.
    expect(last(onChange)).toEqual([{ hero: "hero-1" }, null]);
  });

  it("says a field is required only once it was touched or a submit was tried, by its title", () => {
    const onChange = vi.fn();
    const titled: JsonSchema = {
      type: "object",
      properties: { days: { type: "integer", title: "Number of days" }, note: { type: "string" } },
      required: ["days", "note"],
    };
    const { rerender } = render(<SchemaForm schema={titled} onChange={onChange} />);
    // The caller knows at once (to hold the call back); the person is not scolded yet.
    expect(last(onChange)).toEqual([null, "Number of days is required"]);
    expect(screen.queryByRole("alert")).toBeNull();
    fireEvent.focus(screen.getByTestId("arg-note"));
    fireEvent.blur(screen.getByTestId("arg-note"));
    expect(screen.getByRole("alert").textContent).toBe("note is required");
    fireEvent.change(screen.getByTestId("arg-note"), { target: { value: "x" } });
    expect(screen.queryByRole("alert")).toBeNull();
    rerender(<SchemaForm schema={titled} onChange={onChange} showErrors />);
    expect(screen.getByRole("alert").textContent).toBe("Number of days is required");
  });

  it("shows a required enum as unchosen until a choice is made, so its first choice can be made", async () => {
    const onChange = vi.fn();
    const form: JsonSchema = {
      type: "object",
      properties: {
        location: { type: "string", enum: ["New York", "Chicago", "Los Angeles"] },
        hero: { type: "string", oneOf: [{ const: "h1", title: "Superman" }, { const: "h2", title: "Batman" }] },
        pet: { type: "string", enum: ["cat", "dog"], default: "fish" },
      },
      required: ["location", "hero"],
    };
    render(<SchemaForm schema={form} onChange={onChange} />);
    const location = screen.getByTestId("arg-location") as HTMLSelectElement;
    const hero = screen.getByTestId("arg-hero") as HTMLSelectElement;
    const pet = screen.getByTestId("arg-pet") as HTMLSelectElement;
    expect([location.value, hero.value, pet.value]).toEqual(["", "", ""]);
    expect([...location.options].map((o) => [o.textContent, o.disabled])).toEqual([
      ["Choose…", true],
      ["New York", false],
      ["Chicago", false],
      ["Los Angeles", false],
    ]);
    expect(hero.selectedOptions[0]?.textContent).toBe("Choose…");
    // A default that is not one of the choices is no choice.
    expect(pet.selectedOptions[0]?.textContent).toBe("(none)");
    expect(last(onChange)).toEqual([null, "location is required"]);

    await userEvent.selectOptions(location, "New York");
    await userEvent.selectOptions(hero, "Superman");
    expect(last(onChange)).toEqual([{ location: "New York", hero: "h1" }, null]);
    await userEvent.selectOptions(pet, "cat");
    await userEvent.selectOptions(pet, "(none)");
    expect(last(onChange)).toEqual([{ location: "New York", hero: "h1" }, null]);
  });

  it("starts from a draft of what was typed, invalid values too", () => {
    const drafts: FormDraft[] = [];
    const { unmount } = render(<SchemaForm schema={schema} onChange={vi.fn()} onDraft={(d) => drafts.push(d)} />);
    fireEvent.change(screen.getByTestId("arg-days"), { target: { value: "2.5" } });
    fireEvent.change(screen.getByTestId("arg-units"), { target: { value: "imperial" } });
    unmount();
    const onChange = vi.fn();
    render(<SchemaForm schema={schema} onChange={onChange} draft={drafts[drafts.length - 1] ?? null} />);
    expect((screen.getByTestId("arg-days") as HTMLInputElement).value).toBe("2.5");
    expect((screen.getByTestId("arg-units") as HTMLSelectElement).value).toBe("imperial");
    expect(last(onChange)).toEqual([null, "days must be a whole number"]);
  });

  it("keeps what was typed when an equal schema comes again (a catalog refresh)", () => {
    const { rerender } = render(<SchemaForm schema={schema} onChange={vi.fn()} />);
    fireEvent.change(screen.getByTestId("arg-days"), { target: { value: "7" } });
    rerender(<SchemaForm schema={structuredClone(schema)} onChange={vi.fn()} />);
    expect((screen.getByTestId("arg-days") as HTMLInputElement).value).toBe("7");
    rerender(<SchemaForm schema={{ ...schema, required: [] }} onChange={vi.fn()} />);
    expect((screen.getByTestId("arg-days") as HTMLInputElement).value).toBe("");
  });
});
