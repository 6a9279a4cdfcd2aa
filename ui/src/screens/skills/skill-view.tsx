// A skill the person asked to see: its SKILL.md as the core read and checked it (the frontmatter
// as text, the rest as sanitized markdown), and each of its other files, read only when asked for
// and checked the same way. All of it is the server's text: hidden characters revealed.
import type { Backend } from "../../backend";
import type { Skill } from "../../bindings/Skill";
import type { SkillFile } from "../../bindings/SkillFile";
import type { SkillForChat } from "../../bindings/SkillForChat";
import { formatBytes, TextBlock } from "../../components/content";
import { Revealed } from "../../components/revealed";
import { FileText, useSkillFileText } from "./skill-file-text";
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
          Its server says its files change, so none is listed to check against: its SKILL.md is checked by its
          frontmatter, and a file of its folder is read only when asked for, as the server's word.
        </p>
      ) : null}
      {props.loaded.folderListed ? <SkillFolder backend={props.backend} server={server} skill={skill} /> : null}
    </div>
  );
}

function SkillFileRow(props: { backend: Backend; server: string; skill: Skill; file: SkillFile }) {
  const { backend, server, skill, file } = props;
  const read = useSkillFileText(backend, server, skill, file.uri);
  return (
    <li data-testid="skill-file" data-uri={file.uri}>
      <div className="actions">
        <code title={file.uri}>
          <Revealed text={nameInSkill(skill, file)} />
        </code>
        <span className="muted small">{formatBytes(file.size)}</span>
      </div>
      <FileText file={read} uri={file.uri} />
    </li>
  );
}
