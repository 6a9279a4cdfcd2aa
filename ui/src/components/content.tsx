// Renders what servers return — text, sanitized markdown, images, audio, resource links and
// embedded resources — and checks structured output against the tool's outputSchema. Nothing a
// server sends is trusted: markdown goes through DOMPurify, links open only over https, and
// hidden characters are shown revealed with a warning (revealed.tsx), in markdown too.
import { Validator } from "@cfworker/json-schema";
import DOMPurify from "dompurify";
import { marked } from "marked";
import { createContext, useContext, useMemo, useState } from "react";
import type { Backend } from "../backend";
import { errorMessage } from "../backend";
import type { CallToolResult, ContentBlock, JsonSchema, ResourceContents } from "../mcp";
import { SANDBOX_HINT_META } from "../mcp";
import { HiddenMark, Revealed } from "./revealed";
import { hasHidden, reveal } from "./visible";

/** Server markdown as safe HTML, its hidden characters revealed in text and attributes (those
 *  written as entities too, so after parsing); `hidden`: whether it showed any. */
export function renderMarkdown(text: string): { html: string; hidden: boolean } {
  const html = marked.parse(text, { async: false, gfm: true });
  // No `style`, `class` or `id`: server text must not dress up as (or cover) the window's own parts.
  // No `area`: an image-map link the click handler (which looks for <a>) does not see would
  // navigate the window itself (content.fuzz.test.tsx).
  const safe = DOMPurify.sanitize(html, {
    USE_PROFILES: { html: true },
    FORBID_TAGS: ["style", "form", "input", "area"],
    FORBID_ATTR: ["style", "class", "id"],
  });
  // Parsed as the window parses it, as a div's contents, in a DOMParser document (inert: nothing
  // in it loads or runs). Not as a whole document: that drops leading whitespace before the body,
  // so a form feed left first (after DOMPurify removed what preceded it) went out unrevealed.
  const root = new DOMParser().parseFromString("", "text/html").createElement("div");
  root.innerHTML = safe;
  const hidden = revealTree(root);
  return { html: hidden ? root.innerHTML : safe, hidden };
}

export function sanitizeMarkdown(text: string): string {
  return renderMarkdown(text).html;
}

/** Reveals the hidden characters of every text and attribute under `root`; whether it found any. */
function revealTree(root: HTMLElement): boolean {
  const walker = root.ownerDocument.createTreeWalker(root, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
  let found = false;
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const texts = node.nodeType === Node.TEXT_NODE ? [node] : Array.from((node as Element).attributes);
    for (const t of texts) {
      const value = t.nodeValue ?? "";
      if (!hasHidden(value)) continue;
      t.nodeValue = reveal(value);
      found = true;
    }
  }
  return found;
}

/** Opens an https link in the system browser; the window provides it (none: links do nothing). */
export const OpenLink = createContext<((url: string) => void) | null>(null);

/** Heuristic: text that uses markdown structure is shown rendered (with a toggle for raw). */
export function looksLikeMarkdown(text: string): boolean {
  return /(^|\n)(#{1,6} |[-*] |\d+\. |```|> )|\*\*[^*]+\*\*|\[[^\]]+\]\([^)]+\)/.test(text);
}

export function Markdown(props: { text: string }) {
  const open = useContext(OpenLink);
  const { html, hidden } = useMemo(() => renderMarkdown(props.text), [props.text]);
  return (
    <>
      {hidden ? <HiddenMark /> : null}
      <div
        className="markdown"
        // A link in server text never navigates the window: https ones open in the browser.
        onClick={(e) => {
          const link = (e.target as Element).closest("a");
          if (!link) return;
          e.preventDefault();
          const href = link.getAttribute("href") ?? "";
          if (open && isHttps(href)) open(href);
        }}
        dangerouslySetInnerHTML={{ __html: html }}
      />
    </>
  );
}

/** Server text kept as it is laid out, its hidden characters revealed. */
function RevealedPre(props: { text: string }) {
  return (
    <pre className="text-block">
      <Revealed text={props.text} />
    </pre>
  );
}

export function TextBlock(props: { text: string; markdown?: boolean | undefined }) {
  const md = props.markdown ?? looksLikeMarkdown(props.text);
  const [raw, setRaw] = useState(false);
  if (!md) return <RevealedPre text={props.text} />;
  return (
    <div className="md-block">
      <button className="link small" onClick={() => setRaw(!raw)}>
        {raw ? "Rendered" : "Raw"}
      </button>
      {raw ? <RevealedPre text={props.text} /> : <Markdown text={props.text} />}
    </div>
  );
}

export function isHttps(url: string): boolean {
  try {
    return new URL(url).protocol === "https:";
  } catch {
    return false;
  }
}

function LinkOut(props: { backend: Backend; uri: string; label: string }) {
  const [error, setError] = useState<string | null>(null);
  if (!isHttps(props.uri)) {
    return (
      <span className="uri">
        <Revealed text={props.label} />{" "}
        <code>
          <Revealed text={props.uri} />
        </code>{" "}
        <CopyButton text={props.uri} />
      </span>
    );
  }
  return (
    <span>
      <a
        href={props.uri}
        onClick={(e) => {
          e.preventDefault();
          props.backend.openExternal(props.uri).catch((err: unknown) => setError(errorMessage(err)));
        }}
      >
        <Revealed text={props.label} />
      </a>{" "}
      <small className="muted">
        <Revealed text={props.uri} />
      </small>
      {error ? <span className="form-error"> {error}</span> : null}
    </span>
  );
}

export function CopyButton(props: { text: string; label?: string }) {
  const [done, setDone] = useState(false);
  return (
    <button
      className="small"
      onClick={() => {
        void navigator.clipboard?.writeText(props.text).then(() => {
          setDone(true);
          setTimeout(() => setDone(false), 1200);
        });
      }}
    >
      {done ? "Copied" : (props.label ?? "Copy")}
    </button>
  );
}

export function base64Size(b64: string): number {
  const pad = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
  return Math.floor((b64.length * 3) / 4) - pad;
}

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** Whether a MIME type is text: `text/*`, JSON or XML (`application/json`, `…+json`, `…+xml`). */
export function isTextMime(mime: string): boolean {
  const type = mime.split(";")[0]!.trim().toLowerCase();
  return type.startsWith("text/") || /^application\/(.+\+)?(json|xml)$/.test(type);
}

/** A base64 blob of a text type as text (in its `charset`, else UTF-8); null when it is not text. */
export function decodeTextBlob(mime: string, blob: string): string | null {
  if (!isTextMime(mime)) return null;
  const charset = /;\s*charset="?([^";]+)/i.exec(mime)?.[1] ?? "utf-8";
  try {
    const bytes = Uint8Array.from(atob(blob), (ch) => ch.charCodeAt(0));
    return new TextDecoder(charset, { fatal: true }).decode(bytes);
  } catch {
    return null;
  }
}

/** One resource's contents: text (also a blob of a text type), JSON, markdown, image, audio or other binary. */
export function ResourceBody(props: { backend: Backend; contents: ResourceContents }) {
  const c = props.contents;
  const mime = c.mimeType ?? "";
  const text = "text" in c ? c.text : decodeTextBlob(mime, c.blob);
  if (text !== null) return <ResourceText uri={c.uri} mime={mime} text={text} />;
  if (!("blob" in c)) return null;
  if (mime.startsWith("image/")) return <ZoomableImage alt={c.uri} src={`data:${mime};base64,${c.blob}`} />;
  if (mime.startsWith("audio/")) return <audio controls src={`data:${mime};base64,${c.blob}`} />;
  return <Binary backend={props.backend} uri={c.uri} mime={mime} blob={c.blob} />;
}

function ResourceText(props: { uri: string; mime: string; text: string }) {
  const { uri, mime, text } = props;
  if (mime.includes("json") || /\.json$/.test(uri)) {
    try {
      return <RevealedPre text={JSON.stringify(JSON.parse(text), null, 2)} />;
    } catch {
      return <RevealedPre text={text} />;
    }
  }
  return <TextBlock text={text} markdown={mime.startsWith("text/markdown") || /\.md$/.test(uri) || undefined} />;
}

const ZOOMS = [0.25, 0.5, 1, 2, 4, 8];

/** An image fitted to the pane; a click (or 100 %) shows it at its real size, − and + zoom from there. */
export function ZoomableImage(props: { src: string; alt: string }) {
  const [zoom, setZoom] = useState<number | "fit">("fit");
  const [width, setWidth] = useState(0);
  const step = (by: number) => {
    const at = ZOOMS.indexOf(zoom === "fit" ? 1 : zoom);
    setZoom(ZOOMS[Math.min(ZOOMS.length - 1, Math.max(0, at + by))]!);
  };
  return (
    <figure className="image-view" data-testid="image-view">
      <div className="image-frame">
        <img
          className={zoom === "fit" ? "media fit" : "media zoomed"}
          alt={props.alt}
          src={props.src}
          title={zoom === "fit" ? "Click for the actual size" : "Click to fit"}
          style={zoom !== "fit" && width ? { width: width * zoom } : undefined}
          onLoad={(e) => setWidth(e.currentTarget.naturalWidth)}
          onClick={() => setZoom(zoom === "fit" ? 1 : "fit")}
        />
      </div>
      <figcaption className="actions">
        <button className="small" aria-label="Zoom out" onClick={() => step(-1)}>
          −
        </button>
        <button className="small" aria-label="Zoom in" onClick={() => step(1)}>
          +
        </button>
        <button className="small" aria-pressed={zoom === "fit"} onClick={() => setZoom("fit")}>
          Fit
        </button>
        <button className="small" aria-pressed={zoom === 1} onClick={() => setZoom(1)}>
          100 %
        </button>
        <span className="muted" data-testid="image-zoom">
          {zoom === "fit" ? "fitted" : `${zoom * 100} %`}
        </span>
      </figcaption>
    </figure>
  );
}

function Binary(props: { backend: Backend; uri: string; mime: string; blob: string }) {
  const [note, setNote] = useState<string | null>(null);
  const name = props.uri.split(/[/:]/).filter(Boolean).pop() ?? "resource.bin";
  return (
    <div className="binary">
      <span>
        Binary{" "}
        {props.mime ? (
          <code>
            <Revealed text={props.mime} />
          </code>
        ) : null}{" "}
        · {formatBytes(base64Size(props.blob))}
      </span>{" "}
      <button
        onClick={() =>
          props.backend
            .saveBytes(name, props.blob)
            .then((p) => setNote(p ? `Saved to ${p}` : null))
            .catch((e: unknown) => setNote(errorMessage(e)))
        }
      >
        Save…
      </button>
      {note ? <small className="muted"> {note}</small> : null}
    </div>
  );
}

export function ContentView(props: { backend: Backend; block: ContentBlock }) {
  const b = props.block;
  switch (b.type) {
    case "text":
      return <TextBlock text={b.text} />;
    case "image":
      return <ZoomableImage alt="image from the server" src={`data:${b.mimeType};base64,${b.data}`} />;
    case "audio":
      return <audio controls src={`data:${b.mimeType};base64,${b.data}`} />;
    case "resource_link":
      return (
        <div className="resource-link">
          <span className="badge">link</span> <LinkOut backend={props.backend} uri={b.uri} label={b.title ?? b.name} />
          {b.description ? (
            <div className="muted">
              <Revealed text={b.description} />
            </div>
          ) : null}
        </div>
      );
    case "resource":
      return (
        <div className="embedded">
          <div className="muted">
            Embedded resource{" "}
            <code>
              <Revealed text={b.resource.uri} />
            </code>
          </div>
          <ResourceBody backend={props.backend} contents={b.resource} />
        </div>
      );
    default:
      return <RevealedPre text={JSON.stringify(b, null, 2)} />;
  }
}

export interface Verdict {
  valid: boolean;
  errors: string[];
}

export function validateStructured(schema: JsonSchema, value: unknown): Verdict {
  try {
    const v = new Validator(schema as ConstructorParameters<typeof Validator>[0], "2020-12", false);
    const r = v.validate(value);
    return {
      valid: r.valid,
      errors: r.errors.filter((e) => e.keyword !== "properties").map((e) => `${e.instanceLocation}: ${e.error}`),
    };
  } catch (e) {
    return { valid: false, errors: [`outputSchema could not be used: ${e instanceof Error ? e.message : String(e)}`] };
  }
}

export function ToolResultView(props: { backend: Backend; result: CallToolResult; outputSchema?: JsonSchema | undefined }) {
  const r = props.result;
  const verdict =
    r.structuredContent !== undefined && props.outputSchema ? validateStructured(props.outputSchema, r.structuredContent) : null;
  return (
    <div className="tool-result" data-testid="tool-result" data-error={r.isError ? "true" : "false"}>
      {r.isError ? <div className="banner error">The tool reported an error</div> : null}
      {typeof r._meta?.[SANDBOX_HINT_META] === "string" ? (
        <div className="banner warn" data-testid="sandbox-hint">
          <Revealed text={r._meta[SANDBOX_HINT_META]} />
        </div>
      ) : null}
      {(r.content ?? []).map((b, i) => (
        <ContentView key={i} backend={props.backend} block={b} />
      ))}
      {r.structuredContent !== undefined ? (
        <div className="structured">
          <h4>Structured content</h4>
          {verdict ? (
            <div className={verdict.valid ? "verdict ok" : "verdict bad"} data-testid="schema-verdict">
              {verdict.valid ? "Matches outputSchema" : "Does not match outputSchema:"}
              {verdict.valid ? null : (
                <ul>
                  {verdict.errors.map((e) => (
                    <li key={e}>
                      <Revealed text={e} />
                    </li>
                  ))}
                </ul>
              )}
            </div>
          ) : null}
          <RevealedPre text={JSON.stringify(r.structuredContent, null, 2)} />
        </div>
      ) : null}
    </div>
  );
}
