// Starts the live window in `root`: the Tauri backend in the app, an in-memory fake with
// `?backend=fake` (for working on the UI in a browser).
import { createRoot } from "react-dom/client";
import type { Backend } from "./backend";
import { App } from "./app";

async function backend(): Promise<Backend> {
  if (new URLSearchParams(location.search).get("backend") === "fake") {
    const { demoBackend } = await import("./backend/fake");
    return demoBackend();
  }
  const { tauriBackend } = await import("./backend/tauri");
  return tauriBackend;
}

/** Renders the app into `root`, replacing the static sidebar of the first paint. */
export async function start(root: HTMLElement): Promise<void> {
  const b = await backend();
  createRoot(root).render(<App backend={b} />);
}
