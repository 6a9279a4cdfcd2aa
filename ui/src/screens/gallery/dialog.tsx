// What the gallery's install dialogs share: the frame, the local name, and installing through the
// native trust dialog, where declining is an answer (said calmly), not a failure.
import type { ReactNode } from "react";
import { useEffect, useId, useRef, useState } from "react";
import { errorMessage, isBackendError } from "../../backend";
import { ErrorBanner } from "../../components/error-banner";
import type { Values } from "./install-fields";
import { problems as problemsOf } from "./install-fields";
import type { InstallInput } from "../../bindings/InstallInput";

export function GalleryDialog(props: { title: string; testId: string; onClose: () => void; children: ReactNode }) {
  const titleId = useId();
  const frame = useRef<HTMLDivElement>(null);
  const { onClose } = props;
  // Keyboard focus moves into the dialog, so Tab goes through its fields.
  useEffect(() => frame.current?.focus(), []);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") onClose();
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, [onClose]);
  return (
    <div className="modal-backdrop">
      <div
        ref={frame}
        tabIndex={-1}
        className="modal install-dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby={titleId}
        data-testid={props.testId}
      >
        <header className="pane-header">
          <h2 id={titleId}>{props.title}</h2>
        </header>
        <div className="review-body">{props.children}</div>
      </div>
    </div>
  );
}

/** Installing: the values checked first, then `run` (which shows the trust dialog). */
export function useInstall(needs: InstallInput[], values: Values, onInstalled: (name: string) => void) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [declined, setDeclined] = useState(false);
  const [tried, setTried] = useState(false);
  const problems = problemsOf(needs, values);
  const blocked = Object.keys(problems).length > 0;
  const install = (run: () => Promise<string>) => {
    setTried(true);
    setError(null);
    setDeclined(false);
    if (blocked) return;
    setBusy(true);
    run().then(
      (name) => {
        setBusy(false);
        onInstalled(name);
      },
      (e: unknown) => {
        setBusy(false);
        if (isBackendError(e) && e.code === "denied") setDeclined(true);
        else setError(errorMessage(e));
      },
    );
  };
  return { busy, error, setError, declined, install, problems: tried ? problems : null, blocked: tried && blocked };
}

/** The local name field, the outcome of the last try, and the buttons. */
export function InstallFooter(props: {
  name: string;
  onName: (name: string) => void;
  state: ReturnType<typeof useInstall>;
  onClose: () => void;
  /** The submit button's words, and while it works ("Install", "Installing…" unless given). */
  submit?: { label: string; busy: string };
}) {
  const s = props.state;
  const nameId = useId();
  return (
    <>
      <div className="field">
        <label htmlFor={nameId}>Name on this computer</label>
        <input
          id={nameId}
          data-testid="install-name"
          spellCheck={false}
          value={props.name}
          onChange={(e) => props.onName(e.currentTarget.value)}
        />
      </div>
      {s.blocked ? (
        <p className="form-error" role="alert" data-testid="install-missing">
          Fill in the values marked above first.
        </p>
      ) : null}
      {s.declined ? (
        <div className="banner warn" role="status" data-testid="install-declined">
          Not installed: you did not trust it in the dialog. Nothing was changed.
        </div>
      ) : null}
      <ErrorBanner error={s.error} testId="install-error" role="alert" />
      <p className="hint muted">Installing shows exactly what will run in a dialog of its own; nothing runs until you trust it there.</p>
      <div className="actions">
        <button type="submit" className="primary" data-testid="install-submit" disabled={s.busy}>
          {s.busy ? (props.submit?.busy ?? "Installing…") : (props.submit?.label ?? "Install")}
        </button>
        <button type="button" data-testid="install-cancel" onClick={props.onClose}>
          Cancel
        </button>
      </div>
    </>
  );
}
