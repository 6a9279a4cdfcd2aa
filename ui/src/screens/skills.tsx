// The Skills screen: the skills of every running server that offers them (the MCP Skills
// extension), grouped by server, each by its name, description and how many files it has, as the
// server lists it. Nothing of a skill is read until the person asks: View loads its SKILL.md (the
// core checks it against the listing) and reads its other files one at a time; Use in chat loads it
// to go with the next chat message. All of it is the server's text: hidden characters revealed,
// markdown sanitized, a load that failed its check shown as the core's sentence.
import { useEffect, useEffectEvent, useState } from "react";
import type { Backend } from "../backend";
import { errorMessage } from "../backend";
import type { Skill } from "../bindings/Skill";
import type { SkillForChat } from "../bindings/SkillForChat";
import { ErrorBanner } from "../components/error-banner";
import { Revealed } from "../components/revealed";
import { ListSearch, matching, NoMatch } from "../components/selectable-list";
import type { HostState } from "../host";
import { offers } from "../host";
import { SkillView } from "./skills/skill-view";

/** One server's listing: its skills once listed (null until then, or when listing failed). */
interface SkillList {
  server: string;
  skills: Skill[] | null;
  error: string | null;
}

/** The listings of the running servers that offer skills, listed again when the servers or
 * their catalogs change; a server not answered yet is shown as loading. */
function useSkillLists(backend: Backend, host: HostState): SkillList[] {
  const servers = host.servers.filter((s) => offers(s, "skills")).map((s) => s.name);
  const [listed, setListed] = useState<Record<string, SkillList>>({});
  const key = servers.map((s) => `${s}\u0000${host.catalog[s] ?? 0}`).join("\u0000");
  const listAll = useEffectEvent(() =>
    Promise.all(
      servers.map((server) =>
        backend.listSkills(server).then(
          (skills): SkillList => ({ server, skills, error: null }),
          (e: unknown): SkillList => ({ server, skills: null, error: errorMessage(e) }),
        ),
      ),
    ),
  );
  useEffect(() => {
    let live = true;
    void listAll().then((lists) => live && setListed(Object.fromEntries(lists.map((l) => [l.server, l]))));
    return () => {
      live = false;
    };
  }, [key]);
  return servers.map((server) => listed[server] ?? { server, skills: null, error: null });
}

export function SkillsScreen(props: { backend: Backend; host: HostState; onUseInChat: (skill: SkillForChat) => void }) {
  const lists = useSkillLists(props.backend, props.host);
  const [search, setSearch] = useState("");
  return (
    <section className="page" data-testid="skills-screen" aria-label="Skills">
      <header className="pane-header">
        <h2>Skills</h2>
      </header>
      <p className="muted">
        Instructions a server offers for the model. Only their names and descriptions are read until you view one or use
        it in a chat.
      </p>
      <ListSearch testId="skill-search" label="Search skills" value={search} onChange={setSearch} />
      {lists.length === 0 ? <div className="empty muted">Start a server that offers skills to see them here.</div> : null}
      {lists.map((list) => (
        <ServerSkills key={list.server} backend={props.backend} list={list} search={search} onUseInChat={props.onUseInChat} />
      ))}
    </section>
  );
}

function ServerSkills(props: { backend: Backend; list: SkillList; search: string; onUseInChat: (skill: SkillForChat) => void }) {
  const { server, skills, error } = props.list;
  const shown = matching(skills ?? [], props.search, (s) => [s.name, s.description]);
  return (
    <section className="card" data-testid="skill-server" data-server={server} aria-label={`Skills of ${server}`}>
      <h3>
        <Revealed text={server} />
      </h3>
      <ErrorBanner error={error} testId="error-banner" />
      {skills === null && !error ? <p className="muted">Listing its skills…</p> : null}
      {skills?.length === 0 ? <p className="muted">It offers no skills at the moment.</p> : null}
      <ul className="item-list skill-list">
        {shown.map((skill) => (
          <SkillRow key={entryKey(skill)} backend={props.backend} server={server} skill={skill} onUseInChat={props.onUseInChat} />
        ))}
      </ul>
      <NoMatch what="skill" search={props.search} total={skills?.length ?? 0} shown={shown.length} />
    </section>
  );
}

/** A skill's entry as a row's key: one whose entry changes is a new row, so that nothing loaded
 * for the entry before stays. Its files' digests, or (dynamic files) its frontmatter, say it. */
function entryKey(skill: Skill): string {
  const version = skill.files ? skill.files.map((f) => `${f.uri} ${f.digest}`) : skill.frontmatter;
  return `${skill.uri}\u0000${JSON.stringify(version)}`;
}

/** How many files a skill has, or that they are dynamic. */
function filesLabel(skill: Skill): string {
  if (!skill.files) return "dynamic files";
  return skill.files.length === 1 ? "1 file" : `${skill.files.length} files`;
}

const DYNAMIC =
  "Its server says its files change: only its SKILL.md is read, checked against the frontmatter listed.";

function SkillRow(props: { backend: Backend; server: string; skill: Skill; onUseInChat: (skill: SkillForChat) => void }) {
  const { backend, server, skill } = props;
  const [loaded, setLoaded] = useState<SkillForChat | null>(null);
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  // Loaded when first asked for; what the person viewed is what goes into the chat.
  const withLoaded = (then: (skill: SkillForChat) => void) => {
    if (loaded) return then(loaded);
    setBusy(true);
    setError(null);
    backend
      .loadSkill(server, skill.uri)
      .then(
        (s) => {
          setLoaded(s);
          then(s);
        },
        (e: unknown) => setError(errorMessage(e)),
      )
      .finally(() => setBusy(false));
  };
  return (
    <li data-testid="skill-item" data-server={server} data-name={skill.name}>
      <div className="item-title">
        <strong>
          <Revealed text={skill.name} />
        </strong>
        <span className="chip" data-testid="skill-files" title={skill.files ? undefined : DYNAMIC}>
          {filesLabel(skill)}
        </span>
      </div>
      <div className="muted" data-testid="skill-description">
        <Revealed text={skill.description} />
      </div>
      <div className="actions">
        <button className="small primary" data-testid="skill-use" disabled={busy} onClick={() => withLoaded(props.onUseInChat)}>
          Use in chat
        </button>
        <button
          className="small"
          data-testid="skill-view-toggle"
          aria-expanded={open}
          disabled={busy}
          onClick={() => (open ? setOpen(false) : withLoaded(() => setOpen(true)))}
        >
          {open ? "Hide" : "View"}
        </button>
        {busy ? <span className="muted small">Loading…</span> : null}
      </div>
      <ErrorBanner error={error} testId="skill-error" role="alert" />
      {open && loaded ? <SkillView backend={backend} loaded={loaded} /> : null}
    </li>
  );
}
