import { useEffect, useEffectEvent, useState } from "react";
import type { HostState, Offer } from "../../host";
import { offers } from "../../host";

/** Everything of one kind (tools, prompts, resources, skills) of every running server that offers
 * it, loaded again when the servers or their catalogs change. */
export function useEverything<T>(host: HostState, need: Offer, load: (server: string) => Promise<T[]>): T[] {
  const [items, setItems] = useState<T[]>([]);
  const servers = host.servers.filter((s) => offers(s, need)).map((s) => s.name);
  // The server list and catalog revisions, by content, are the real inputs: `servers` is a new
  // array and `load` a new function at each render.
  const key = servers.join("\u0000") + JSON.stringify(host.catalog);
  const loadAll = useEffectEvent(() => Promise.all(servers.map((s) => load(s).catch(() => [] as T[]))));
  useEffect(() => {
    let live = true;
    loadAll().then((lists) => live && setItems(lists.flat()));
    return () => {
      live = false;
    };
  }, [key]);
  return items;
}
