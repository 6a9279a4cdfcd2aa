// What one view may ask of the backend, as the frame sees it: at most MAX_WAITING requests waiting
// at once and none whose params pass MAX_PARAMS_BYTES. The excess is refused at once, without
// reaching the backend, with a JSON-RPC error the view reads; the backend's own per-view refusal
// (`limit_exceeded`) is passed on the same way. The backend keeps its own limits (waiting and rate);
// these keep the window responsive under a view that floods it. The frame is told once per view.
import { isBackendError } from "../../backend";

/** Requests of one view that may wait for the backend at once (a tool call waits for review). */
export const MAX_WAITING = 4;
/** The largest params a view's request may carry, as JSON. */
export const MAX_PARAMS_BYTES = 256 * 1024;
/** The backend's error code for a view over its limits, also put in the refusals' `data`. */
export const LIMIT_CODE = "limit_exceeded";

/** A request refused for a limit. Thrown from a bridge handler, it answers the view with a JSON-RPC
 * error (JSON-RPC's implementation-defined server error code), `data.code` saying why. */
export class LimitRefusal extends Error {
  readonly code = -32000;
  readonly data = { code: LIMIT_CODE };
}

/** The params' size as UTF-8 JSON, or Infinity if they do not serialize. */
function jsonBytes(params: unknown): number {
  let json: string | undefined;
  try {
    json = JSON.stringify(params);
  } catch {
    return Infinity;
  }
  if (json === undefined) return 0;
  // Every character is at least one byte: only a short text needs counting.
  return json.length > MAX_PARAMS_BYTES ? json.length : new TextEncoder().encode(json).length;
}

/** One view's limits; `onLimited` is called the first time one of its requests is refused. */
export class ViewLimits {
  private waiting = 0;
  private told = false;
  constructor(private readonly onLimited: () => void) {}

  /** Runs `call` (a request to the backend) if the view is within its limits; else refuses it. */
  async run<T>(params: unknown, call: () => Promise<T>): Promise<T> {
    if (this.waiting >= MAX_WAITING) throw this.refuse("too many requests waiting; try again later");
    if (jsonBytes(params) > MAX_PARAMS_BYTES) throw this.refuse(`the request is larger than ${MAX_PARAMS_BYTES / 1024} KiB`);
    this.waiting++;
    try {
      return await call();
    } catch (e) {
      if (isBackendError(e) && e.code === LIMIT_CODE) throw this.refuse(e.message);
      throw e;
    } finally {
      this.waiting--;
    }
  }

  private refuse(why: string): LimitRefusal {
    if (!this.told) {
      this.told = true;
      this.onLimited();
    }
    return new LimitRefusal(`Refused: ${why}`);
  }
}
