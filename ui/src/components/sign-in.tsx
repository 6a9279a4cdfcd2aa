// Signing in to a remote server through the system browser, wherever the window asks for it: the
// server's card, the banner for a sign-in that ended, and a tool that needs more access.
import { useState } from "react";
import type { Backend } from "../backend";
import { errorMessage, isBackendError } from "../backend";

/** A sign-in to `server`: `start` opens the browser; `then` runs once the server is up again. */
export function useSignIn(backend: Backend, server: string, then: () => void) {
  const [waiting, setWaiting] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const start = () => {
    setWaiting(true);
    setError(null);
    backend
      .signInServer(server)
      .then(then, (e: unknown) => {
        // Cancelled is the person's own choice, not an error.
        if (!(isBackendError(e) && e.code === "cancelled")) setError(errorMessage(e));
      })
      .finally(() => setWaiting(false));
  };
  return { waiting, error, start };
}

/** What the window shows while the browser has the person. */
export function SignInWaiting(props: { backend: Backend; server: string }) {
  return (
    <div className="banner" data-testid="sign-in-waiting">
      Finish signing in to {props.server} in your browser; Switchboard is waiting for it to come back.{" "}
      <button data-testid="sign-in-cancel" onClick={() => void props.backend.cancelSignIn()}>
        Cancel
      </button>
    </div>
  );
}
