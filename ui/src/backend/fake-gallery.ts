// The fake backend's registry: a few listings as the core shows them (one deprecated, one whose
// text hid a character the core revealed), their older versions, their install forms, a bundle
// file and an update. A second registry lists the same servers.
import type { BundleForm } from "../bindings/BundleForm";
import type { InstallForm } from "../bindings/InstallForm";
import type { InstallInput } from "../bindings/InstallInput";
import type { InstallInputKind } from "../bindings/InstallInputKind";
import type { InstallOption } from "../bindings/InstallOption";
import type { RegistryListing } from "../bindings/RegistryListing";
import type { RegistryPage } from "../bindings/RegistryPage";
import type { RegistrySearch } from "../bindings/RegistrySearch";
import type { RegistryStatus } from "../bindings/RegistryStatus";
import type { UpdateView } from "../bindings/UpdateView";
import { reveal } from "../components/visible";

/** The default registry: the listings are its own. */
export const FAKE_REGISTRY = "https://registry.modelcontextprotocol.io";
/** Another registry the gallery may list: it lists the same servers. */
export const FAKE_OTHER_REGISTRY = "https://mcp.example.com/registry";

/** A listing and the ways it can be run. */
export interface FakeEntry {
  listing: RegistryListing;
  choices: InstallOption[];
}

function input(key: string, kind: InstallInputKind, more: Partial<InstallInput> = {}): InstallInput {
  return {
    key,
    kind,
    description: "",
    required: false,
    secret: false,
    default: null,
    choices: [],
    format: "string",
    placeholder: null,
    min: null,
    max: null,
    multiple: false,
    ...more,
  };
}

function entry(
  name: string,
  title: string,
  description: string,
  kinds: string[],
  choices: InstallOption[],
  status: RegistryStatus = "active",
  statusMessage: string | null = null,
): FakeEntry {
  const repository = `https://github.com/example/${name.split("/").pop() ?? name}`;
  return {
    listing: {
      registry: FAKE_REGISTRY,
      server: { name, title, description, version: "1.2.0", repository: { url: repository, source: "github" } },
      status,
      statusMessage,
      isLatest: true,
      updatedAt: "2025-10-01T12:00:00Z",
      // As the core shows it: hidden characters revealed.
      text: {
        name,
        title: reveal(title),
        description: reveal(description),
        version: "1.2.0",
        repository,
        statusMessage,
        kinds,
      },
    },
    choices,
  };
}

const npm = { kind: "package", index: 0 } as const;

/** Four listings: Weather (a package or a remote), Files, a deprecated one and one hiding a character. */
export function fakeRegistry(): FakeEntry[] {
  return [
    entry("io.github.example/weather", "Weather", "Forecasts and alerts for any city", ["npm", "remote"], [
      {
        choice: npm,
        label: "npm package @example/weather-mcp",
        needs: [
          input("WEATHER_API_KEY", "environment", { description: "Your API key", required: true, secret: true }),
          input("UNITS", "environment", { description: "Units", choices: ["metric", "imperial"], default: "metric" }),
        ],
      },
      {
        choice: { kind: "remote", index: 0 },
        label: "Remote https://weather.example.com/mcp",
        needs: [input("Authorization", "header", { description: "Bearer token", required: true, secret: true })],
      },
    ]),
    entry("io.github.example/files", "Files", "Reads and writes files in the folders you choose", ["npm"], [
      {
        choice: npm,
        label: "npm package @example/files-mcp",
        needs: [
          input("folder", "argument", { description: "Folders it may use", required: true, format: "directory", multiple: true }),
          input("--read-only", "argument", { description: "Only read", format: "boolean", default: "false" }),
          input("MAX_FILES", "environment", { description: "At most this many files", format: "number", min: 1, max: 1000 }),
        ],
      },
    ]),
    entry(
      "io.github.example/legacy",
      "Legacy",
      "The old weather server",
      ["npm"],
      [{ choice: npm, label: "npm package @example/legacy-mcp", needs: [] }],
      "deprecated",
      "Use io.github.example/weather",
    ),
    // The core reveals the zero-width space it hid: the window shows ⟨U+200B⟩.
    entry("io.github.sneaky/notes", "Notes", "Keeps notes\u200B for you", ["pypi"], [
      { choice: npm, label: "PyPI package notes-mcp", needs: [] },
    ]),
  ];
}

/** The listing as `registry` lists it (the default registry's own when null). */
function from(listing: RegistryListing, registry: string | null): RegistryListing {
  return registry ? { ...listing, registry } : listing;
}

/** A page of `entries` matching the query, from its cursor (an index). */
export function searchPage(entries: FakeEntry[], query: RegistrySearch, pageSize: number, offline: boolean): RegistryPage {
  const term = query.search?.toLowerCase() ?? "";
  const found = entries
    .map((e) => from(e.listing, query.registry))
    .filter((l) => !term || [l.text.name, l.text.title, l.text.description].some((t) => t.toLowerCase().includes(term)));
  const start = query.cursor ? Number(query.cursor) : 0;
  const end = start + (query.limit ?? pageSize);
  return {
    servers: structuredClone(found.slice(start, end)),
    nextCursor: end < found.length ? String(end) : null,
    skipped: 0,
    offline,
  };
}

/** Every version of an entry in `registry`, newest first: its own, an active 1.0.0-beta and a
 *  deprecated 0.9.0. */
export function versionsOf(e: FakeEntry, registry: string | null): FakeEntry[] {
  const at = (version: string, status: RegistryStatus, statusMessage: string | null): FakeEntry => ({
    listing: {
      ...e.listing,
      server: { ...e.listing.server, version },
      status,
      statusMessage,
      isLatest: false,
      updatedAt: "2025-06-01T12:00:00Z",
      text: { ...e.listing.text, version, statusMessage },
    },
    choices: e.choices,
  });
  const all = [e, at("1.0.0-beta", "active", null), at("0.9.0", "deprecated", "Use 1.0.0 or later")];
  return structuredClone(all.map((v) => ({ ...v, listing: from(v.listing, registry) })));
}

/** The install form of an entry, suggesting the last part of its name as the local name. */
export function formOf(e: FakeEntry): InstallForm {
  const name = e.listing.server.name.split("/").pop() ?? e.listing.server.name;
  return structuredClone({ listing: e.listing, text: e.listing.text, choices: e.choices, name });
}

/** An unsigned bundle asking for one required setting. */
export const FAKE_BUNDLE: BundleForm = {
  name: "dice",
  displayName: "Dice",
  version: "0.3.0",
  description: "Rolls dice",
  author: "Ada Example",
  signature: { kind: "unsigned" },
  signatureText: "unsigned: nobody vouches for who made it",
  needs: [input("sides", "setting", { description: "Sides of a die", required: true, format: "number", min: 2, max: 100 })],
  sha256: "9f2c4e1a7b3d5f60812a9c4e7b1d3f5a9c2e4b6d8f0a1c3e5b7d9f1a3c5e7b9d",
};

/** One installed server whose registry lists a newer version. */
export function fakeUpdates(): UpdateView[] {
  return [{ server: "weather", installed: "1.0.0", latest: "1.2.0", registry: FAKE_REGISTRY }];
}
