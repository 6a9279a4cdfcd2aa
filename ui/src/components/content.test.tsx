import { fireEvent, render, screen } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FakeBackend } from "../backend/fake";
import { withAppStyles } from "../test-styles";
import {
  ContentView,
  decodeTextBlob,
  Markdown,
  OpenLink,
  ResourceBody,
  sanitizeMarkdown,
  ToolResultView,
  validateStructured,
} from "./content";

describe("content rendering", () => {
  it("never lets script through markdown", () => {
    const html = sanitizeMarkdown(
      '# Hi\n\n<script>alert(1)</script>\n\n<img src=x onerror="alert(2)">\n\n[x](javascript:alert(3)) **bold**',
    );
    expect(html).toContain("<h1>Hi</h1>");
    expect(html).toContain("<strong>bold</strong>");
    expect(html).not.toMatch(/<script|onerror|javascript:/i);
  });

  it("keeps no style, class or id from server markdown", () => {
    const html = sanitizeMarkdown(
      '<div style="position:fixed;inset:0;z-index:9" class="review-dialog" id="approve">cover</div>',
    );
    expect(html).toContain("cover");
    expect(html).not.toMatch(/style=|class=|id=/);
  });

  it("opens https links in markdown through the browser and never navigates the window", () => {
    const opened: string[] = [];
    const { container } = render(
      <OpenLink.Provider value={(u) => opened.push(u)}>
        <Markdown text={"[docs](https://example.com/docs) and [local](http://example.com/x)"} />
      </OpenLink.Provider>,
    );
    const [https, http] = [...container.querySelectorAll("a")];
    // fireEvent returns false when the default (navigating) was prevented.
    expect(fireEvent.click(https!)).toBe(false);
    expect(fireEvent.click(http!)).toBe(false);
    expect(opened).toEqual(["https://example.com/docs"]);
  });

  it("shows hidden characters in markdown revealed, with a warning, those written as entities too", () => {
    const b = new FakeBackend();
    const text = "# Pay\u202eyap\n\n- **safe**&#x200B; text\n- [docs](https://example.com \"ti\u200btle\")";
    const { container } = render(<ContentView backend={b} block={{ type: "text", text }} />);
    expect(container.querySelector("h1")?.textContent).toBe("Pay⟨U+202E⟩yap");
    expect(container.querySelector("li")?.textContent).toBe("safe⟨U+200B⟩ text");
    expect(container.querySelector("a")?.getAttribute("title")).toBe("ti⟨U+200B⟩tle");
    expect(screen.getByTestId("hidden-mark")).toBeTruthy();
    expect(container.innerHTML).not.toMatch(/[\u200b\u202e]/);
    // Raw, the text is revealed too.
    fireEvent.click(screen.getByText("Raw"));
    expect(container.querySelector("pre")?.textContent).toContain("# Pay⟨U+202E⟩yap");
  });

  it("shows markdown without hidden characters as it was, with no warning", () => {
    const { container } = render(<Markdown text={"# Title\n\nplain **bold**"} />);
    expect(container.querySelector(".markdown")?.innerHTML).toBe(sanitizeMarkdown("# Title\n\nplain **bold**"));
    expect(container.querySelector("h1")?.textContent).toBe("Title");
    expect(screen.queryByTestId("hidden-mark")).toBeNull();
  });

  it("renders markdown text rendered, with a raw toggle", () => {
    const b = new FakeBackend();
    const { container } = render(<ContentView backend={b} block={{ type: "text", text: "# Title\n\n- one\n- two" }} />);
    expect(container.querySelector("h1")?.textContent).toBe("Title");
    fireEvent.click(screen.getByText("Raw"));
    expect(container.querySelector("pre")?.textContent).toContain("# Title");
  });

  it("shows images and audio from base64 data", () => {
    const b = new FakeBackend();
    const { container } = render(
      <>
        <ContentView backend={b} block={{ type: "image", data: "AAAA", mimeType: "image/png" }} />
        <ContentView backend={b} block={{ type: "audio", data: "BBBB", mimeType: "audio/wav" }} />
      </>,
    );
    expect(container.querySelector("img")?.getAttribute("src")).toBe("data:image/png;base64,AAAA");
    expect(container.querySelector("audio")?.getAttribute("src")).toBe("data:audio/wav;base64,BBBB");
  });

  it("opens only https resource links in the browser", () => {
    const b = new FakeBackend();
    render(
      <>
        <ContentView backend={b} block={{ type: "resource_link", uri: "https://example.com/doc", name: "doc" }} />
        <ContentView backend={b} block={{ type: "resource_link", uri: "file:///etc/passwd", name: "passwd" }} />
      </>,
    );
    fireEvent.click(screen.getByText("doc"));
    expect(b.calls.filter((c) => c.method === "openExternal")).toEqual([{ method: "openExternal", args: ["https://example.com/doc"] }]);
    expect(screen.getByText("file:///etc/passwd").tagName).toBe("CODE");
    expect(screen.queryByRole("link", { name: "passwd" })).toBeNull();
  });

  it("renders embedded text resources", () => {
    const b = new FakeBackend();
    render(<ContentView backend={b} block={{ type: "resource", resource: { uri: "a://b", mimeType: "application/json", text: '{"a":1}' } }} />);
    expect(screen.getByText(/"a": 1/)).toBeTruthy();
  });

  it("validates structured content against the output schema", () => {
    const schema = { type: "object", properties: { temperature: { type: "number" } }, required: ["temperature"] };
    expect(validateStructured(schema, { temperature: 3 })).toEqual({ valid: true, errors: [] });
    const bad = validateStructured(schema, { temperature: "hot" });
    expect(bad.valid).toBe(false);
    expect(bad.errors.join()).toMatch(/temperature/);

    const b = new FakeBackend();
    render(<ToolResultView backend={b} result={{ content: [], structuredContent: { temperature: "hot" }, isError: false }} outputSchema={schema} />);
    expect(screen.getByTestId("schema-verdict").textContent).toMatch(/Does not match outputSchema/);
  });

  it("marks tool errors", () => {
    const b = new FakeBackend();
    render(<ToolResultView backend={b} result={{ content: [{ type: "text", text: "boom" }], isError: true }} />);
    expect(screen.getByTestId("tool-result").dataset["error"]).toBe("true");
    expect(screen.getByText("The tool reported an error")).toBeTruthy();
  });

  it("shows what the sandbox may have refused a result, under the result", () => {
    const b = new FakeBackend();
    const hint = "The sandbox refused server \"files\" access to /home/u/.ssh/id_ed25519.";
    const result = {
      content: [{ type: "text" as const, text: "EACCES: permission denied, open '/home/u/.ssh/id_ed25519'" }],
      isError: true,
      _meta: { "dev.switchboard/sandboxHint": hint },
    };
    render(<ToolResultView backend={b} result={result} />);
    expect(screen.getByTestId("sandbox-hint").textContent).toBe(hint);
  });

  it("shows blobs of text types decoded as text, and other blobs as binary", () => {
    const b = new FakeBackend();
    const encode = (text: string) => btoa(String.fromCharCode(...new TextEncoder().encode(text)));
    const { container } = render(
      <>
        <ResourceBody backend={b} contents={{ uri: "demo://a.txt", mimeType: "text/plain", blob: encode("Grüße aus dem Blob") }} />
        <ResourceBody backend={b} contents={{ uri: "demo://b", mimeType: "application/json", blob: encode('{"a":[1,2]}') }} />
        <ResourceBody backend={b} contents={{ uri: "demo://c.bin", mimeType: "application/octet-stream", blob: encode("xyz") }} />
      </>,
    );
    const blocks = [...container.querySelectorAll("pre")].map((p) => p.textContent);
    expect(blocks).toEqual(["Grüße aus dem Blob", JSON.stringify({ a: [1, 2] }, null, 2)]);
    expect(container.textContent).toContain("Binary application/octet-stream · 3 B");
    expect(decodeTextBlob("text/plain", "/w==")).toBeNull(); // not UTF-8
    expect(decodeTextBlob("image/png", encode("x"))).toBeNull();
  });

  it("shows images fitted, at their real size on a click, and zooms", () => {
    const b = new FakeBackend();
    render(<ContentView backend={b} block={{ type: "image", data: "AAAA", mimeType: "image/png" }} />);
    const img = screen.getByRole("img");
    Object.defineProperty(img, "naturalWidth", { value: 300 });
    fireEvent.load(img);
    expect(img.className).toBe("media fit");
    fireEvent.click(img);
    expect(img.className).toBe("media zoomed");
    expect(img.style.width).toBe("300px");
    fireEvent.click(screen.getByLabelText("Zoom in"));
    expect(img.style.width).toBe("600px");
    expect(screen.getByTestId("image-zoom").textContent).toBe("200 %");
    fireEvent.click(screen.getByLabelText("Zoom out"));
    fireEvent.click(screen.getByLabelText("Zoom out"));
    expect(img.style.width).toBe("150px");
    fireEvent.click(img);
    expect(img.className).toBe("media fit");
    expect(img.style.width).toBe("");
  });

  describe("with the app's styles", () => {
    let removeStyles: () => void = () => undefined;
    beforeEach(() => {
      removeStyles = withAppStyles();
    });
    afterEach(() => removeStyles());

    it("fits images to the pane, not to a thumbnail (that is the approval dialog's)", () => {
      const b = new FakeBackend();
      render(<ContentView backend={b} block={{ type: "image", data: "AAAA", mimeType: "image/png" }} />);
      const img = screen.getByRole("img");
      expect(getComputedStyle(img).maxWidth).toBe("100%");
      fireEvent.click(img);
      expect(getComputedStyle(img).maxWidth).toBe("none");
    });
  });
});
