// Entry point: the Tauri backend in the app, an in-memory fake with `?backend=fake` (for working
// on the UI in a browser).
import { createRoot } from "react-dom/client";
import type { Backend } from "./backend";
import { App } from "./app";
import "./styles.css";

async function backend(): Promise<Backend> {
  if (new URLSearchParams(location.search).get("backend") === "fake") {
    const { demoBackend } = await import("./backend/fake");
    return demoBackend();
  }
  const { tauriBackend } = await import("./backend/tauri");
  return tauriBackend;
}

const root = document.getElementById("app");
if (root) {
  void backend().then((b) => createRoot(root).render(<App backend={b} />));
}
