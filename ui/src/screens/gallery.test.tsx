// The Gallery against the fake registry: searching as one types, in the registry chosen, cards
// from the shown text only, the install form (a version, secrets hidden, values by key, required
// values first, a file from the picker), a declined trust dialog, the offline listing, a bundle
// and an update.
import { act, fireEvent, render, screen, waitFor, within } from "@testing-library/react";
import { afterEach, describe, expect, it, vi } from "vitest";
import { App } from "../app";
import { FAKE_BUNDLE, FAKE_OTHER_REGISTRY, FAKE_REGISTRY } from "../backend/fake-gallery";
import { FakeBackend } from "../backend/fake";
import type { InstallRequest } from "../bindings/InstallRequest";
import type { RegistryPage } from "../bindings/RegistryPage";
import type { RegistrySearch } from "../bindings/RegistrySearch";
import { GalleryScreen } from "./gallery";
import { SEARCH_DELAY_MS } from "./gallery/use-listing";

function calls(b: FakeBackend, method: string): unknown[][] {
  return b.calls.filter((c) => c.method === method).map((c) => c.args);
}

function searched(b: FakeBackend): (string | null)[] {
  return calls(b, "registrySearch").map((a) => (a[0] as RegistrySearch).search);
}

async function card(title: string): Promise<HTMLElement> {
  return screen.findByRole("article", { name: title });
}

async function openInstall(title: string): Promise<HTMLElement> {
  fireEvent.click(within(await card(title)).getByRole("button", { name: "Install" }));
  const dialog = await screen.findByRole("dialog");
  await within(dialog).findByTestId("install-form");
  return dialog;
}

function field(dialog: HTMLElement, key: string): HTMLInputElement {
  const found = within(dialog)
    .getAllByTestId("install-input")
    .find((e) => e.dataset.key === key);
  if (!found) throw new Error(`no field ${key}`);
  return found as HTMLInputElement;
}

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllGlobals();
});

describe("Gallery: searching", () => {
  it("searches once typing pauses, with the term typed, not at each keystroke", async () => {
    const b = new FakeBackend();
    render(<GalleryScreen backend={b} />);
    await card("Weather");
    expect(searched(b)).toEqual([null]);
    const box = screen.getByRole("searchbox", { name: "Search the registry" });
    for (const typed of ["w", "we", "wea"]) fireEvent.change(box, { target: { value: typed } });
    expect(searched(b)).toEqual([null]);
    await waitFor(() => expect(searched(b)).toEqual([null, "wea"]));
    await waitFor(() => expect(screen.getAllByRole("article").map((a) => a.getAttribute("aria-label"))).toEqual(["Weather", "Legacy"]));
  });

  it("shows the listing kept on this computer at once, then the registry's answer, and refreshes the kept one", async () => {
    const b = new FakeBackend();
    let answer: (page: RegistryPage) => void = () => undefined;
    b.registrySearch = (query) => {
      b.calls.push({ method: "registrySearch", args: [query] });
      return new Promise((resolve) => (answer = resolve));
    };
    render(<GalleryScreen backend={b} />);
    await card("Weather");
    expect(screen.getByTestId("gallery-kept")).toBeTruthy();
    expect(screen.queryByTestId("gallery-offline")).toBeNull();
    expect(calls(b, "registryRefresh")).toHaveLength(1);
    const only = await new FakeBackend().registrySearch({ registry: null, search: "files", cursor: null, limit: null });
    await act(async () => answer({ ...only, offline: false }));
    expect(screen.getAllByRole("article").map((a) => a.getAttribute("aria-label"))).toEqual(["Files"]);
    expect(screen.queryByTestId("gallery-kept")).toBeNull();
  });

  it("says it is offline when the registry cannot be reached", async () => {
    const b = new FakeBackend();
    b.registryReachable = false;
    render(<GalleryScreen backend={b} />);
    const note = await screen.findByTestId("gallery-offline");
    expect(note.textContent).toContain("Offline — showing the last listing kept on this computer");
    expect(await card("Weather")).toBeTruthy();
  });

  it("loads the next page with Load more, and by itself when the end scrolls into view", async () => {
    let seen: ((entries: { isIntersecting: boolean }[]) => void) | null = null;
    vi.stubGlobal(
      "IntersectionObserver",
      class {
        constructor(callback: (entries: { isIntersecting: boolean }[]) => void) {
          seen = callback;
        }
        observe() {}
        disconnect() {}
      },
    );
    const b = new FakeBackend();
    b.registryPageSize = 1;
    render(<GalleryScreen backend={b} />);
    await card("Weather");
    fireEvent.click(screen.getByTestId("load-more"));
    await card("Files");
    await waitFor(() => expect(seen).not.toBeNull());
    act(() => seen?.([{ isIntersecting: true }]));
    await card("Legacy");
    expect(calls(b, "registrySearch").map((a) => (a[0] as RegistrySearch).cursor)).toEqual([null, "1", "2"]);
  });
});

describe("Gallery: registries", () => {
  it("offers the registries when there are several, and searches the one chosen", async () => {
    const b = new FakeBackend();
    render(<GalleryScreen backend={b} />);
    await card("Weather");
    const select = (await screen.findByRole("combobox", { name: "Registry" })) as HTMLSelectElement;
    expect(select.dataset.testid).toBe("gallery-registry");
    expect([...select.options].map((o) => [o.value, o.textContent])).toEqual([
      [FAKE_REGISTRY, "registry.modelcontextprotocol.io"],
      [FAKE_OTHER_REGISTRY, "mcp.example.com/registry"],
    ]);
    expect(select.value).toBe(FAKE_REGISTRY);
    // The default registry is asked for as the default.
    expect(calls(b, "registrySearch").map((a) => (a[0] as RegistrySearch).registry)).toEqual([null]);

    fireEvent.change(select, { target: { value: FAKE_OTHER_REGISTRY } });
    expect(calls(b, "registrySearch").map((a) => a[0])).toEqual([
      { registry: null, search: null, cursor: null, limit: null },
      { registry: FAKE_OTHER_REGISTRY, search: null, cursor: null, limit: null },
    ]);
    expect(calls(b, "registryCached").map((a) => (a[0] as RegistrySearch).registry)).toEqual([null, FAKE_OTHER_REGISTRY]);
    expect(calls(b, "registryRefresh").map((a) => (a[0] as RegistrySearch).registry)).toEqual([null, FAKE_OTHER_REGISTRY]);
    // Each card says which registry it came from.
    const other = new URL(FAKE_OTHER_REGISTRY).host;
    await waitFor(() => expect(screen.getByRole("article", { name: "Weather" }).textContent).toContain(other));

    // A term typed is searched in the registry chosen, once typing pauses.
    vi.useFakeTimers();
    fireEvent.change(screen.getByRole("searchbox", { name: "Search the registry" }), { target: { value: "files" } });
    expect(calls(b, "registrySearch")).toHaveLength(2);
    await act(() => vi.advanceTimersByTimeAsync(SEARCH_DELAY_MS));
    vi.useRealTimers();
    expect(calls(b, "registrySearch").at(-1)).toEqual([{ registry: FAKE_OTHER_REGISTRY, search: "files", cursor: null, limit: null }]);
    expect(screen.getAllByRole("article").map((a) => a.getAttribute("aria-label"))).toEqual(["Files"]);

    // Back to the default one.
    fireEvent.change(select, { target: { value: FAKE_REGISTRY } });
    expect(calls(b, "registrySearch").at(-1)).toEqual([{ registry: null, search: "files", cursor: null, limit: null }]);
    await waitFor(() =>
      expect(screen.getByRole("article", { name: "Files" }).textContent).toContain(new URL(FAKE_REGISTRY).host),
    );
  });

  it("offers no choice when there is one registry", async () => {
    const b = new FakeBackend();
    b.registryUrls = [FAKE_REGISTRY];
    render(<GalleryScreen backend={b} />);
    await card("Weather");
    await waitFor(() => expect(calls(b, "registries")).toHaveLength(1));
    expect(screen.queryByTestId("gallery-registry")).toBeNull();
    expect(screen.queryByRole("combobox", { name: "Registry" })).toBeNull();
  });
});

describe("Gallery: cards", () => {
  it("show the listing's shown text: hidden characters revealed, never the server's own words", async () => {
    const b = new FakeBackend();
    b.registry[0]!.listing.server.description = "raw words the server wrote";
    render(<GalleryScreen backend={b} />);
    const notes = await card("Notes");
    expect(notes.textContent).toContain("Keeps notes⟨U+200B⟩ for you");
    expect(document.body.textContent).not.toContain("\u200B");
    expect(document.body.textContent).not.toContain("raw words");
    const weather = await card("Weather");
    expect(weather.textContent).toContain("io.github.example/weather");
    expect(weather.textContent).toContain("v1.2.0");
    expect(within(weather).getAllByTestId("listing-kind").map((k) => k.textContent)).toEqual(["npm", "Remote"]);
    expect(weather.textContent).toContain(new URL(FAKE_REGISTRY).host);
    fireEvent.click(within(weather).getByTestId("listing-repository"));
    expect(calls(b, "openExternal")).toEqual([["https://github.com/example/weather"]]);
  });

  it("mark a deprecated server, with no Install button", async () => {
    render(<GalleryScreen backend={new FakeBackend()} />);
    const legacy = await card("Legacy");
    expect(within(legacy).queryByRole("button", { name: "Install" })).toBeNull();
    expect(within(legacy).getByTestId("listing-status").textContent).toBe("Deprecated");
    expect(legacy.textContent).toContain("Use io.github.example/weather");
  });
});

describe("Gallery: installing from the registry", () => {
  it("asks for a secret in a password field and sends the values by key", async () => {
    const b = new FakeBackend();
    render(<GalleryScreen backend={b} />);
    const dialog = await openInstall("Weather");
    const key = field(dialog, "WEATHER_API_KEY");
    expect(key.type).toBe("password");
    fireEvent.change(key, { target: { value: "sk-secret" } });
    fireEvent.change(field(dialog, "UNITS"), { target: { value: "imperial" } });
    fireEvent.change(within(dialog).getByTestId("install-name"), { target: { value: "wx" } });
    fireEvent.click(within(dialog).getByTestId("install-submit"));
    expect((await screen.findByTestId("gallery-notice")).textContent).toContain("Installed wx");
    expect(calls(b, "installServer")).toEqual([
      [
        {
          server: { registry: FAKE_REGISTRY, name: "io.github.example/weather", version: "1.2.0" },
          choice: { kind: "package", index: 0 },
          kind: null,
          name: "wx",
          values: { WEATHER_API_KEY: "sk-secret", UNITS: "imperial" },
        },
      ],
    ]);
    expect(screen.queryByRole("dialog")).toBeNull();
    expect(document.body.textContent).not.toContain("sk-secret");
  });

  it("offers each way to run it, with what that way asks for", async () => {
    const b = new FakeBackend();
    render(<GalleryScreen backend={b} />);
    const dialog = await openInstall("Weather");
    fireEvent.change(within(dialog).getByTestId("install-choice"), { target: { value: "1" } });
    const token = field(dialog, "Authorization");
    expect(token.type).toBe("password");
    expect(within(dialog).queryAllByTestId("install-input").map((e) => e.dataset.key)).toEqual(["Authorization"]);
    fireEvent.change(token, { target: { value: "Bearer t" } });
    fireEvent.click(within(dialog).getByTestId("install-submit"));
    await screen.findByTestId("gallery-notice");
    const request = calls(b, "installServer")[0]?.[0];
    expect(request).toMatchObject({ choice: { kind: "remote", index: 0 }, name: "weather", values: { Authorization: "Bearer t" } });
  });

  it("does not install while a required value is empty", async () => {
    const b = new FakeBackend();
    render(<GalleryScreen backend={b} />);
    const dialog = await openInstall("Weather");
    fireEvent.click(within(dialog).getByTestId("install-submit"));
    expect(await within(dialog).findByTestId("install-missing")).toBeTruthy();
    expect(field(dialog, "WEATHER_API_KEY").getAttribute("aria-invalid")).toBe("true");
    expect(calls(b, "installServer")).toEqual([]);
  });

  it("sends several values one per line, and a boolean as true or false", async () => {
    const b = new FakeBackend();
    render(<GalleryScreen backend={b} />);
    const dialog = await openInstall("Files");
    const folders = field(dialog, "folder");
    expect(folders.tagName).toBe("TEXTAREA");
    fireEvent.change(folders, { target: { value: "/home/me/a\n\n/home/me/b\n" } });
    fireEvent.click(field(dialog, "--read-only"));
    fireEvent.change(field(dialog, "MAX_FILES"), { target: { value: "5000" } });
    fireEvent.click(within(dialog).getByTestId("install-submit"));
    await within(dialog).findByTestId("install-missing");
    expect(calls(b, "installServer")).toEqual([]);
    fireEvent.change(field(dialog, "MAX_FILES"), { target: { value: "50" } });
    fireEvent.click(within(dialog).getByTestId("install-submit"));
    await screen.findByTestId("gallery-notice");
    expect((calls(b, "installServer")[0]?.[0] as { values: unknown }).values).toEqual({
      folder: "/home/me/a\n/home/me/b",
      "--read-only": "true",
      MAX_FILES: "50",
    });
  });

  it("offers every version, a deprecated one shown but not choosable, and installs the one chosen", async () => {
    const b = new FakeBackend();
    render(<GalleryScreen backend={b} />);
    const dialog = await openInstall("Notes");
    const notes = { registry: FAKE_REGISTRY, name: "io.github.sneaky/notes" };
    const select = (await within(dialog).findByTestId("install-version")) as HTMLSelectElement;
    expect(within(dialog).getByRole("combobox", { name: "Version" })).toBe(select);
    expect(select.value).toBe("1.2.0");
    expect([...select.options].map((o) => [o.value, o.disabled])).toEqual([
      ["1.2.0", false],
      ["1.0.0-beta", false],
      ["0.9.0", true],
    ]);
    expect(select.options[2]?.textContent).toContain("deprecated");
    expect(calls(b, "registryVersions")).toEqual([[{ ...notes, version: "1.2.0" }]]);

    fireEvent.change(select, { target: { value: "1.0.0-beta" } });
    expect(await within(dialog).findByText("v1.0.0-beta")).toBeTruthy();
    expect(calls(b, "installForm")).toEqual([[{ ...notes, version: "1.2.0" }], [{ ...notes, version: "1.0.0-beta" }]]);
    expect((within(dialog).getByTestId("install-version") as HTMLSelectElement).value).toBe("1.0.0-beta");
    fireEvent.click(within(dialog).getByTestId("install-submit"));
    expect((await screen.findByTestId("gallery-notice")).textContent).toContain("Installed notes");
    const request = calls(b, "installServer")[0]?.[0] as InstallRequest;
    expect(request.server).toEqual({ ...notes, version: "1.0.0-beta" });
  });

  it("says calmly that nothing was installed when the person does not trust it", async () => {
    const b = new FakeBackend();
    b.trustAnswer = false;
    render(<GalleryScreen backend={b} />);
    const dialog = await openInstall("Notes");
    fireEvent.click(within(dialog).getByTestId("install-submit"));
    expect((await within(dialog).findByTestId("install-declined")).textContent).toContain("Not installed");
    expect(within(dialog).queryByTestId("install-error")).toBeNull();
    expect(screen.queryByTestId("gallery-notice")).toBeNull();
  });
});

describe("Gallery: a bundle file", () => {
  it("says an unsigned bundle is unsigned, asks for its required setting, and installs it", async () => {
    const b = new FakeBackend();
    render(<GalleryScreen backend={b} />);
    fireEvent.click(screen.getByTestId("open-bundle"));
    const dialog = await screen.findByTestId("bundle-dialog");
    expect(within(dialog).getByTestId("bundle-signature").textContent).toMatch(/unsigned/i);
    fireEvent.click(within(dialog).getByTestId("install-submit"));
    await within(dialog).findByTestId("install-missing");
    expect(calls(b, "installBundle")).toEqual([]);
    fireEvent.change(field(dialog, "sides"), { target: { value: "6" } });
    fireEvent.click(within(dialog).getByTestId("install-submit"));
    expect((await screen.findByTestId("gallery-notice")).textContent).toContain("Installed dice");
    expect(calls(b, "installBundle")).toEqual([["dice", { sides: "6" }]]);
  });

  it("marks a signature ok only when a trusted authority vouches for the signer", async () => {
    const signer = { publisher: "Ada Example", issuer: "Example CA", selfSigned: false, vouchedForBy: null, fingerprint: "ab".repeat(32) };
    for (const [vouchedForBy, shown] of [
      [null, "false"],
      ["Example Root", "true"],
    ] as const) {
      const b = new FakeBackend();
      b.bundleFile = { ...FAKE_BUNDLE, signature: { kind: "signed", ...signer, vouchedForBy }, signatureText: "signed by Ada Example" };
      const { unmount } = render(<GalleryScreen backend={b} />);
      fireEvent.click(screen.getByTestId("open-bundle"));
      const banner = within(await screen.findByTestId("bundle-dialog")).getByTestId("bundle-signature");
      expect(banner.dataset.vouched).toBe(shown);
      expect(banner.classList.contains(shown === "true" ? "ok" : "warn")).toBe(true);
      expect(banner.textContent).toMatch(shown === "true" ? /^Signed —/ : /nobody vouches for/);
      unmount();
    }
  });

  it("fills a file setting's path from the native file picker", async () => {
    const b = new FakeBackend();
    const sides = FAKE_BUNDLE.needs[0]!;
    b.bundleFile = {
      ...FAKE_BUNDLE,
      needs: [sides, { ...sides, key: "notes", description: "Your notes", required: false, format: "file", min: null, max: null }],
    };
    render(<GalleryScreen backend={b} />);
    fireEvent.click(screen.getByTestId("open-bundle"));
    const dialog = await screen.findByTestId("bundle-dialog");
    const buttons = within(dialog).getAllByTestId("install-pick-file");
    expect(buttons.map((e) => e.textContent)).toEqual(["Choose a file…"]);
    expect(within(dialog).queryByTestId("install-pick-folder")).toBeNull();
    fireEvent.click(buttons[0]!);
    await waitFor(() => expect(field(dialog, "notes").value).toBe("/home/me/notes.txt"));
    expect(field(dialog, "sides").value).toBe("");

    // Cancelled: the path stays as it was.
    b.pickedFile = null;
    fireEvent.click(buttons[0]!);
    await waitFor(() => expect(calls(b, "pickFile")).toHaveLength(2));
    expect(field(dialog, "notes").value).toBe("/home/me/notes.txt");

    b.pickedFile = "/home/me/other.txt";
    fireEvent.click(buttons[0]!);
    await waitFor(() => expect(field(dialog, "notes").value).toBe("/home/me/other.txt"));
    fireEvent.change(field(dialog, "sides"), { target: { value: "6" } });
    fireEvent.click(within(dialog).getByTestId("install-submit"));
    await screen.findByTestId("gallery-notice");
    expect(calls(b, "installBundle")).toEqual([["dice", { sides: "6", notes: "/home/me/other.txt" }]]);
  });

  it("shows nothing when the picker is cancelled", async () => {
    const b = new FakeBackend();
    b.bundleFile = null;
    render(<GalleryScreen backend={b} />);
    fireEvent.click(screen.getByTestId("open-bundle"));
    await waitFor(() => expect(calls(b, "pickBundle")).toHaveLength(1));
    expect(screen.queryByRole("dialog")).toBeNull();
  });
});

describe("Gallery: updates", () => {
  it("lists a newer version and updates the server through updateServer", async () => {
    const b = new FakeBackend();
    render(<GalleryScreen backend={b} />);
    const row = await screen.findByTestId("update");
    expect(row.textContent).toContain("weather 1.0.0 → 1.2.0");
    fireEvent.click(within(row).getByTestId("update-server"));
    expect((await screen.findByTestId("gallery-notice")).textContent).toContain("Updated weather to 1.2.0");
    expect(calls(b, "updateServer")).toEqual([["weather"]]);
    expect(screen.queryByTestId("update")).toBeNull();
  });

  it("uninstalls a server after asking", async () => {
    const b = new FakeBackend().addServer("weather");
    render(<GalleryScreen backend={b} />);
    fireEvent.click(within(await screen.findByTestId("update")).getByTestId("uninstall-server"));
    fireEvent.click(screen.getByTestId("uninstall-confirm"));
    await waitFor(() => expect(calls(b, "uninstallServer")).toEqual([["weather"]]));
    expect(b.servers).toEqual([]);
  });
});

describe("Gallery in the window", () => {
  it("is a screen of the sidebar", async () => {
    render(<App backend={new FakeBackend()} />);
    fireEvent.click(screen.getByRole("tab", { name: "Gallery" }));
    expect(await screen.findByRole("searchbox", { name: "Search the registry" })).toBeTruthy();
    expect(await card("Weather")).toBeTruthy();
  });
});

describe("a card's icon", () => {
  it("is the picture the core fetched, else the initial, and never the listing's own address", async () => {
    const b = new FakeBackend();
    const listing = b.registry[0]!.listing;
    listing.server.icons = [
      { src: "https://icons.example/dark.png", theme: "dark" },
      { src: "https://icons.example/logo.svg", mimeType: "image/svg+xml" },
      { src: "https://icons.example/light.png" },
    ];
    b.icons["https://icons.example/light.png"] = "data:image/png;base64,iVBORw0KGgo=";
    render(<GalleryScreen backend={b} />);
    const img = await screen.findByTestId("listing-icon");
    expect(img.getAttribute("src")).toBe("data:image/png;base64,iVBORw0KGgo=");
    expect(b.calls.filter((c) => c.method === "registryIcon").map((c) => c.args[0])).toContain("https://icons.example/light.png");
    expect(document.querySelector('img[src^="https://"]')).toBeNull();
  });
});

describe("Gallery: the registries kept", () => {
  const rows = (panel: HTMLElement) => within(panel).getAllByTestId("registry-row").map((r) => r.dataset.url);

  it("adds a private registry, makes it the default, and lists from it once saved", async () => {
    const b = new FakeBackend();
    b.registryUrls = [FAKE_REGISTRY];
    render(<GalleryScreen backend={b} />);
    await screen.findByTestId("gallery-search");
    expect(screen.queryByTestId("gallery-registry")).toBeNull();
    fireEvent.click(screen.getByTestId("manage-registries"));
    const panel = await screen.findByTestId("registries-panel");
    await waitFor(() => expect(rows(panel)).toEqual([FAKE_REGISTRY]));
    expect(within(panel).getByTestId("registry-remove")).toHaveProperty("disabled", true);
    fireEvent.change(within(panel).getByTestId("registry-url"), { target: { value: `${FAKE_OTHER_REGISTRY}/` } });
    fireEvent.click(within(panel).getByTestId("registry-add"));
    const added = within(panel).getAllByTestId("registry-row")[1]!;
    fireEvent.click(within(added).getByTestId("registry-default"));
    expect(rows(panel)).toEqual([`${FAKE_OTHER_REGISTRY}/`, FAKE_REGISTRY]);
    fireEvent.click(within(panel).getByTestId("registries-save"));
    // Written as the gallery calls it, and the picker now lists both, the new one first.
    await waitFor(() => expect(rows(panel)).toEqual([FAKE_OTHER_REGISTRY, FAKE_REGISTRY]));
    expect(calls(b, "setRegistries")).toEqual([[[`${FAKE_OTHER_REGISTRY}/`, FAKE_REGISTRY]]]);
    const picker = (await screen.findByTestId("gallery-registry")) as HTMLSelectElement;
    expect(picker.value).toBe(FAKE_OTHER_REGISTRY);
    expect(within(panel).getByTestId("registries-save")).toHaveProperty("disabled", true);
  });

  it("says which URL was refused and keeps what was typed", async () => {
    const b = new FakeBackend();
    render(<GalleryScreen backend={b} />);
    fireEvent.click(screen.getByTestId("manage-registries"));
    const panel = await screen.findByTestId("registries-panel");
    await waitFor(() => expect(rows(panel)).toEqual([FAKE_REGISTRY, FAKE_OTHER_REGISTRY]));
    fireEvent.change(within(panel).getByTestId("registry-url"), { target: { value: "http://mirror.example.com" } });
    fireEvent.click(within(panel).getByTestId("registry-add"));
    fireEvent.click(within(panel).getByTestId("registries-save"));
    expect((await within(panel).findByTestId("registries-error")).textContent).toContain("http://mirror.example.com");
    expect(rows(panel)).toEqual([FAKE_REGISTRY, FAKE_OTHER_REGISTRY, "http://mirror.example.com"]);
    expect(b.registryUrls).toEqual([FAKE_REGISTRY, FAKE_OTHER_REGISTRY]);
    // Removing the official one offers it back.
    fireEvent.click(within(within(panel).getAllByTestId("registry-row")[0]!).getByTestId("registry-remove"));
    fireEvent.click(within(panel).getByTestId("registry-add-official"));
    expect(rows(panel)).toEqual([FAKE_OTHER_REGISTRY, "http://mirror.example.com", FAKE_REGISTRY]);
  });
});
