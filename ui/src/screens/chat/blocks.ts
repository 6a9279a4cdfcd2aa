// What the person's message carries besides their words, as content blocks the model takes: the
// providers take text, images and audio in a message, so embedded resources and links go as text.
// A loaded skill's blocks are marked as the skill's (`_meta`, which the providers do not pass on),
// so that the conversation can name the skill where they are rather than show its whole SKILL.md.
import type { SkillForChat } from "../../bindings/SkillForChat";
import type { Json } from "./calls";

/** A block as the model takes it: embedded resources and links become text. */
export function chatBlock(b: Json): Json {
  if (b.type === "resource") {
    const r = (b.resource ?? {}) as Json;
    return typeof r.text === "string"
      ? { type: "text", text: `Resource ${String(r.uri)}:\n${r.text}` }
      : { type: "text", text: `Resource ${String(r.uri)} (binary, not shown to the model)` };
  }
  if (b.type === "resource_link") return { type: "text", text: `Resource link: ${String(b.uri)}` };
  return b;
}

/** The `_meta` key that marks a block of the person's message as a skill's. */
export const SKILL_META = "dev.switchboard/skill";

/** The skill a block came from: its server (the person's name for it), name and SKILL.md URI. */
export interface SkillMark {
  server: string;
  name: string;
  uri: string;
}

export function markOf(skill: SkillForChat): SkillMark {
  return { server: skill.server, name: skill.loaded.skill.name, uri: skill.loaded.skill.uri };
}

export function sameSkill(a: SkillMark, b: SkillMark): boolean {
  return a.server === b.server && a.uri === b.uri;
}

/** `list` with `skill` last, in place of the same skill loaded before. */
export function withSkill(list: SkillForChat[], skill: SkillForChat): SkillForChat[] {
  const mark = markOf(skill);
  return [...list.filter((s) => !sameSkill(markOf(s), mark)), skill];
}

function isJson(v: unknown): v is Json {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

/** A loaded skill's content (the core's note, then its SKILL.md) as blocks of the person's
 * message, each marked as the skill's. */
export function skillBlocks(skill: SkillForChat): Json[] {
  const mark = markOf(skill);
  return skill.content.filter(isJson).map((b) => ({ ...chatBlock(b), _meta: { [SKILL_META]: mark } }));
}

/** The skill a text block of the person's message came from; null for any other block. */
export function skillOf(b: Json): SkillMark | null {
  const meta = isJson(b._meta) ? b._meta[SKILL_META] : null;
  if (b.type !== "text" || !isJson(meta)) return null;
  const { server, name, uri } = meta;
  return typeof server === "string" && typeof name === "string" && typeof uri === "string" ? { server, name, uri } : null;
}

/** A message's blocks as shown: each on its own, a skill's run of blocks together. */
export type Part = { block: Json } | { skill: SkillMark; blocks: Json[] };

export function partsOf(blocks: Json[]): Part[] {
  const parts: Part[] = [];
  for (const block of blocks) {
    const mark = skillOf(block);
    const last = parts[parts.length - 1];
    if (mark && last && "skill" in last && sameSkill(last.skill, mark)) last.blocks.push(block);
    else parts.push(mark ? { skill: mark, blocks: [block] } : { block });
  }
  return parts;
}
