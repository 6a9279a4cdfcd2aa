// Entry point. index.html already holds the sidebar as static markup (src/shell.ts); this script
// is small so that WebKit paints it at once, and the app's own script loads after that frame
// (requestAnimationFrame runs before the frame is painted, the timeout after it). A window that
// is not shown gets no frames: then the app starts after 100 ms all the same.
import "./styles.css";

const root = document.getElementById("app");
if (root) {
  let started = false;
  const start = () => {
    if (started) return;
    started = true;
    void import("./start").then((m) => m.start(root));
  };
  requestAnimationFrame(() => setTimeout(start));
  setTimeout(start, 100);
}
