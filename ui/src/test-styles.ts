// The app's stylesheet in the test document: jsdom does not lay out, but it cascades, so tests
// can check the styles a layout relies on (overflow, min-height) on the rendered elements.
import css from "./styles.css?raw";

export function withAppStyles(): () => void {
  const style = document.createElement("style");
  style.textContent = css;
  document.head.append(style);
  return () => style.remove();
}
