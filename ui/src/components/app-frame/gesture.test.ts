// Full screen after the person's gesture: focus moving into the frame counts for GESTURE_MS, once,
// on a clock the test turns; a request to leave full screen needs no gesture.
import { afterEach, describe, expect, it } from "vitest";
import type { McpUiDisplayMode } from "@modelcontextprotocol/ext-apps/app-bridge";
import { FrameGesture, GESTURE_MS, grantedMode, watchFocus } from "./gesture";

function frameWithClock() {
  const frame = document.createElement("iframe");
  document.body.append(frame);
  let now = 1000;
  const gesture = new FrameGesture(() => now);
  const unwatch = watchFocus(frame, gesture);
  return { frame, gesture, unwatch, pass: (ms: number) => (now += ms) };
}

afterEach(() => document.body.replaceChildren());

describe("FrameGesture", () => {
  it("counts focus moving into the frame for GESTURE_MS, once", () => {
    const { frame, gesture, unwatch, pass } = frameWithClock();
    expect(gesture.take()).toBe(false);
    frame.focus();
    window.dispatchEvent(new Event("blur"));
    pass(GESTURE_MS);
    expect(gesture.take()).toBe(true);
    expect(gesture.take()).toBe(false);

    unwatch();
  });

  it("no longer counts once GESTURE_MS passed", () => {
    const { frame, gesture, unwatch, pass } = frameWithClock();
    frame.focus();
    pass(GESTURE_MS + 1);
    expect(gesture.take()).toBe(false);
    unwatch();
  });

  it("ignores the window losing focus to anything but the frame", () => {
    const { gesture, unwatch } = frameWithClock();
    const other = document.createElement("button");
    document.body.append(other);
    other.focus();
    window.dispatchEvent(new Event("blur"));
    expect(gesture.take()).toBe(false);
    unwatch();
  });
});

describe("grantedMode", () => {
  it("grants full screen only with a gesture, and inline always", () => {
    const { frame, gesture, unwatch } = frameWithClock();
    expect(grantedMode("fullscreen", "inline", gesture)).toBe("inline");
    frame.focus();
    expect(grantedMode("fullscreen", "inline", gesture)).toBe("fullscreen");
    expect(grantedMode("inline", "fullscreen", gesture)).toBe("inline");
    expect(grantedMode("pip" as McpUiDisplayMode, "inline", gesture)).toBe("inline");
    unwatch();
  });
});
