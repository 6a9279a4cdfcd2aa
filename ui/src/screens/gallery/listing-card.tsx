// One registry listing as a card. Everything it says comes from the listing's `text` (hidden
// characters revealed, lengths capped by the core), never from the server's own document.
import { useEffect, useRef, useState } from "react";
import type { RegistryListing } from "../../bindings/RegistryListing";
import type { RegistryStatus } from "../../bindings/RegistryStatus";

const KINDS: Record<string, string> = { npm: "npm", pypi: "PyPI", oci: "Docker", mcpb: "Bundle", remote: "Remote" };

const STATUS: Record<RegistryStatus, string> = { active: "Active", deprecated: "Deprecated", deleted: "Deleted" };

/** The host a registry is at, as a person reads it. */
export function registryHost(registry: string): string {
  try {
    return new URL(registry).host;
  } catch {
    return registry;
  }
}

/** The address of the icon to show: a picture (not SVG), for a light theme or any. */
function iconSource(listing: RegistryListing): string | null {
  const icons = (listing.server.icons ?? []).filter((i) => i.mimeType !== "image/svg+xml" && !i.src.endsWith(".svg"));
  const light = icons.find((i) => i.theme !== "dark");
  return (light ?? icons[0])?.src ?? null;
}

/** The listing's icon, fetched by the core (the window loads no remote image), else its initial. */
function ListingIcon(props: { listing: RegistryListing; title: string; loadIcon: (url: string) => Promise<string | null> }) {
  const { listing, loadIcon } = props;
  const [data, setData] = useState<string | null>(null);
  const source = iconSource(listing);
  useEffect(() => {
    let gone = false;
    setData(null);
    if (source) void loadIcon(source).then((d) => !gone && setData(d), () => undefined);
    return () => {
      gone = true;
    };
  }, [source, loadIcon]);
  if (data?.startsWith("data:image/")) return <img className="listing-icon" src={data} alt="" data-testid="listing-icon" />;
  return (
    <span className="listing-icon letter" aria-hidden="true">
      {(props.title.trim()[0] ?? "?").toUpperCase()}
    </span>
  );
}

export function ListingCard(props: {
  listing: RegistryListing;
  onInstall: () => void;
  onOpen: (url: string) => void;
  loadIcon: (url: string) => Promise<string | null>;
}) {
  const { listing } = props;
  const t = listing.text;
  const title = t.title || t.name;
  const offered = listing.status === "active";
  const repository = t.repository;
  return (
    <article
      role="article"
      className={offered ? "card listing" : "card listing withdrawn"}
      aria-label={title}
      data-testid="listing"
      data-name={t.name}
      data-status={listing.status}
    >
      <header className="listing-head">
        <ListingIcon listing={listing} title={title} loadIcon={props.loadIcon} />
        <div className="grow">
          <h3>{title}</h3>
          <code className="muted listing-name">{t.name}</code>
        </div>
        {offered ? (
          <button className="primary" data-testid="listing-install" onClick={props.onInstall}>
            Install
          </button>
        ) : (
          <span className="badge warn" data-testid="listing-status">
            {STATUS[listing.status]}
          </span>
        )}
      </header>
      {!offered && t.statusMessage ? <p className="warn-text listing-note">{t.statusMessage}</p> : null}
      {t.description ? <p className="listing-description">{t.description}</p> : null}
      <div className="listing-facts muted">
        <span>v{t.version}</span>
        {t.kinds.map((k) => (
          <span className="badge" key={k} data-testid="listing-kind">
            {KINDS[k] ?? k}
          </span>
        ))}
        <span title={listing.registry}>{registryHost(listing.registry)}</span>
        {repository?.startsWith("https://") ? (
          <a
            href={repository}
            data-testid="listing-repository"
            onClick={(e) => {
              e.preventDefault();
              props.onOpen(repository);
            }}
          >
            {repository}
          </a>
        ) : repository ? (
          <span>{repository}</span>
        ) : null}
      </div>
    </article>
  );
}

/** "Load more", which also loads by itself when scrolled into view (where the window can tell). */
export function LoadMore(props: { busy: boolean; onLoad: () => void }) {
  const ref = useRef<HTMLButtonElement>(null);
  const { onLoad } = props;
  useEffect(() => {
    const el = ref.current;
    if (!el || typeof IntersectionObserver === "undefined") return;
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) onLoad();
    });
    observer.observe(el);
    return () => observer.disconnect();
  }, [onLoad]);
  return (
    <button ref={ref} className="load-more" data-testid="load-more" disabled={props.busy} onClick={onLoad}>
      {props.busy ? "Loading…" : "Load more"}
    </button>
  );
}
