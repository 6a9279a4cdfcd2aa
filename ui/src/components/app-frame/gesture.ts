// Full screen only after the person's gesture in the view. A view's `ui/request-display-mode` for
// "fullscreen" is granted only within GESTURE_MS after focus moved into its frame, once per move.
//
// Why focus: the view is a sandboxed, cross-origin iframe, so the window sees none of the clicks or
// keys inside it. What the window does see is focus moving in: a click (or Tab) into the frame makes
// the iframe element the document's active element, and the window loses focus (its `blur` event;
// per the HTML focus steps the iframe element also gets `focus`). Either event, with
// `document.activeElement === iframe`, is taken as the person acting in that view; a view cannot
// fake it from inside by posting messages. Limits: focus that stays in the frame shows nothing more,
// so a click on the view's own button long after the person first clicked into it is refused (the
// frame's "Full screen" button is always there); and an engine that let a cross-origin frame take
// focus by script alone would let that view pass, once per move, still under the approval dialog
// and with the frame's "Exit full screen" button in reach.
import type { McpUiDisplayMode } from "@modelcontextprotocol/ext-apps/app-bridge";
import { DISPLAY_MODES } from "./host-context";

/** How long after focus moved into the frame a request for full screen counts as the person's. */
export const GESTURE_MS = 5000;

/** When focus last moved into one frame; a grant spends it. */
export class FrameGesture {
  private at: number | null = null;
  constructor(private readonly now: () => number = () => performance.now()) {}

  /** Focus moved: remembered if it is now in `frame` (true then). */
  focusMoved(frame: HTMLIFrameElement): boolean {
    const inside = frame.ownerDocument.activeElement === frame;
    if (inside) this.at = this.now();
    return inside;
  }

  /** True, once, within GESTURE_MS of focus moving into the frame. */
  take(): boolean {
    const recent = this.at !== null && this.now() - this.at <= GESTURE_MS;
    this.at = null;
    return recent;
  }
}

/** Tells `gesture` when focus may have moved into `frame`; returns the unsubscribe. */
export function watchFocus(frame: HTMLIFrameElement, gesture: FrameGesture): () => void {
  const win = frame.ownerDocument.defaultView ?? window;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const check = () => void gesture.focusMoved(frame);
  // Some engines update the active element only after `blur` ran: then look again just after it
  // (only then: a second look would give a gesture already spent back).
  const onBlur = () => {
    clearTimeout(timer);
    if (!gesture.focusMoved(frame)) timer = setTimeout(check, 0);
  };
  win.addEventListener("blur", onBlur);
  frame.addEventListener("focus", check);
  return () => {
    win.removeEventListener("blur", onBlur);
    frame.removeEventListener("focus", check);
    clearTimeout(timer);
  };
}

/** The mode a view's request gets: a known one, but full screen only after the person's gesture. */
export function grantedMode(requested: McpUiDisplayMode, current: McpUiDisplayMode, gesture: FrameGesture): McpUiDisplayMode {
  if (!DISPLAY_MODES.includes(requested)) return current;
  if (requested === "fullscreen" && current !== "fullscreen" && !gesture.take()) return current;
  return requested;
}
