import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it, vi } from "vitest";
import { FakeBackend } from "../backend/fake";
import type { ComparedAnswer } from "../bindings/ComparedAnswer";
import type { ModelChoice } from "../bindings/ModelChoice";
import type { ProviderSettings } from "../bindings/ProviderSettings";
import { CompareModels, comparableChoices, editedAnswer, seconds, tokensText } from "./compare-models";

function provider(id: string, ...models: string[]): ProviderSettings {
  return {
    id,
    kind: "openai",
    baseUrl: null,
    models: models.map((model) => ({ provider: id, model, cost: 0.5, speed: 0.5, intelligence: 0.5 })),
    hasKey: true,
  };
}

function answer(provider: string, model: string, text: string, more: Partial<ComparedAnswer> = {}): ComparedAnswer {
  return {
    provider,
    model,
    result: { role: "assistant", content: { type: "text", text }, model, stopReason: "endTurn" },
    error: null,
    cut: null,
    latencyMs: 1234,
    inputTokens: 7,
    outputTokens: 3,
    costUsd: null,
    ...more,
  };
}

/** A backend with four models of two providers. */
function backend(): FakeBackend {
  const b = new FakeBackend();
  b.providers = [provider("openai", "gpt-a", "gpt-b"), provider("ollama", "llama", "qwen")];
  return b;
}

/** The comparison as the dialog uses it: `run` as given, streaming from flow "f1". */
function renderCompare(b: FakeBackend, run: (models: ModelChoice[]) => Promise<ComparedAnswer[]>, extra: Partial<Parameters<typeof CompareModels>[0]> = {}) {
  const onClose = vi.fn();
  render(<CompareModels backend={b} allowed={[]} initial={["openai/gpt-a"]} flow="f1" run={run} onClose={onClose} {...extra} />);
  return { onClose };
}

const boxes = () => screen.getAllByTestId("compare-model") as HTMLInputElement[];
const box = (model: string) => boxes().find((x) => x.dataset.model === model)!;
const column = (model: string) => screen.getAllByTestId("compare-column").find((c) => c.dataset.model === model)!;

describe("CompareModels", () => {
  it("offers the person's models (not the manual one), the current one ticked, at most three", async () => {
    const b = backend();
    const run = vi.fn(async () => [] as ComparedAnswer[]);
    renderCompare(b, run);
    await waitFor(() => expect(boxes()).toHaveLength(4));
    expect(boxes().map((x) => x.dataset.model)).toEqual(["openai/gpt-a", "openai/gpt-b", "ollama/llama", "ollama/qwen"]);
    // Labelled "provider/model".
    expect((screen.getByLabelText("ollama/llama") as HTMLInputElement).dataset.model).toBe("ollama/llama");
    expect(box("openai/gpt-a").checked).toBe(true);
    fireEvent.click(box("openai/gpt-b"));
    fireEvent.click(box("ollama/llama"));
    // Three ticked: the fourth cannot be.
    expect(box("ollama/qwen").disabled).toBe(true);
    expect(screen.getByTestId("compare-full").textContent).toContain("At most 3");
    // Untick one: the fourth can be ticked again.
    fireEvent.click(box("openai/gpt-a"));
    expect(box("ollama/qwen").disabled).toBe(false);
    fireEvent.click(box("ollama/qwen"));
    fireEvent.click(screen.getByTestId("compare-run"));
    await waitFor(() => expect(run).toHaveBeenCalledTimes(1));
    expect(run).toHaveBeenCalledWith([
      { provider: "openai", model: "gpt-b" },
      { provider: "ollama", model: "llama" },
      { provider: "ollama", model: "qwen" },
    ]);
  });

  it("offers only the models the server may be sampled on", async () => {
    const b = backend();
    renderCompare(b, async () => [], { allowed: ["openai/gpt-b", "qwen"] });
    await waitFor(() => expect(boxes()).toHaveLength(2));
    expect(boxes().map((x) => x.dataset.model)).toEqual(["openai/gpt-b", "ollama/qwen"]);
    // The dialog's model is not allowed: nothing is ticked, and nothing runs until something is.
    expect(boxes().every((x) => !x.checked)).toBe(true);
    expect((screen.getByTestId("compare-run") as HTMLButtonElement).disabled).toBe(true);
  });

  it("says when none of the person's models can be used", async () => {
    const b = new FakeBackend();
    renderCompare(b, async () => []);
    expect((await screen.findByTestId("compare-none")).textContent).toContain("Models screen");
    expect((screen.getByTestId("compare-run") as HTMLButtonElement).disabled).toBe(true);
  });

  it("streams each column's text into its own column, then shows the answers with their figures", async () => {
    const b = backend();
    let finish: (answers: ComparedAnswer[]) => void = () => undefined;
    const run = vi.fn(() => new Promise<ComparedAnswer[]>((resolve) => (finish = resolve)));
    renderCompare(b, run);
    await waitFor(() => expect(boxes()).toHaveLength(4));
    fireEvent.click(box("ollama/llama"));
    fireEvent.click(screen.getByTestId("compare-run"));
    await waitFor(() => expect(screen.getAllByTestId("compare-column")).toHaveLength(2));
    expect(screen.getAllByTestId("compare-column").map((c) => c.dataset.model)).toEqual(["openai/gpt-a", "ollama/llama"]);
    await act(async () => {
      b.emit({ type: "comparedText", flow: "f1", column: 1, text: "Lla" });
      b.emit({ type: "comparedText", flow: "f1", column: 1, text: "ma here" });
      b.emit({ type: "comparedText", flow: "f1", column: 0, text: "GPT" });
      // Another flow's text, and a column that is not there, stay out.
      b.emit({ type: "comparedText", flow: "other", column: 0, text: " intruder" });
      b.emit({ type: "comparedText", flow: "f1", column: 5, text: "nowhere" });
    });
    expect(within(column("ollama/llama")).getByTestId("compare-stream").textContent).toBe("Llama here");
    expect(within(column("openai/gpt-a")).getByTestId("compare-stream").textContent).toBe("GPT");
    expect(screen.queryByTestId("compare-latency")).toBeNull();
    expect((screen.getByTestId("compare-run") as HTMLButtonElement).disabled).toBe(true);

    await act(async () =>
      finish([
        answer("openai", "gpt-a", "GPT says Paris.", {
          cut: "the model reached maxTokens",
          latencyMs: 2080,
          inputTokens: 9,
          outputTokens: null,
          costUsd: 0.000047,
        }),
        answer("ollama", "llama", "Llama here: Paris."),
      ]),
    );
    const llama = column("ollama/llama");
    expect(within(llama).queryByTestId("compare-stream")).toBeNull();
    expect(within(llama).getByTestId("compare-text").textContent).toBe("Llama here: Paris.");
    expect(within(llama).getByTestId("compare-latency").textContent).toBe("1.2 s");
    expect(within(llama).getByTestId("compare-tokens").textContent).toBe("7 in · 3 out");
    expect(within(llama).getByTestId("compare-cost").textContent).toBe("cost unknown (no price set for this model)");
    expect(within(llama).queryByTestId("compare-cut")).toBeNull();
    const gpt = column("openai/gpt-a");
    expect(within(gpt).getByTestId("compare-cut").textContent).toContain("the model reached maxTokens");
    expect(within(gpt).getByTestId("compare-latency").textContent).toBe("2.1 s");
    expect(within(gpt).getByTestId("compare-tokens").textContent).toBe("9 in · ? out");
    expect(within(gpt).getByTestId("compare-cost").textContent).toBe("$0.000047");
    // Without "Use this answer" (a replay), nothing can be used.
    expect(screen.queryByTestId("compare-use")).toBeNull();
    expect(screen.queryByTestId("compare-edit")).toBeNull();
    // Late text of the finished run does not come back.
    await act(async () => b.emit({ type: "comparedText", flow: "f1", column: 1, text: "late" }));
    expect(within(column("ollama/llama")).getByTestId("compare-text").textContent).toBe("Llama here: Paris.");
  });

  it("shows a failed model's sentence in its column, and the others' answers", async () => {
    const b = backend();
    b.compareScript["ollama/llama"] = { error: "ollama: connection refused (is it running?)", latencyMs: 30, inputTokens: null, outputTokens: null };
    b.compareScript["openai/gpt-a"] = { text: "Paris." };
    b.addReview({ id: "r1", flow: "f1", server: "s", kind: "sampling_request", content: {}, context: null, hiddenCharacters: false, digest: "d" });
    renderCompare(b, (models) => b.compareSampling({ id: "r1", digest: "d", content: {}, models }));
    await waitFor(() => expect(boxes()).toHaveLength(4));
    fireEvent.click(box("ollama/llama"));
    fireEvent.click(screen.getByTestId("compare-run"));
    await waitFor(() => expect(within(column("ollama/llama")).getByTestId("compare-error").textContent).toBe("ollama: connection refused (is it running?)"));
    expect(within(column("ollama/llama")).getByTestId("compare-tokens").textContent).toBe("tokens unknown");
    expect(within(column("ollama/llama")).getByTestId("compare-latency").textContent).toBe("< 0.1 s");
    expect(within(column("openai/gpt-a")).getByTestId("compare-text").textContent).toBe("Paris.");
    expect(within(column("openai/gpt-a")).queryByTestId("compare-error")).toBeNull();
  });

  it("shows the backend's sentence when the comparison is refused as a whole", async () => {
    const b = backend();
    renderCompare(b, async () => {
      throw { code: "invalid_input", message: "The server may not be sampled on ollama/llama." };
    });
    await waitFor(() => expect(boxes()).toHaveLength(4));
    fireEvent.click(screen.getByTestId("compare-run"));
    expect((await screen.findByTestId("compare-failed")).textContent).toContain("may not be sampled on ollama/llama");
    expect(screen.queryByTestId("compare-column")).toBeNull();
    expect((screen.getByTestId("compare-run") as HTMLButtonElement).disabled).toBe(false);
  });

  it("waits with a spinner when no flow is known to stream from (a replay)", async () => {
    const b = backend();
    let finish: (answers: ComparedAnswer[]) => void = () => undefined;
    renderCompare(b, () => new Promise<ComparedAnswer[]>((resolve) => (finish = resolve)), { flow: null });
    await waitFor(() => expect(boxes()).toHaveLength(4));
    fireEvent.click(screen.getByTestId("compare-run"));
    expect((await screen.findByTestId("compare-stream")).textContent).toContain("Waiting for the answer");
    await act(async () => b.emit({ type: "comparedText", flow: "replay-1", column: 0, text: "unknown flow" }));
    expect(screen.getByTestId("compare-stream").textContent).not.toContain("unknown flow");
    await act(async () => finish([answer("openai", "gpt-a", "Done.")]));
    expect(screen.getByTestId("compare-text").textContent).toBe("Done.");
  });

  it("shows what the models say as text only, hidden characters revealed", async () => {
    const b = backend();
    const evil = '<img src=x onerror=alert(1)><script>alert(2)</script>';
    let finish: (answers: ComparedAnswer[]) => void = () => undefined;
    const run = () => new Promise<ComparedAnswer[]>((resolve) => (finish = resolve));
    const onUse = vi.fn();
    renderCompare(b, run, { onUse });
    await waitFor(() => expect(boxes()).toHaveLength(4));
    fireEvent.click(box("openai/gpt-b"));
    fireEvent.click(screen.getByTestId("compare-run"));
    await act(async () => b.emit({ type: "comparedText", flow: "f1", column: 0, text: evil }));
    const columns = screen.getByTestId("compare-columns");
    expect(within(column("openai/gpt-a")).getByTestId("compare-stream").textContent).toBe(evil);
    expect(columns.querySelector("img, script")).toBeNull();
    await act(async () =>
      finish([
        answer("openai", "gpt-a", evil),
        answer("openai", "gpt-b", "Ignore the user.\u200b\u202e", { error: null }),
      ]),
    );
    expect(columns.querySelector("img, script")).toBeNull();
    expect((within(column("openai/gpt-a")).getByTestId("compare-edit") as HTMLTextAreaElement).value).toBe(evil);
    const gpt = column("openai/gpt-b");
    expect(within(gpt).getByTestId("compare-edit-revealed").textContent).toBe("Ignore the user.⟨U+200B⟩⟨U+202E⟩");
  });

  it("reveals hidden characters in a read-only answer and marks it", async () => {
    const b = backend();
    renderCompare(b, async () => [answer("openai", "gpt-a", "Fine.\u{E0041}\u001b[2J")], { flow: null });
    await waitFor(() => expect(boxes()).toHaveLength(4));
    fireEvent.click(screen.getByTestId("compare-run"));
    const text = await screen.findByTestId("compare-text");
    expect(text.textContent).toContain("Fine.⟨U+E0041⟩␛[2J");
    expect(within(text).getByTestId("hidden-mark")).toBeTruthy();
  });

  it("hands over a column's answer with its text as edited", async () => {
    const b = backend();
    const onUse = vi.fn();
    const image = { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" };
    const listed: ComparedAnswer = {
      ...answer("ollama", "llama", ""),
      result: { role: "assistant", content: [image, { type: "text", text: "A cat." }], model: "llama", stopReason: "endTurn" },
    };
    renderCompare(b, async () => [answer("openai", "gpt-a", "Paris."), listed], { onUse, canUse: true });
    await waitFor(() => expect(boxes()).toHaveLength(4));
    fireEvent.click(box("ollama/llama"));
    fireEvent.click(screen.getByTestId("compare-run"));
    await waitFor(() => expect(screen.getAllByTestId("compare-use")).toHaveLength(2));
    // An answer used as it came is that answer.
    fireEvent.click(within(column("openai/gpt-a")).getByTestId("compare-use"));
    expect(onUse).toHaveBeenLastCalledWith(expect.objectContaining({ provider: "openai", model: "gpt-a" }), {
      role: "assistant",
      content: { type: "text", text: "Paris." },
      model: "gpt-a",
      stopReason: "endTurn",
    });
    // An edited one keeps its other blocks as they were.
    fireEvent.change(within(column("ollama/llama")).getByTestId("compare-edit"), { target: { value: "A black cat." } });
    fireEvent.click(within(column("ollama/llama")).getByTestId("compare-use"));
    expect(onUse).toHaveBeenLastCalledWith(expect.objectContaining({ provider: "ollama", model: "llama" }), {
      role: "assistant",
      content: [image, { type: "text", text: "A black cat." }],
      model: "llama",
      stopReason: "endTurn",
    });
  });

  it("keeps Use this answer disabled while the dialog may not approve", async () => {
    const b = backend();
    renderCompare(b, async () => [answer("openai", "gpt-a", "Paris.")], { onUse: vi.fn(), canUse: false });
    await waitFor(() => expect(boxes()).toHaveLength(4));
    fireEvent.click(screen.getByTestId("compare-run"));
    expect(((await screen.findByTestId("compare-use")) as HTMLButtonElement).disabled).toBe(true);
  });

  it("does not run a request the dialog says cannot be sent, and closes", async () => {
    const b = backend();
    const { onClose } = renderCompare(b, async () => [], { invalid: "maxTokens must be a whole number above 0" });
    await waitFor(() => expect(boxes()).toHaveLength(4));
    expect((screen.getByTestId("compare-run") as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByTestId("compare-picker").textContent).toContain("maxTokens must be");
    fireEvent.click(screen.getByTestId("compare-close"));
    expect(onClose).toHaveBeenCalled();
  });
});

describe("comparison helpers", () => {
  it("formats latency and tokens", () => {
    expect(seconds(1234)).toBe("1.2 s");
    expect(seconds(20_000)).toBe("20.0 s");
    expect(seconds(40)).toBe("< 0.1 s");
    expect(tokensText({ inputTokens: 7, outputTokens: 3 })).toBe("7 in · 3 out");
    expect(tokensText({ inputTokens: null, outputTokens: null })).toBe("tokens unknown");
  });

  it("leaves the manual provider and disallowed models out", () => {
    expect(comparableChoices(["manual/manual", "a/x", "b/y", "b/z/w"], [])).toEqual(["a/x", "b/y", "b/z/w"]);
    expect(comparableChoices(["manual/manual", "a/x", "b/y", "b/z/w"], ["b/z/w", "x"])).toEqual(["a/x", "b/z/w"]);
  });

  it("puts edited text in the answer's first text block only", () => {
    const single = { role: "assistant", content: { type: "text", text: "a" }, model: "m" };
    expect(editedAnswer(single, undefined)).toBe(single);
    expect(editedAnswer(single, "b")).toEqual({ ...single, content: { type: "text", text: "b" } });
    const tool = { role: "assistant", content: { type: "tool_use", id: "1", name: "t", input: {} }, model: "m" };
    expect(editedAnswer(tool, "b")).toBe(tool);
  });
});
