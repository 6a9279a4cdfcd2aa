// The Resources screen: a virtualized, incrementally loaded browser (100,000 resources over many
// pages stay smooth), search over what is loaded, templates with completion, viewers for every
// content type, and subscriptions with live updates.
import { useCallback, useEffect, useEffectEvent, useRef, useState } from "react";
import type { Backend } from "../backend";
import { errorMessage } from "../backend";
import { CompletionInput } from "../components/completion-input";
import { CopyButton, ResourceBody } from "../components/content";
import { ErrorBanner } from "../components/error-banner";
import { matching } from "../components/selectable-list";
import { pickDefault, ServerPicker } from "../components/server-picker";
import { VirtualList } from "../components/virtual-list";
import type { HostState } from "../host";
import type { ReadResourceResult, Resource, ResourceTemplate } from "../mcp";
import { parseTemplate } from "url-template";

const ROW = 44;

const ATTACH_HINT = "To attach a resource to a chat message, type @ in the Chat's message box and pick it.";

/** The variables of an RFC 6570 template, in order (`{a}`, `{+b}`, `{?c,d}`). */
export function templateVars(template: string): string[] {
  const out: string[] = [];
  for (const m of template.matchAll(/\{([^}]+)\}/g)) {
    for (const v of m[1]!.replace(/^[+#./;?&]/, "").split(",")) {
      const name = v.replace(/[*]$|:\d+$/, "");
      if (name && !out.includes(name)) out.push(name);
    }
  }
  return out;
}

/** Expands an RFC 6570 template; an empty field counts as not given. */
export function expandTemplate(template: string, values: Record<string, string>): string {
  const given = Object.fromEntries(Object.entries(values).filter(([, v]) => v !== ""));
  return parseTemplate(template).expand(given);
}

export function ResourcesScreen(props: { backend: Backend; host: HostState; listHeight?: number }) {
  const { backend, host } = props;
  const [server, setServer] = useState<string | null>(null);
  const picked = pickDefault(host.servers, server, "resources");
  const [search, setSearch] = useState("");
  const [templates, setTemplates] = useState<ResourceTemplate[]>([]);
  const [open, setOpen] = useState<{ uri: string; result: ReadResourceResult | null; error: string | null } | null>(null);
  const [subscribed, setSubscribed] = useState<Set<string>>(new Set());
  const listRevision = picked ? (host.resourceList[picked] ?? 0) : 0;
  const catalogRevision = picked ? (host.catalog[picked] ?? 0) : 0;

  useEffect(() => {
    if (!picked) return setTemplates([]);
    // Another server picked meanwhile: this answer is for the one before and must not show.
    let live = true;
    backend.listResourceTemplates(picked).then(
      (t) => live && setTemplates(t),
      () => live && setTemplates([]),
    );
    return () => {
      live = false;
    };
  }, [backend, picked, catalogRevision]);

  const read = useCallback(
    (uri: string) => {
      if (!picked) return;
      setOpen({ uri, result: null, error: null });
      backend.readResource(picked, uri).then(
        (result) => setOpen((o) => (o && o.uri === uri ? { uri, result, error: null } : o)),
        (e: unknown) => setOpen((o) => (o && o.uri === uri ? { uri, result: null, error: errorMessage(e) } : o)),
      );
    },
    [backend, picked],
  );

  // Live updates for the open, subscribed resource: read again at each update (a new
  // `resourceUpdated`), not when another resource is opened or subscribed.
  const updated = host.resourceUpdated;
  const onUpdated = useEffectEvent((u: { server: string; uri: string }) => {
    if (u.server === picked && open && u.uri === open.uri && subscribed.has(open.uri)) read(open.uri);
  });
  useEffect(() => {
    if (updated) onUpdated(updated);
  }, [updated]);

  const canSubscribe =
    !!picked &&
    host.servers.some((s) => s.name === picked && s.status.state === "running" && (s.status.summary.capabilities["resources"] as { subscribe?: boolean } | undefined)?.subscribe);

  return (
    <div className="split">
      <section className="list-pane" aria-label="Resources">
        <header className="pane-header">
          <h2>Resources</h2>
        </header>
        <ServerPicker servers={host.servers} value={picked} need="resources" onChange={(s) => (setServer(s), setOpen(null))} />
        <input
          data-testid="resource-search"
          type="search"
          placeholder="Search loaded resources"
          value={search}
          onChange={(e) => setSearch(e.currentTarget.value)}
        />
        {picked ? (
          // Keyed: another server or a list_changed starts the listing over.
          <ResourceList
            key={`${picked}#${listRevision}`}
            backend={backend}
            server={picked}
            search={search}
            selected={open?.uri ?? null}
            onOpen={read}
            {...(props.listHeight ? { height: props.listHeight } : {})}
          />
        ) : (
          <div className="empty muted">Start a server that offers resources to browse them here.</div>
        )}
        {templates.length ? (
          <details className="templates" open>
            <summary>Templates ({templates.length})</summary>
            {templates.map((t) => (
              <TemplateForm key={t.uriTemplate} backend={backend} server={picked!} template={t} onRead={read} />
            ))}
          </details>
        ) : null}
      </section>
      <section className="detail-pane" aria-label="Resource">
        {open ? (
          <div className="detail" data-testid="resource-viewer">
            <header className="pane-header">
              <h2 className="uri-title">{open.uri}</h2>
              <div className="actions">
                <CopyButton text={open.uri} label="Copy URI" />
                {canSubscribe ? (
                  <button
                    data-testid="resource-subscribe"
                    onClick={() => {
                      const on = !subscribed.has(open.uri);
                      const f = on ? backend.subscribeResource : backend.unsubscribeResource;
                      f.call(backend, picked!, open.uri).then(
                        () =>
                          setSubscribed((s) => {
                            const n = new Set(s);
                            if (on) n.add(open.uri);
                            else n.delete(open.uri);
                            return n;
                          }),
                        (e: unknown) => setOpen((o) => (o ? { ...o, error: errorMessage(e) } : o)),
                      );
                    }}
                  >
                    {subscribed.has(open.uri) ? "Unsubscribe" : "Subscribe"}
                  </button>
                ) : null}
                <button disabled title={ATTACH_HINT} aria-describedby="attach-hint">
                  Attach to chat
                </button>
              </div>
            </header>
            <p className="hint muted" id="attach-hint" data-testid="attach-hint">
              {ATTACH_HINT}
            </p>
            <ErrorBanner error={open.error} />
            {open.result ? (
              open.result.contents.map((c, i) => <ResourceBody key={i} backend={backend} contents={c} />)
            ) : open.error ? null : (
              <p className="muted">
                <span className="spinner" aria-hidden="true" /> Reading…
              </p>
            )}
          </div>
        ) : (
          <div className="empty muted">Choose a resource to view it.</div>
        )}
      </section>
    </div>
  );
}

function TemplateForm(props: { backend: Backend; server: string; template: ResourceTemplate; onRead: (uri: string) => void }) {
  const vars = templateVars(props.template.uriTemplate);
  const [values, setValues] = useState<Record<string, string>>({});
  const { backend, server, template } = props;
  return (
    <form
      className="template"
      data-testid="template-item"
      data-uri-template={template.uriTemplate}
      onSubmit={(e) => {
        e.preventDefault();
        props.onRead(expandTemplate(template.uriTemplate, values));
      }}
    >
      <div>
        <strong>{template.title ?? template.name}</strong> <code className="muted">{template.uriTemplate}</code>
      </div>
      {/* Read sits beside the fields, where no field's suggestions can cover it. */}
      <div className="template-fields">
        <div className="grow">
          {vars.map((v) => (
            <CompletionInput
              key={v}
              label={v}
              testId={`template-var-${v}`}
              value={values[v] ?? ""}
              onChange={(x) => setValues((old) => ({ ...old, [v]: x }))}
              complete={(value) => {
                const context = Object.fromEntries(Object.entries(values).filter(([k, x]) => k !== v && x));
                return backend.complete(server, { type: "ref/resource", uri: template.uriTemplate }, v, value, context);
              }}
            />
          ))}
        </div>
        <button type="submit" data-testid="template-read">
          Read
        </button>
      </div>
    </form>
  );
}

/** One server's resources, loaded a page at a time as the user scrolls. */
function ResourceList(props: {
  backend: Backend;
  server: string;
  search: string;
  selected: string | null;
  onOpen: (uri: string) => void;
  height?: number;
}) {
  const { backend, server } = props;
  const [items, setItems] = useState<Resource[]>([]);
  const [done, setDone] = useState(false);
  const [loading, setLoading] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // Refs, not state: the scroll handler must see the latest values between renders.
  const cursor = useRef<string | null>(null);
  const busy = useRef(false);
  const finished = useRef(false);
  const alive = useRef(true);
  useEffect(() => {
    alive.current = true;
    return () => {
      alive.current = false;
    };
  }, []);

  const loadMore = useCallback(() => {
    if (busy.current || finished.current) return;
    busy.current = true;
    setLoading(true);
    backend
      .listResourcesPage(server, cursor.current)
      .then((page) => {
        if (!alive.current) return;
        // scripts/bench_app.py times from here to the frame that paints the page (one mark, kept
        // from piling up).
        performance.clearMarks("resources-page");
        performance.mark("resources-page");
        cursor.current = page.nextCursor ?? null;
        finished.current = !page.nextCursor;
        setDone(finished.current);
        setItems((old) => old.concat(page.resources));
        setError(null);
      })
      .catch((e: unknown) => {
        if (!alive.current) return;
        // Stop asking until the user retries.
        finished.current = true;
        setError(errorMessage(e));
      })
      .finally(() => {
        busy.current = false;
        if (alive.current) setLoading(false);
      });
  }, [backend, server]);

  const q = props.search.trim();
  const shown = matching(items, q, (r) => [r.uri, r.name, r.title]);
  return (
    <>
      <div className="count muted" data-testid="resource-count" aria-live="polite">
        {items.length.toLocaleString("en-US")} loaded{q ? ` · ${shown.length.toLocaleString("en-US")} match` : ""}
        {done ? "" : loading ? " · loading…" : " · more available"}
      </div>
      <ErrorBanner error={error} testId="error-banner">
        {" "}
        <button
          onClick={() => {
            finished.current = false;
            setError(null);
            loadMore();
          }}
        >
          Retry
        </button>
      </ErrorBanner>
      <VirtualList
        items={shown}
        rowHeight={ROW}
        {...(props.height ? { height: props.height } : {})}
        testId="resource-list"
        label="Resources"
        // While searching, the end of the filtered list is not the end of the loaded one.
        onNearEnd={q ? undefined : loadMore}
        render={(r) => (
          <button
            className={`resource-row ${props.selected === r.uri ? "selected" : ""}`}
            data-testid="resource-row"
            data-uri={r.uri}
            onClick={() => props.onOpen(r.uri)}
          >
            <span className="name">{r.title ?? r.name}</span>
            <span className="muted uri">{r.uri}</span>
          </button>
        )}
      />
    </>
  );
}
