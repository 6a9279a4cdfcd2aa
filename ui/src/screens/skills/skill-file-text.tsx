// One file of a skill, read only when the person asks (the core checks it against the skill's
// listing where there is one): its Read button, and its text once read. The server's text.
import { useState } from "react";
import type { Backend } from "../../backend";
import { errorMessage } from "../../backend";
import type { Skill } from "../../bindings/Skill";
import { TextBlock } from "../../components/content";
import { ErrorBanner } from "../../components/error-banner";

/** A skill file's text, read when `read` is called (checked by the core against the listing). */
export function useSkillFileText(backend: Backend, server: string, skill: Skill, uri: string) {
  const [text, setText] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const read = () => {
    setBusy(true);
    setError(null);
    backend
      .readSkillFile(server, skill.uri, uri)
      .then(setText, (e: unknown) => setError(errorMessage(e)))
      .finally(() => setBusy(false));
  };
  return { text, error, busy, read, hide: () => setText(null) };
}

/** The Read (or Hide) button of a file, and what reading it gave. */
export function FileText(props: { file: ReturnType<typeof useSkillFileText>; uri: string }) {
  const { text, error, busy, read, hide } = props.file;
  return (
    <>
      {text === null ? (
        <button className="small" data-testid="skill-file-read" disabled={busy} onClick={read}>
          {busy ? "Reading…" : "Read"}
        </button>
      ) : (
        <button className="small" onClick={hide}>
          Hide
        </button>
      )}
      <ErrorBanner error={error} testId="skill-file-error" role="alert" />
      {text !== null ? <TextBlock text={text} markdown={props.uri.toLowerCase().endsWith(".md")} /> : null}
    </>
  );
}
