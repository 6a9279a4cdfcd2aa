// Hidden characters made visible, as the core's `visible` module does: zero-width and bidi
// controls, Unicode tags, control characters and the like become ⟨U+XXXX⟩, ESC becomes ␛.
// A server can hide instructions for the model in text a person cannot see; dialogs show them.

// The same set as `is_hidden` in src-tauri/base/src/visible.rs (its test
// `the_window_hides_exactly_the_same_characters` reads this line and compares).
const HIDDEN =
  /[\u0000-\u0008\u000B-\u001F\u007F-\u009F\u00AD\u034F\u061C\u115F\u1160\u180B-\u180F\u3164\uFFA0\u200B-\u200F\u2028-\u202E\u2060-\u206F\uFEFF\uFFF9-\uFFFB\u{1BCA0}-\u{1BCA3}\u{1D173}-\u{1D17A}\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}]/gu;

/** Whether `s` contains a character a person would not see. */
export function hasHidden(s: string): boolean {
  HIDDEN.lastIndex = 0;
  return HIDDEN.test(s);
}

/** `s` with every hidden character replaced by a visible marker. */
export function reveal(s: string): string {
  return s.replace(HIDDEN, (c) => {
    if (c === "\u001B") return "␛";
    const cp = c.codePointAt(0) ?? 0;
    return `⟨U+${cp.toString(16).toUpperCase().padStart(4, "0")}⟩`;
  });
}
