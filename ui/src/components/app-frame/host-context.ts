// What the host tells a view about where it is shown (MCP Apps host context): theme, display mode,
// size, locale, platform and the tool it belongs to; and the bounds a view's height is kept in.
import type { McpUiDisplayMode, McpUiHostContext, McpUiTheme } from "@modelcontextprotocol/ext-apps/app-bridge";
import type { Tool as SdkTool } from "@modelcontextprotocol/client";
import type { Tool } from "../../mcp";

export const DISPLAY_MODES: McpUiDisplayMode[] = ["inline", "fullscreen"];

/** Inline heights a view may ask for: never a sliver, never taller than a large window. */
export const MIN_HEIGHT = 60;
export const MAX_HEIGHT = 1600;
export const INITIAL_HEIGHT = 240;

export function clampHeight(height: unknown): number | null {
  if (typeof height !== "number" || !Number.isFinite(height)) return null;
  return Math.round(Math.min(MAX_HEIGHT, Math.max(MIN_HEIGHT, height)));
}

const DARK = "(prefers-color-scheme: dark)";

/** The window follows the system's scheme (styles.css), so the view is told the same. */
export function currentTheme(): McpUiTheme {
  return typeof window.matchMedia === "function" && window.matchMedia(DARK).matches ? "dark" : "light";
}

/** Calls `onChange` when the system's scheme changes; returns the unsubscribe. */
export function watchTheme(onChange: (theme: McpUiTheme) => void): () => void {
  if (typeof window.matchMedia !== "function") return () => undefined;
  const query = window.matchMedia(DARK);
  const listener = () => onChange(query.matches ? "dark" : "light");
  query.addEventListener?.("change", listener);
  return () => query.removeEventListener?.("change", listener);
}

export function hostContext(input: {
  tool: Tool;
  theme: McpUiTheme;
  displayMode: McpUiDisplayMode;
  width: number | null;
  height: number | null;
}): McpUiHostContext {
  const { displayMode, width, height } = input;
  const containerDimensions =
    displayMode === "fullscreen" && width && height
      ? { width, height }
      : width
        ? { width, maxHeight: MAX_HEIGHT }
        : { maxHeight: MAX_HEIGHT };
  return {
    toolInfo: { tool: input.tool as SdkTool },
    theme: input.theme,
    displayMode,
    availableDisplayModes: DISPLAY_MODES,
    containerDimensions,
    locale: typeof navigator !== "undefined" && navigator.language ? navigator.language : "en",
    timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
    platform: "desktop",
  };
}
