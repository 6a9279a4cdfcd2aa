// A skill's folder as its server lists it (`resources/directory/read`, where the server declares
// `directoryRead`): names only, subfolders opened one level at a time when asked, nothing read.
// A file its listing names can be read above, checked; one it does not name is only a name here,
// unless the skill's files are dynamic (nothing is listed): then it is read when asked for.
// All of it is the server's text: hidden characters revealed.
import { useState } from "react";
import type { Backend } from "../../backend";
import { errorMessage } from "../../backend";
import type { DirectoryEntry } from "../../bindings/DirectoryEntry";
import type { Skill } from "../../bindings/Skill";
import { ErrorBanner } from "../../components/error-banner";
import { Revealed } from "../../components/revealed";
import { FileText, useSkillFileText } from "./skill-file-text";

interface Listed {
  entries: DirectoryEntry[] | null;
  error: string | null;
  busy: boolean;
}

const NOT_LISTED: Listed = { entries: null, error: null, busy: false };

/** Lists folder `uri` of the skill (its root when null) when `list` is called. */
function useFolder(backend: Backend, server: string, skill: Skill, uri: string | null) {
  const [listed, setListed] = useState<Listed>(NOT_LISTED);
  const list = () => {
    setListed({ entries: null, error: null, busy: true });
    backend.skillFolder(server, skill.uri, uri).then(
      (entries) => setListed({ entries, error: null, busy: false }),
      (e: unknown) => setListed({ entries: null, error: errorMessage(e), busy: false }),
    );
  };
  return { listed, list, hide: () => setListed(NOT_LISTED) };
}

export function SkillFolder(props: { backend: Backend; server: string; skill: Skill }) {
  const { listed, list, hide } = useFolder(props.backend, props.server, props.skill, null);
  return (
    <section className="skill-folder" data-testid="skill-folder">
      <h4>Its folder</h4>
      {listed.entries === null ? (
        <button className="small" data-testid="skill-folder-list" disabled={listed.busy} onClick={list}>
          {listed.busy ? "Listing…" : "List its folder"}
        </button>
      ) : (
        <>
          <button className="small" onClick={hide}>
            Hide
          </button>
          <Entries {...props} entries={listed.entries} />
        </>
      )}
      <ErrorBanner error={listed.error} testId="skill-folder-error" role="alert" />
    </section>
  );
}

function Entries(props: { backend: Backend; server: string; skill: Skill; entries: DirectoryEntry[] }) {
  if (!props.entries.length) return <p className="muted small">It is empty.</p>;
  return (
    <ul className="skill-folder-entries">
      {props.entries.map((e) => (e.directory ? <Subfolder key={e.uri} {...props} entry={e} /> : <FileEntry key={e.uri} {...props} entry={e} />))}
    </ul>
  );
}

function FileEntry(props: { backend: Backend; server: string; skill: Skill; entry: DirectoryEntry }) {
  const { skill, entry } = props;
  const listed = skill.files?.some((f) => f.uri === entry.uri) ?? false;
  return (
    <li data-testid="skill-folder-entry" data-uri={entry.uri} data-listed={listed}>
      <code title={entry.uri}>
        <Revealed text={entry.name} />
      </code>{" "}
      {skill.files === null ? (
        <DynamicFile {...props} />
      ) : listed ? null : (
        <span className="muted small">not in its listing: not read</span>
      )}
    </li>
  );
}

/** A file of a skill whose files are dynamic: read when asked for, with nothing to check it by. */
function DynamicFile(props: { backend: Backend; server: string; skill: Skill; entry: DirectoryEntry }) {
  const read = useSkillFileText(props.backend, props.server, props.skill, props.entry.uri);
  return <FileText file={read} uri={props.entry.uri} />;
}

function Subfolder(props: { backend: Backend; server: string; skill: Skill; entry: DirectoryEntry }) {
  const { entry } = props;
  const { listed, list, hide } = useFolder(props.backend, props.server, props.skill, entry.uri);
  const open = listed.entries !== null;
  return (
    <li data-testid="skill-folder-entry" data-uri={entry.uri} data-directory="true">
      <button className="link" aria-expanded={open} disabled={listed.busy} onClick={open ? hide : list}>
        <Revealed text={entry.name} />/
      </button>
      {open ? <Entries {...props} entries={listed.entries ?? []} /> : null}
      <ErrorBanner error={listed.error} testId="skill-folder-error" role="alert" />
    </li>
  );
}
