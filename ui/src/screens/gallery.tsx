// The Gallery: servers from an MCP Registry to install (from the registry chosen, when the config
// names several; the person adds, orders and removes them here), a .mcpb bundle file to install, and
// updates of servers installed from a registry. Installing always goes through the shell's native
// trust dialog; the window only gathers the values. What the app is asked to open from outside (a
// .mcpb file, an install link) arrives as `opened` and opens the dialog it asks for. The listing,
// its cards, the install dialogs and the updates live under ./gallery/.
import { useCallback, useEffect, useRef, useState } from "react";
import type { Backend } from "../backend";
import { errorMessage } from "../backend";
import type { BundleForm } from "../bindings/BundleForm";
import type { Opened } from "../bindings/Opened";
import type { RegistryListing } from "../bindings/RegistryListing";
import type { RegistryRef } from "../bindings/RegistryRef";
import type { ServerConfig } from "../bindings/ServerConfig";
import { ErrorBanner } from "../components/error-banner";
import { BundleDialog } from "./gallery/bundle-dialog";
import { DefinitionDialog } from "./gallery/definition-dialog";
import { InstallDialog } from "./gallery/install-dialog";
import { ListingCard, LoadMore } from "./gallery/listing-card";
import { RegistriesPanel } from "./gallery/registries";
import type { Notice } from "./gallery/updates";
import { Updates } from "./gallery/updates";
import { listingKey, SEARCH_DELAY_MS, useListing, useSettled } from "./gallery/use-listing";
import { Choice } from "../components/choice";

type Installing =
  | { kind: "registry"; server: RegistryRef; title: string }
  | { kind: "bundle"; form: BundleForm }
  | { kind: "definition"; name: string; config: ServerConfig };

/** The dialog an opened item asks for (null: a failure, said in the error banner). */
function installingOf(o: Opened): Installing | null {
  if (o.kind === "bundle") return { kind: "bundle", form: o.form };
  if (o.kind === "failed") return null;
  const link = o.link;
  if (link.kind === "registry") {
    return { kind: "registry", server: { registry: link.registry, name: link.name, version: link.version }, title: link.name };
  }
  return { kind: "definition", name: link.name, config: link.config };
}

function refOf(l: RegistryListing): RegistryRef {
  return { registry: l.registry, name: l.server.name, version: l.server.version };
}

/** A registry as the person reads it: its host and path (two may share a host). */
function registryLabel(url: string): string {
  try {
    const u = new URL(url);
    return `${u.host}${u.pathname.replace(/\/+$/, "")}`;
  } catch {
    return url;
  }
}

/** The registries the gallery may list, the default first (none until known, or when unknown),
 *  and a way to read them again once the person changed them. */
function useRegistries(backend: Backend): [string[], () => void] {
  const [registries, setRegistries] = useState<string[]>([]);
  const [asked, setAsked] = useState(0);
  useEffect(() => {
    let live = true;
    backend.registries().then(
      (all) => live && setRegistries(all),
      () => undefined,
    );
    return () => {
      live = false;
    };
  }, [backend, asked]);
  return [registries, useCallback(() => setAsked((n) => n + 1), [])];
}

export function GalleryScreen(props: {
  backend: Backend;
  /** Something the app was asked to open from outside, not yet shown. */
  opened?: Opened | null;
  /** Called once `opened` is shown, so it is not shown again. */
  onOpenedTaken?: () => void;
  /** Called with the local name of each server installed here (the host lists it again). */
  onInstalled?: (name: string) => void;
}) {
  const { backend, opened, onOpenedTaken, onInstalled } = props;
  const [search, setSearch] = useState("");
  const term = useSettled(search.trim(), SEARCH_DELAY_MS);
  const [registries, reloadRegistries] = useRegistries(backend);
  // The registry listed: null is the default one (the first).
  const [registry, setRegistry] = useState<string | null>(null);
  const [managing, setManaging] = useState(false);
  const { listing, error, busy, loadMore } = useListing(backend, registry, term);
  const [installing, setInstalling] = useState<Installing | null>(null);
  // Each dialog opened anew starts from its own form, even in place of one of the same kind.
  const [shown, setShown] = useState(0);
  const show = useCallback((i: Installing) => {
    setInstalling(i);
    setShown((n) => n + 1);
  }, []);
  const [notice, setNotice] = useState<Notice | null>(null);
  const [actionError, setActionError] = useState<string | null>(null);
  const close = useCallback(() => setInstalling(null), []);
  const taken = useRef<Opened | null>(null);
  useEffect(() => {
    if (!opened || taken.current === opened) return;
    taken.current = opened;
    const next = installingOf(opened);
    if (next) {
      setActionError(null);
      show(next);
    } else if (opened.kind === "failed") {
      // A dialog being filled in stays: the banner is there once it is closed.
      setActionError(opened.error.message);
    }
    onOpenedTaken?.();
  }, [opened, onOpenedTaken, show]);
  const installed = (name: string) => {
    setInstalling(null);
    onInstalled?.(name);
    setNotice({ tone: "ok", text: `Installed ${name}. It is on the Servers screen.` });
  };
  const openBundle = () => {
    setActionError(null);
    backend.pickBundle().then(
      (form) => form && show({ kind: "bundle", form }),
      (e: unknown) => setActionError(errorMessage(e)),
    );
  };
  const loadIcon = useCallback((url: string) => backend.registryIcon(url), [backend]);
  const open = (url: string) => void backend.openExternal(url).catch((e: unknown) => setActionError(errorMessage(e)));
  return (
    <div className="page gallery" aria-label="Gallery" data-testid="gallery-screen">
      <header className="pane-header">
        <h2>Gallery</h2>
        {registries.length > 1 ? (
          <Choice
            aria-label="Registry"
            data-testid="gallery-registry"
            title={registry ?? registries[0]}
            value={registry ?? registries[0] ?? ""}
            onChoose={(chosen) => setRegistry(chosen === registries[0] ? null : chosen)}
          >
            {registries.map((r) => (
              <option key={r} value={r}>
                {registryLabel(r)}
              </option>
            ))}
          </Choice>
        ) : null}
        <input
          type="search"
          aria-label="Search the registry"
          data-testid="gallery-search"
          placeholder="Search the registry"
          spellCheck={false}
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
        />
        <button data-testid="open-bundle" onClick={openBundle}>
          Open a bundle…
        </button>
        <button data-testid="manage-registries" aria-expanded={managing} onClick={() => setManaging((m) => !m)}>
          Registries…
        </button>
      </header>
      {managing ? (
        <RegistriesPanel
          backend={backend}
          onSaved={() => {
            setRegistry(null);
            reloadRegistries();
          }}
          onClose={() => setManaging(false)}
        />
      ) : null}
      {notice ? (
        <div className={`banner ${notice.tone}`} role="status" data-testid="gallery-notice">
          {notice.text}{" "}
          <button className="link" onClick={() => setNotice(null)}>
            Dismiss
          </button>
        </div>
      ) : null}
      <ErrorBanner error={actionError ?? error} testId="error-banner" />
      <Updates backend={backend} onNotice={setNotice} onError={setActionError} />
      {listing.offline ? (
        <div className="banner warn" role="status" data-testid="gallery-offline">
          Offline — showing the last listing kept on this computer.
        </div>
      ) : null}
      {listing.kept ? (
        <p className="muted" data-testid="gallery-kept">
          Showing the listing kept on this computer{busy ? " while the registry answers…" : "."}
        </p>
      ) : null}
      <section className="listings" aria-label="Registry servers" aria-busy={busy}>
        {listing.servers.map((l) => (
          <ListingCard
            key={listingKey(l)}
            listing={l}
            onOpen={open}
            loadIcon={loadIcon}
            onInstall={() => show({ kind: "registry", server: refOf(l), title: l.text.title || l.text.name })}
          />
        ))}
        {!listing.servers.length && !busy && !error ? (
          <div className="empty muted" data-testid="gallery-empty">
            {term ? `Nothing in the registry matches “${term}”.` : "The registry lists nothing yet."}
          </div>
        ) : null}
        {listing.skipped ? (
          <p className="muted">
            {listing.skipped} {listing.skipped === 1 ? "entry was" : "entries were"} left out: not valid registry server names.
          </p>
        ) : null}
        {listing.nextCursor ? <LoadMore busy={busy} onLoad={loadMore} /> : null}
      </section>
      {installing?.kind === "registry" ? (
        <InstallDialog
          key={shown}
          backend={backend}
          server={installing.server}
          title={installing.title}
          onInstalled={installed}
          onClose={close}
        />
      ) : installing?.kind === "bundle" ? (
        <BundleDialog key={shown} backend={backend} form={installing.form} onInstalled={installed} onClose={close} />
      ) : installing?.kind === "definition" ? (
        <DefinitionDialog
          key={shown}
          backend={backend}
          name={installing.name}
          config={installing.config}
          onInstalled={installed}
          onClose={close}
        />
      ) : null}
    </div>
  );
}
