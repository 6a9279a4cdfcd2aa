// A skill the person asked to see: its SKILL.md as the core read and checked it (the frontmatter
// as text, the rest as sanitized markdown), and each of its other files, read only when asked for
// and checked the same way. All of it is the server's text: hidden characters revealed.
import { useState } from "react";
import type { Backend } from "../../backend";
import { errorMessage } from "../../backend";
import type { Skill } from "../../bindings/Skill";
import type { SkillFile } from "../../bindings/SkillFile";
import type { SkillForChat } from "../../bindings/SkillForChat";
import { formatBytes, TextBlock } from "../../components/content";
import { ErrorBanner } from "../../components/error-banner";
import { Revealed } from "../../components/revealed";
import { SkillFolder } from "./skill-folder";

/** A SKILL.md's YAML frontmatter (between its first two `---` lines), and the rest. */
export function splitFrontmatter(text: string): { frontmatter: string | null; body: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(text);
  return m ? { frontmatter: m[1] ?? "", body: text.slice(m[0].length) } : { frontmatter: null, body: text };
}

/** A file's name within its skill (its URI after the folder of the skill's SKILL.md). */
function nameInSkill(skill: Skill, file: SkillFile): string {
  const folder = skill.uri.slice(0, skill.uri.lastIndexOf("/") + 1);
  return folder && file.uri.startsWith(folder) ? file.uri.slice(folder.length) : file.uri;
}

export function SkillView(props: { backend: Backend; loaded: SkillForChat }) {
  const { server } = props.loaded;
  const { skill, text } = props.loaded.loaded;
  const { frontmatter, body } = splitFrontmatter(text);
  const others = (skill.files ?? []).filter((f) => f.uri !== skill.uri);
  return (
    <div className="skill-view" data-testid="skill-view">
      <h4>SKILL.md</h4>
      <p className="muted small">
        Read and checked against the server's listing ({skill.files ? "size, digest and frontmatter" : "frontmatter"}).
      </p>
      {frontmatter !== null ? <TextBlock text={frontmatter} markdown={false} /> : null}
      <div data-testid="skill-body">
        <TextBlock text={body} markdown />
      </div>
      {others.length ? (
        <>
          <h4>Its other files</h4>
          <ul className="skill-files">
            {others.map((f) => (
              <SkillFileRow key={f.uri} backend={props.backend} server={server} skill={skill} file={f} />
            ))}
          </ul>
        </>
      ) : null}
      {skill.files === null ? (
        <p className="muted small" data-testid="skill-dynamic">
          Its server says its files change, so none is listed to check against: only its SKILL.md is read.
        </p>
      ) : null}
      {props.loaded.folderListed ? <SkillFolder backend={props.backend} server={server} skill={skill} /> : null}
    </div>
  );
}

function SkillFileRow(props: { backend: Backend; server: string; skill: Skill; file: SkillFile }) {
  const { backend, server, skill, file } = props;
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const read = () => {
    setBusy(true);
    setError(null);
    backend
      .readSkillFile(server, skill.uri, file.uri)
      .then(setText, (e: unknown) => setError(errorMessage(e)))
      .finally(() => setBusy(false));
  };
  return (
    <li data-testid="skill-file" data-uri={file.uri}>
      <div className="actions">
        <code title={file.uri}>
          <Revealed text={nameInSkill(skill, file)} />
        </code>
        <span className="muted small">{formatBytes(file.size)}</span>
        {text === null ? (
          <button className="small" data-testid="skill-file-read" disabled={busy} onClick={read}>
            {busy ? "Reading…" : "Read"}
          </button>
        ) : (
          <button className="small" onClick={() => setText(null)}>
            Hide
          </button>
        )}
      </div>
      <ErrorBanner error={error} testId="skill-file-error" role="alert" />
      {text !== null ? <TextBlock text={text} markdown={file.uri.toLowerCase().endsWith(".md")} /> : null}
    </li>
  );
}
