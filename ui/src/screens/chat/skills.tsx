// Skills in the chat: those loaded for the next message, shown as chips in the composer, and a
// skill sent, named in the conversation ("Skill <name> from <server>") with what went to the model
// shown only when asked. Names are the server's text: revealed.
import type { Dispatch, SetStateAction } from "react";
import { useState } from "react";
import type { SkillForChat } from "../../bindings/SkillForChat";
import { Revealed } from "../../components/revealed";
import type { Skill } from "../../bindings/Skill";
import type { SkillMark } from "./blocks";
import { markOf, sameSkill } from "./blocks";
import type { Json } from "./calls";

/** The skills loaded for the next message, and how to change them. */
export interface ChatSkills {
  skills: SkillForChat[];
  onSkills: Dispatch<SetStateAction<SkillForChat[]>>;
}

/** A skill of a server, as the "/" palette offers it. */
export interface SkillEntry {
  server: string;
  skill: Skill;
}

/** "Skill <name> from <server>". */
export function SkillName(props: { mark: SkillMark }) {
  return (
    <>
      Skill{" "}
      <strong>
        <Revealed text={props.mark.name} />
      </strong>{" "}
      from{" "}
      <strong>
        <Revealed text={props.mark.server} />
      </strong>
    </>
  );
}

/** The skills that go with the next message, each removable. */
export function SkillChips(props: ChatSkills) {
  const { onSkills } = props;
  return props.skills.map((s) => {
    const mark = markOf(s);
    return (
      <span key={`${mark.server}\u0000${mark.uri}`} className="chip" data-testid="skill-attachment" title="Goes with your next message">
        <SkillName mark={mark} />
        <button
          className="link"
          aria-label="Remove"
          onClick={() => onSkills((list) => list.filter((x) => !sameSkill(markOf(x), mark)))}
        >
          ×
        </button>
      </span>
    );
  });
}

/** A skill in the "/" palette: its name, marked as a skill. */
export function SkillOption(props: { skill: Skill }) {
  return (
    <span className="name palette-title">
      <Revealed text={props.skill.name} /> <span className="badge">skill</span>
    </span>
  );
}

/** A skill sent in the conversation: named, with what the model was given behind a toggle. */
export function SentSkill(props: { skill: SkillMark; blocks: Json[] }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="chat-skill" data-testid="chat-skill">
      <span className="chip">
        <SkillName mark={props.skill} />
      </span>{" "}
      <button className="link small" aria-expanded={open} data-testid="chat-skill-toggle" onClick={() => setOpen(!open)}>
        {open ? "Hide" : "Show what the model was given"}
      </button>
      {open
        ? props.blocks.map((b, i) => (
            <pre key={i} className="text-block">
              <Revealed text={String(b.text ?? "")} />
            </pre>
          ))
        : null}
    </div>
  );
}
