// The server form's sampling models: what it saves, and that none picked (or an untouched list)
// writes nothing new.
import { fireEvent, render, screen, waitFor } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { FakeBackend } from "../../backend/fake";
import type { ProviderSettings } from "../../bindings/ProviderSettings";
import type { ServerConfig } from "../../bindings/ServerConfig";
import type { ServerView } from "../../bindings/ServerView";
import { samplingModelsSetting } from "./sampling-models-field";
import { ServerForm } from "./server-form";

function view(config: ServerConfig): ServerView {
  return { name: "files", status: { state: "stopped" }, stderrTail: [], config, sandbox: "sandboxed", sandboxHint: null, refusedHosts: [] };
}

function provider(id: string, models: string[]): ProviderSettings {
  const rated = models.map((model) => ({ provider: id, model, cost: 0.5, speed: 0.5, intelligence: 0.5 }));
  return { id, kind: "openai", baseUrl: null, models: rated, hasKey: true };
}

function backend(): FakeBackend {
  const b = new FakeBackend();
  b.providers = [provider("openai", ["gpt-5", "gpt-5-mini"]), provider("openrouter", ["anthropic/claude-sonnet-4"])];
  return b;
}

async function saved(b: FakeBackend): Promise<ServerConfig> {
  await waitFor(() => expect(b.calls.some((c) => c.method === "saveServer")).toBe(true));
  return b.calls.find((c) => c.method === "saveServer")!.args[1] as ServerConfig;
}

describe("the sampling models field", () => {
  it("keeps what the file had when the picks say the same, and leaves none picked unwritten", () => {
    expect(samplingModelsSetting([], undefined)).toBeUndefined();
    expect(samplingModelsSetting([], [])).toEqual([]);
    expect(samplingModelsSetting(["b", "a"], ["a", "b"])).toEqual(["a", "b"]);
    expect(samplingModelsSetting([], ["a"])).toBeUndefined();
    expect(samplingModelsSetting(["a", "c"], ["a"])).toEqual(["a", "c"]);
  });

  it("lists the person's models as provider/model and saves the ones picked", async () => {
    const b = backend();
    render(<ServerForm backend={b} original={view({ command: "npx", args: [] })} onDone={() => {}} />);
    const field = await screen.findByTestId("sampling-models");
    expect(field.textContent).toContain("trust");
    await screen.findByTestId("sampling-model-openrouter/anthropic/claude-sonnet-4");
    const boxes = field.querySelectorAll<HTMLInputElement>("input[type=checkbox]");
    expect([...boxes].map((x) => x.dataset.testid)).toEqual(
      ["manual/manual", "openai/gpt-5", "openai/gpt-5-mini", "openrouter/anthropic/claude-sonnet-4"].map((m) => `sampling-model-${m}`),
    );
    fireEvent.click(screen.getByTestId("sampling-model-openrouter/anthropic/claude-sonnet-4"));
    fireEvent.click(screen.getByTestId("sampling-model-openai/gpt-5-mini"));
    fireEvent.click(screen.getByTestId("server-save"));
    expect((await saved(b)).samplingModels).toEqual(["openrouter/anthropic/claude-sonnet-4", "openai/gpt-5-mini"]);
  });

  it("leaves samplingModels out when none is picked", async () => {
    const b = backend();
    render(<ServerForm backend={b} original={view({ url: "https://mcp.example.com/mcp", samplingModels: ["openai/gpt-5"] })} onDone={() => {}} />);
    const box = (await screen.findByTestId("sampling-model-openai/gpt-5")) as HTMLInputElement;
    expect(box.checked).toBe(true);
    fireEvent.click(box);
    fireEvent.click(screen.getByTestId("server-save"));
    expect("samplingModels" in (await saved(b))).toBe(false);
  });

  it("shows and keeps an untouched list, even a name that is not one of the person's models", async () => {
    const b = backend();
    render(<ServerForm backend={b} original={view({ command: "npx", args: [], samplingModels: ["claude-opus"] })} onDone={() => {}} />);
    expect(((await screen.findByTestId("sampling-model-claude-opus")) as HTMLInputElement).checked).toBe(true);
    await screen.findByTestId("sampling-model-openai/gpt-5");
    fireEvent.click(screen.getByTestId("server-save"));
    expect((await saved(b)).samplingModels).toEqual(["claude-opus"]);
  });
});
