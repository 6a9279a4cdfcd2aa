// Server (and model) text shown outside the approval dialog, as the dialog shows it: hidden
// characters revealed by visible.ts (⟨U+XXXX⟩, ␛), never dropped, and a short warning marker
// where any were found. Only what is shown changes; what is sent stays as it was.
import { hasHidden, reveal } from "./visible";

/** What the marker says; its title says what the dialog's banner says. */
const NOTE = "hidden characters";
const EXPLAINED =
  "This contains hidden characters, shown as ⟨U+XXXX⟩ or ␛; the text may try to tell the model something you cannot see.";

/** The short warning shown where hidden characters were found. */
export function HiddenMark() {
  return (
    <span className="warn-text hidden-mark" data-testid="hidden-mark" role="note" title={EXPLAINED}>
      ⚠ {NOTE}
    </span>
  );
}

/** `text` with its hidden characters revealed, the warning before it when it had any. */
export function Revealed(props: { text: string }) {
  if (!hasHidden(props.text)) return <>{props.text}</>;
  return (
    <>
      <HiddenMark /> {reveal(props.text)}
    </>
  );
}

/** As `Revealed`, for where only a string fits (an `<option>`, a `title`). */
export function revealedText(s: string): string {
  return hasHidden(s) ? `⚠ ${NOTE}: ${reveal(s)}` : s;
}

/** Beside an editable text that hides characters: the text revealed (else nothing). */
export function RevealedCopy(props: { value: string; testid: string }) {
  if (!hasHidden(props.value)) return null;
  return (
    <pre className="revealed" data-testid={`${props.testid}-revealed`}>
      {reveal(props.value)}
    </pre>
  );
}
