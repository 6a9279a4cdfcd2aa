import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { FakeBackend } from "../backend/fake";
import { ModelsScreen } from "./models";

describe("Models screen", () => {
  it("adds an OpenAI-compatible provider with a key, fetched models and ratings", async () => {
    const b = new FakeBackend();
    b.offered["ollama"] = ["llama3.2", "qwen2.5"];
    render(<ModelsScreen backend={b} />);
    // The manual provider is always there.
    await screen.findByText("none: you write the answer");
    fireEvent.click(screen.getByTestId("add-provider"));
    fireEvent.change(screen.getByTestId("provider-id"), { target: { value: "ollama" } });
    fireEvent.change(screen.getByTestId("provider-url"), { target: { value: "http://localhost:11434/v1" } });
    fireEvent.change(screen.getByTestId("provider-key-input"), { target: { value: "sk-local" } });
    fireEvent.click(screen.getByTestId("fetch-models"));
    const offered = await screen.findAllByTestId("offered-model");
    expect(offered.map((o) => o.dataset.model)).toEqual(["llama3.2", "qwen2.5"]);
    // The key was stored (once) and the field emptied: it is never shown again.
    expect((screen.getByTestId("provider-key-input") as HTMLInputElement).value).toBe("");
    fireEvent.click(offered[1]!);
    const row = await screen.findByTestId("rating-row");
    fireEvent.change(row.querySelector("[data-testid=rating-intelligence]")!, { target: { value: "0.9" } });
    // Prices in dollars per million tokens: the output one set, then cleared back to unknown.
    fireEvent.change(row.querySelector("[data-testid=rating-inputPrice]")!, { target: { value: "0.15" } });
    fireEvent.change(row.querySelector("[data-testid=rating-outputPrice]")!, { target: { value: "0.6" } });
    fireEvent.change(row.querySelector("[data-testid=rating-outputPrice]")!, { target: { value: "" } });
    fireEvent.click(screen.getByTestId("save-provider"));
    await waitFor(() => expect(screen.queryByTestId("provider-form")).toBeNull());
    expect(b.providers).toEqual([
      {
        id: "ollama",
        kind: "openai",
        baseUrl: "http://localhost:11434/v1",
        models: [
          { provider: "ollama", model: "qwen2.5", cost: 0.5, speed: 0.5, intelligence: 0.9, inputPrice: 0.15, outputPrice: null },
        ],
        hasKey: false,
      },
    ]);
    expect(b.keys.get("ollama")).toBe("sk-local");
    const saved = screen.getAllByTestId("provider-row").find((r) => r.dataset.id === "ollama")!;
    expect(saved.querySelector("[data-testid=provider-key]")!.textContent).toBe("in the keychain");
  });

  it("shows the provider's error and removes a provider", async () => {
    const b = new FakeBackend();
    b.providers = [{ id: "anthropic", kind: "anthropic", baseUrl: null, models: [], hasKey: false }];
    render(<ModelsScreen backend={b} />);
    await screen.findByText("no models chosen");
    fireEvent.click(screen.getByTestId("edit-provider"));
    fireEvent.click(screen.getByTestId("fetch-models"));
    expect((await screen.findByTestId("provider-error")).textContent).toContain("401 Unauthorized");
    fireEvent.click(screen.getByTestId("remove-provider"));
    await waitFor(() => expect(screen.getAllByTestId("provider-row")).toHaveLength(1));
  });

  it("keeps a form opened while another provider's save is still going", async () => {
    const b = new FakeBackend();
    let finish: () => void = () => {};
    const saving = new Promise<void>((resolve) => (finish = resolve));
    const save = b.saveProvider.bind(b);
    b.saveProvider = async (settings, key) => {
      await saving;
      return save(settings, key);
    };
    render(<ModelsScreen backend={b} />);
    await screen.findByText("none: you write the answer");
    fireEvent.click(screen.getByTestId("add-provider"));
    fireEvent.change(screen.getByTestId("provider-id"), { target: { value: "left" } });
    fireEvent.click(screen.getByTestId("save-provider"));
    // The person opens the next form before the first save has finished: a fresh one.
    fireEvent.click(screen.getByTestId("add-provider"));
    expect((screen.getByTestId("provider-id") as HTMLInputElement).value).toBe("openai");
    fireEvent.change(screen.getByTestId("provider-id"), { target: { value: "right" } });
    finish();
    await waitFor(() => expect(b.providers.map((p) => p.id)).toEqual(["left"]));
    await screen.findByText("left");
    expect((screen.getByTestId("provider-id") as HTMLInputElement).value).toBe("right");
  });
});
