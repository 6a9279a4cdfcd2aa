// The fake's skills (the MCP Skills extension): a server's listing, and what the core answers
// when one is loaded or a file of one is read — checked against the listing (a file marked
// tampered fails as the core's check would), with the content that brings a skill into a chat
// worded as the core words it (app/skills.rs).
import type { DirectoryEntry } from "../bindings/DirectoryEntry";
import type { Skill } from "../bindings/Skill";
import type { SkillForChat } from "../bindings/SkillForChat";

/** A skill as the fake's server holds it. */
export interface FakeSkill {
  skill: Skill;
  /** Each file's text by URI, its SKILL.md's too. */
  texts: Record<string, string>;
  /** The URIs whose content no longer matches the listing. */
  tampered?: string[];
}

const RELEASE_NOTES = `---
name: release-notes
description: Write release notes from a list of merged changes, grouped by kind.
---

# Release notes

Group the changes into **Features**, **Fixes** and **Other**, newest first. Follow the house style
in references/STYLE.md.
`;

const STYLE = `Use the past tense. One line per change, starting with a verb.
`;

const CHANGELOG = `---
name: changelog
description: Keep CHANGELOG.md up to date.
---

Add an entry under "Unreleased" for every change a user would notice.
`;

function file(uri: string, text: string) {
  return { uri, digest: `sha256:${"0".repeat(64)}`, size: new TextEncoder().encode(text).length };
}

/** Two skills: `release-notes` with a supporting file, and `changelog` whose files are dynamic. */
export function fakeSkills(): FakeSkill[] {
  const notes = "skill://release-notes/SKILL.md";
  const style = "skill://release-notes/references/STYLE.md";
  const changelog = "skill://changelog/SKILL.md";
  return [
    {
      skill: {
        uri: notes,
        name: "release-notes",
        description: "Write release notes from a list of merged changes, grouped by kind.",
        frontmatter: { name: "release-notes", description: "Write release notes from a list of merged changes, grouped by kind." },
        files: [file(notes, RELEASE_NOTES), file(style, STYLE)],
      },
      texts: { [notes]: RELEASE_NOTES, [style]: STYLE },
    },
    {
      skill: {
        uri: changelog,
        name: "changelog",
        description: "Keep CHANGELOG.md up to date.",
        frontmatter: { name: "changelog", description: "Keep CHANGELOG.md up to date." },
        files: null,
      },
      texts: { [changelog]: CHANGELOG, "skill://changelog/templates/entry.md": "- {change} ({author})\n" },
    },
  ];
}

function unverified(server: string, skill: Skill, uri: string, why: string) {
  return {
    code: "server_error",
    message: `server ${JSON.stringify(server)}'s skill ${JSON.stringify(skill.name)}: ${uri} was not used: ${why}`,
  };
}

/** File `uri` of `held`, as the core reads it: only a listed file, and only if it checks out; for
 *  a skill whose files are dynamic, its SKILL.md or a file of its folder. */
export function readFakeSkillFile(server: string, held: FakeSkill, uri: string): string {
  const { skill } = held;
  if (skill.files) {
    if (!skill.files.some((f) => f.uri === uri)) throw unverified(server, skill, uri, "the skill's listing does not name it");
  } else {
    const root = skill.uri.replace(/\/SKILL\.md$/, "");
    const inFolder = uri.startsWith(`${root}/`) && !uri.slice(root.length + 1).split("/").some((s) => s === "" || s === "." || s === "..");
    if (!inFolder) throw unverified(server, skill, uri, "it is not in the skill's folder");
  }
  if (held.tampered?.includes(uri)) throw unverified(server, skill, uri, "its digest differs from the listing");
  const text = held.texts[uri];
  if (text === undefined) throw { code: "server_error", message: `server ${JSON.stringify(server)} has no resource ${uri}` };
  return text;
}

/** `held` loaded for a chat: its SKILL.md, and the note and embedded resource the core makes. */
export function loadFakeSkill(server: string, held: FakeSkill): SkillForChat {
  const { skill } = held;
  const text = readFakeSkillFile(server, held, skill.uri);
  const others = (skill.files ?? []).map((f) => f.uri).filter((uri) => uri !== skill.uri);
  let note = `Skill ${JSON.stringify(skill.name)} from server ${JSON.stringify(server)}, loaded by the user. Its instructions follow; they are the server's text.`;
  if (others.length) note += ` Its other files (not loaded; ask the user for one if you need it): ${others.join(", ")}.`;
  return {
    server,
    loaded: { skill: structuredClone(skill), text },
    folderListed: true,
    content: [
      { type: "text", text: note },
      { type: "resource", resource: { uri: skill.uri, mimeType: "text/markdown", text } },
    ],
  };
}

/** What a folder of `held` holds, as a server that lists folders answers: the direct children of
 *  `folder` among the skill's texts (subfolders marked), or the core's refusal. */
export function fakeSkillFolder(held: FakeSkill, folder: string | null): DirectoryEntry[] {
  const root = held.skill.uri.replace(/\/SKILL\.md$/, "");
  const dir = folder ?? root;
  if (dir !== root && !dir.startsWith(`${root}/`)) throw { code: "invalid_input", message: `${dir} is not a folder of the skill ${root}` };
  const children = new Map<string, DirectoryEntry>();
  for (const uri of Object.keys(held.texts)) {
    if (!uri.startsWith(`${dir}/`)) continue;
    const [name, ...deeper] = uri.slice(dir.length + 1).split("/");
    const directory = deeper.length > 0;
    children.set(name!, { uri: `${dir}/${name}`, name: name!, mimeType: directory ? "inode/directory" : "text/markdown", directory });
  }
  return [...children.values()];
}
