// The gallery's listing of one registry: the search term settles for a moment before it is
// searched; on open (and on choosing another registry) the page kept on this computer shows at
// once, then the registry's answer replaces it; further pages are appended.
import { useCallback, useEffect, useRef, useState } from "react";
import type { Backend } from "../../backend";
import { errorMessage } from "../../backend";
import type { RegistryListing } from "../../bindings/RegistryListing";
import type { RegistryPage } from "../../bindings/RegistryPage";
import type { RegistrySearch } from "../../bindings/RegistrySearch";

/** How long typing must pause before the term is searched. */
export const SEARCH_DELAY_MS = 250;

/** The arguments of a search of `registry` (null: the default one). */
export function searchArgs(registry: string | null, search: string, cursor: string | null): RegistrySearch {
  return { registry, search: search || null, cursor, limit: null };
}

/** `value`, once it has stayed the same for `ms`. */
export function useSettled<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const t = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(t);
  }, [value, ms]);
  return settled;
}

export interface Listing {
  servers: RegistryListing[];
  nextCursor: string | null;
  /** The registry could not be reached: this is the listing kept on this computer. */
  offline: boolean;
  /** Shown from what this computer kept while the registry has not answered yet. */
  kept: boolean;
  skipped: number;
}

const NONE: Listing = { servers: [], nextCursor: null, offline: false, kept: false, skipped: 0 };

function shown(page: RegistryPage, kept: boolean): Listing {
  return { servers: page.servers, nextCursor: page.nextCursor, offline: page.offline && !kept, kept, skipped: page.skipped };
}

export function listingKey(l: RegistryListing): string {
  return `${l.registry} ${l.server.name} ${l.server.version}`;
}

/** The listing of `registry` (null: the default one) for `term`. */
export function useListing(backend: Backend, registry: string | null, term: string) {
  const [listing, setListing] = useState<Listing>(NONE);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The registry and term the listing is of: a page that answers older ones is dropped.
  const current = useRef({ registry, term });
  // The registry whose kept listing was shown (undefined: none yet).
  const opened = useRef<string | null | undefined>(undefined);
  const loadingMore = useRef(false);

  useEffect(() => {
    // The kept listing is brought up to date in the background; a failure changes nothing here.
    backend.registryRefresh(searchArgs(registry, "", null)).catch(() => undefined);
  }, [backend, registry]);

  useEffect(() => {
    let live = true;
    let answered = false;
    current.current = { registry, term };
    const args = searchArgs(registry, term, null);
    if (opened.current !== registry) {
      // Another registry's listing is not this one's: what this computer kept of it shows instead.
      if (opened.current !== undefined) setListing(NONE);
      opened.current = registry;
      backend.registryCached(args).then(
        (page) => {
          if (live && !answered && page.servers.length) setListing(shown(page, true));
        },
        () => undefined,
      );
    }
    setBusy(true);
    backend
      .registrySearch(args)
      .then(
        (page) => {
          answered = true;
          if (!live) return;
          setListing(shown(page, false));
          setError(null);
        },
        (e: unknown) => {
          if (!live) return;
          setError(errorMessage(e));
          // What the computer kept stays; a listing of another term does not.
          setListing((l) => (l.kept ? l : NONE));
        },
      )
      .finally(() => {
        if (live) setBusy(false);
      });
    return () => {
      live = false;
    };
  }, [backend, registry, term]);

  const cursor = listing.nextCursor;
  const loadMore = useCallback(() => {
    if (!cursor || loadingMore.current) return;
    loadingMore.current = true;
    const asked = current.current;
    setBusy(true);
    backend
      .registrySearch(searchArgs(asked.registry, asked.term, cursor))
      .then(
        (page) => {
          if (current.current !== asked) return;
          setListing((l) => {
            const have = new Set(l.servers.map(listingKey));
            const servers = [...l.servers, ...page.servers.filter((s) => !have.has(listingKey(s)))];
            return { ...l, servers, nextCursor: page.nextCursor, skipped: l.skipped + page.skipped };
          });
        },
        (e: unknown) => {
          if (current.current === asked) setError(errorMessage(e));
        },
      )
      .finally(() => {
        loadingMore.current = false;
        if (current.current === asked) setBusy(false);
      });
  }, [backend, cursor]);

  return { listing, error, busy, loadMore };
}
