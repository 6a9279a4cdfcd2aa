import { act, fireEvent, render, screen, waitFor } from "@testing-library/react";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { App } from "./app";
import { FakeBackend } from "./backend/fake";
import type { ServerStatus } from "./bindings/ServerStatus";
import { shellHtml } from "./shell";
import { withAppStyles } from "./test-styles";

const SCREENS = ["servers", "gallery", "chat", "tools", "resources", "prompts", "skills", "roots", "models", "approvals", "traffic"];

function scrolls(el: Element): boolean {
  const style = getComputedStyle(el);
  return [style.overflow, style.overflowY].some((o) => o === "auto" || o === "scroll");
}

describe("App layout", () => {
  let removeStyles: () => void = () => undefined;
  beforeEach(() => {
    removeStyles = withAppStyles();
  });
  afterEach(() => removeStyles());

  it("gives every screen the window's height, with its content scrolling inside it", async () => {
    render(<App backend={new FakeBackend().addServer("everything")} />);
    const main = document.querySelector("main.main")!;
    expect(getComputedStyle(main).display).toBe("flex");
    expect(getComputedStyle(main).flexDirection).toBe("column");
    for (const id of SCREENS) {
      const before = main.firstElementChild;
      fireEvent.click(screen.getByTestId(`nav-${id}`));
      // A screen's script loads when it is first opened; until it has, React may keep the screen
      // before on the page, then show the loading line.
      await waitFor(() => {
        expect(main.firstElementChild).not.toBeNull();
        // The window opens on Servers: clicking it changes nothing.
        if (id !== "servers") expect(main.firstElementChild).not.toBe(before);
        expect(screen.queryByTestId("screen-loading")).toBeNull();
        // Nor is the screen itself still loading what it shows (Roots reads the roots first).
        expect(main.firstElementChild!.textContent).not.toBe("Loading…");
      });
      if (id === "chat") {
        fireEvent.click(await screen.findByTestId("new-chat"));
        await screen.findByTestId("chat-messages");
      }
      const root = main.firstElementChild!;
      // Sized by the window, not by its content: otherwise the window clips it and nothing scrolls.
      expect(getComputedStyle(root).flexGrow, id).toBe("1");
      expect(getComputedStyle(root).minHeight, id).toMatch(/^0(px)?$/);
      const panes = root.classList.contains("split") ? [...root.children] : [root];
      for (const pane of panes) {
        // The chat keeps its composer in view: its messages scroll instead.
        const scroller = scrolls(pane) ? pane : pane.querySelector(".messages");
        expect(scroller && scrolls(scroller), `${id}: ${pane.className}`).toBe(true);
      }
    }
  });
});

describe("Screens that load when first opened", () => {
  it("take the screen before off the page at once, not hidden behind the loading one", async () => {
    render(<App backend={new FakeBackend().addServer("everything")} />);
    fireEvent.click(screen.getByTestId("nav-resources"));
    await screen.findByRole("region", { name: "Resources" });
    fireEvent.click(screen.getByTestId("nav-prompts"));
    expect(screen.queryByRole("region", { name: "Resources", hidden: true })).toBeNull();
    await screen.findByRole("region", { name: "Prompts" });
    expect(document.querySelectorAll("[data-testid=server-picker]")).toHaveLength(1);
  });
});

describe("The first paint", () => {
  it("draws the sidebar as the live window does, inert until the script replaces it", async () => {
    const shell = document.createElement("div");
    shell.innerHTML = shellHtml();
    expect(shell.querySelector(".app")!.hasAttribute("inert")).toBe(true);
    const { container } = render(<App backend={new FakeBackend()} />);
    await screen.findByText("No servers");
    const tabs = (root: ParentNode) =>
      [...root.querySelectorAll("nav.sidebar [role=tab]")].map((t) => [
        t.textContent,
        t.className,
        t.getAttribute("aria-selected"),
        t.getAttribute("tabindex"),
      ]);
    expect(tabs(shell)).toEqual(tabs(container));
    expect(tabs(shell)).toHaveLength(12);
    const frame = (root: ParentNode) =>
      [...root.querySelectorAll(".app, nav.sidebar, .brand, ul[role=tablist], .summary, main.main")].map((e) => [e.tagName, e.className]);
    expect(frame(shell)).toEqual(frame(container));
    expect(shell.querySelector(".brand")!.textContent).toBe(container.querySelector(".brand")!.textContent);
  });
});

describe("App header", () => {
  it("does not count a restart the user asked for as failing, until it is over", async () => {
    const b = new FakeBackend().addServer("alpha");
    render(<App backend={b} />);
    const summary = () => document.querySelector(".summary")!.textContent;
    fireEvent.click(await screen.findByTestId("server-restart"));
    await waitFor(() => expect(b.calls.some((c) => c.method === "restartServer")).toBe(true));
    const retry: ServerStatus = {
      state: "restarting",
      attempt: 1,
      retryInMs: 1000,
      error: { code: "transport_closed", message: "exited while restarting" },
    };
    await act(async () => b.emit({ type: "status", server: "alpha", status: retry }));
    expect(summary()).toBe("0 of 1 running");
    await act(() => b.startServer("alpha"));
    await waitFor(() => expect(summary()).toBe("1 of 1 running"));
    // The restart is over: a crash now is a failure.
    await act(async () => b.emit({ type: "status", server: "alpha", status: retry }));
    await waitFor(() => expect(summary()).toBe("0 of 1 running1 failing"));
  });
});

describe("App screens", () => {
  it("keeps the chosen tool while another screen is shown", async () => {
    const b = new FakeBackend().addServer("everything");
    render(<App backend={b} />);
    fireEvent.click(screen.getByTestId("nav-tools"));
    fireEvent.click(await screen.findByText("Structured weather"));
    expect(screen.getByRole("heading", { level: 2, name: "weather" })).toBeTruthy();
    fireEvent.click(screen.getByTestId("nav-servers"));
    fireEvent.click(screen.getByTestId("nav-tools"));
    expect(await screen.findByRole("heading", { level: 2, name: "weather" })).toBeTruthy();
    const chosen = screen.getAllByTestId("tool-item").find((t) => t.getAttribute("aria-selected") === "true");
    expect(chosen?.dataset["name"]).toBe("weather");
  });
});

describe("A sign-in that ended", () => {
  let removeStyles: () => void = () => undefined;
  beforeEach(() => {
    removeStyles = withAppStyles();
  });
  afterEach(() => removeStyles());

  it("is announced on every screen, above it, until the person signs in again", async () => {
    const b = new FakeBackend().addServer("local").addServer("tracker", undefined, { url: "https://t.example/mcp" });
    render(<App backend={b} />);
    fireEvent.click(await screen.findByTestId("nav-tools"));
    expect(screen.queryByTestId("sign-in-ended")).toBeNull();
    const ended: ServerStatus = {
      state: "failed",
      error: { code: "sign_in_expired", message: 'server "tracker" no longer accepts the sign-in' },
    };
    act(() => b.emit({ type: "status", server: "tracker", status: ended }));
    const banner = await screen.findByTestId("sign-in-ended");
    expect(banner.textContent).toMatch(/sign-in to tracker has ended/);
    // Not counted as failing: the server waits for the person.
    expect(document.querySelector(".summary")!.textContent).not.toMatch(/failing/);
    // The banner takes its own height; the screen below keeps the rest.
    expect(getComputedStyle(banner).flexGrow).toBe("0");
    expect(getComputedStyle(banner.nextElementSibling!).flexGrow).toBe("1");
    fireEvent.click(screen.getByTestId("sign-in-ended-again"));
    expect(await screen.findByTestId("sign-in-waiting")).toBeTruthy();
    act(() => b.finishSignIn());
    await waitFor(() => expect(screen.queryByTestId("sign-in-ended")).toBeNull());
    expect(b.calls.filter((c) => c.method === "signInServer").map((c) => c.args)).toEqual([["tracker"]]);
  });
});

describe("The window stays on the app", () => {
  it("says when something tried to take it elsewhere, and counts each attempt", async () => {
    const b = new FakeBackend().addServer("alpha");
    render(<App backend={b} />);
    await screen.findByRole("listbox", { name: "Configured servers" });
    expect(screen.queryByTestId("navigation-refused")).toBeNull();
    act(() => b.refuseNavigation("example.com"));
    const notice = await screen.findByTestId("navigation-refused");
    expect(notice.textContent).toContain("example.com");
    expect(notice.dataset.count).toBe("1");
    act(() => b.refuseNavigation("127.0.0.1"));
    await waitFor(() => expect(screen.getByTestId("navigation-refused").dataset.count).toBe("2"));
    fireEvent.click(screen.getByTestId("navigation-refused-dismiss"));
    expect(screen.queryByTestId("navigation-refused")).toBeNull();
  });
});
