import type { Plugin } from "vite";
import { defineConfig } from "vitest/config";
import { shellHtml } from "./src/shell";

/** Puts the sidebar into index.html as static markup: the window's first paint (src/shell.ts). */
function firstPaint(): Plugin {
  const root = '<div id="app"></div>';
  return {
    name: "first-paint",
    transformIndexHtml(html) {
      // A renamed root would otherwise leave the window blank until the script runs, silently.
      if (!html.includes(root)) throw new Error(`index.html has no ${root} for the first paint`);
      return html.replace(root, `<div id="app">${shellHtml()}</div>`);
    },
  };
}

// Tauri serves ui/dist in production and this dev server (fixed port) during `tauri dev`.
// JSX goes through esbuild (no React plugin needed); tests run in jsdom.
export default defineConfig({
  clearScreen: false,
  plugins: [firstPaint()],
  server: { port: 1420, strictPort: true },
  esbuild: { jsx: "automatic" },
  build: { target: "es2022", outDir: "dist", emptyOutDir: true },
  // Tests read the real stylesheet (test-styles.ts) to check the layout rules.
  test: { environment: "jsdom", setupFiles: ["./src/test-setup.ts"], css: { include: [/styles\.css/] } },
});
