// The banner that says what failed, above what it concerns: the error's sentence (as
// `errorMessage` words it), then whatever follows it (a Retry, a sign-in); nothing when there is
// no error. What lies behind an error, where a screen keeps it, is `ErrorDetails`.
import type { ReactNode } from "react";

export function ErrorBanner(props: {
  error: string | null | undefined;
  /** Most lists and forms say "error-banner"; dialogs and panels have their own. */
  testId?: string;
  /** "alert" where the error answers what the person just did (a form's save). */
  role?: "alert";
  children?: ReactNode;
}) {
  if (!props.error) return null;
  return (
    <div className="banner error" data-testid={props.testId} role={props.role}>
      {props.error}
      {props.children}
    </div>
  );
}
