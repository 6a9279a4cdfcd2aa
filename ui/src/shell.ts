// The window's screens, and its first paint: the sidebar as static markup that vite.config.ts puts
// into index.html at build time, so the window shows it before the script has loaded. React then
// replaces it with the live sidebar, drawn the same (app.test.tsx checks that they agree). The
// copy is inert: nothing in it can be clicked before the real one is there.

/** The screens in the sidebar, in order; the first is the one the window opens on. */
export const SCREENS = [
  { id: "servers", label: "Servers" },
  { id: "gallery", label: "Gallery" },
  { id: "chat", label: "Chat" },
  { id: "tools", label: "Tools" },
  { id: "tasks", label: "Tasks" },
  { id: "resources", label: "Resources" },
  { id: "prompts", label: "Prompts" },
  { id: "skills", label: "Skills" },
  { id: "roots", label: "Roots" },
  { id: "models", label: "Models" },
  { id: "approvals", label: "Approvals" },
  { id: "traffic", label: "Traffic" },
] as const;

export type ScreenId = (typeof SCREENS)[number]["id"];

/** The sidebar, on the first screen, as static HTML (the labels are fixed ASCII words). It has no
 *  test ids: a test must never find, and click, the inert copy. */
export function shellHtml(): string {
  const tabs = SCREENS.map((s, i) => {
    const first = i === 0;
    return `<li><button role="tab" aria-selected="${first}" tabindex="${first ? 0 : -1}" class="${first ? "nav active" : "nav"}">${s.label}</button></li>`;
  }).join("");
  return (
    `<div class="app" inert data-shell=""><nav class="sidebar" aria-label="Screens"><div class="brand">Switchboard</div>` +
    `<ul role="tablist" aria-orientation="vertical">${tabs}</ul><div class="summary muted"></div></nav><main class="main"></main></div>`
  );
}
