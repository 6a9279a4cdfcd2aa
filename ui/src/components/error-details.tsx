// What lies behind an error (an HTTP status, an excerpt of the body, the platform's words),
// behind a closed "Details" toggle under the error's own sentences.

import type { Error as BackendError } from "../bindings/Error";

export function ErrorDetails(props: { error: Pick<BackendError, "details"> }) {
  if (!props.error.details) return null;
  return (
    <details className="error-details" data-testid="error-details">
      <summary>Details</summary>
      <pre>{props.error.details}</pre>
    </details>
  );
}
