import { defineConfig } from "vitest/config";

// Tauri serves ui/dist in production and this dev server (fixed port) during `tauri dev`.
// JSX goes through esbuild (no React plugin needed); tests run in jsdom.
export default defineConfig({
  clearScreen: false,
  server: { port: 1420, strictPort: true },
  esbuild: { jsx: "automatic" },
  build: { target: "es2022", outDir: "dist", emptyOutDir: true },
  // Tests read the real stylesheet (test-styles.ts) to check the layout rules.
  test: { environment: "jsdom", setupFiles: ["./src/test-setup.ts"], css: { include: [/styles\.css/] } },
});
