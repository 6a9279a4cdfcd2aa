// The host end of one view: the official AppBridge, with no MCP client of its own — every request
// the view makes is routed to the Backend under the view's id (so the core's approval door, audit
// and visibility rules apply) — over postMessage to this iframe's window only. What reaches the
// Backend is bounded per view (limits.ts): a view that floods the frame has the excess refused.
import type { ReadResourceResult as SdkReadResourceResult } from "@modelcontextprotocol/client";
import type {
  McpUiDisplayMode,
  McpUiHostCapabilities,
  McpUiHostContext,
  McpUiResourcePermissions,
} from "@modelcontextprotocol/ext-apps/app-bridge";
import { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";
import type { Backend } from "../../backend";
import { errorMessage, isBackendError } from "../../backend";
import type { AppView } from "../../bindings/AppView";
import type { AppContextParams, AppMessageParams } from "../../mcp";
import { LimitRefusal, ViewLimits } from "./limits";
import { sdkResult } from "./tool-ui";

export const HOST_INFO = { name: "Switchboard", version: "0.1.0" };

/** What the frame does with the view's requests that are the window's to show. */
export interface BridgeEvents {
  initialized: () => void;
  /** Whether the message went somewhere the person can send it from (false: only shown). */
  message: (message: AppMessageParams) => boolean;
  context: (context: AppContextParams) => void;
  displayMode: (mode: McpUiDisplayMode) => McpUiDisplayMode;
  size: (width: number | undefined, height: number | undefined) => void;
  log: (level: string, data: unknown) => void;
  requestTeardown: () => void;
  /** Once, the first time a request of the view is refused for its limits. */
  limited: () => void;
}

/** Only what this host implements: no downloads, no sampling, no list_changed. */
export function hostCapabilities(view: AppView, granted: McpUiResourcePermissions): McpUiHostCapabilities {
  return {
    openLinks: {},
    serverTools: {},
    serverResources: {},
    logging: {},
    message: { text: {}, image: {} },
    updateModelContext: { text: {}, image: {}, structuredContent: {} },
    sandbox: { permissions: granted, csp: { ...view.csp } },
  };
}

function objectOr(value: unknown): Record<string, unknown> | null {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
}

/** A rejection the view can read: the backend's message, keeping its code in the text. */
function refusal(e: unknown): Error {
  if (e instanceof LimitRefusal) return e;
  return new Error(isBackendError(e) ? `${e.code}: ${e.message}` : errorMessage(e));
}

export function createBridge(input: {
  backend: Backend;
  view: AppView;
  granted: McpUiResourcePermissions;
  context: McpUiHostContext;
  events: BridgeEvents;
}): AppBridge {
  const { backend, view, events } = input;
  const id = view.viewId;
  const bridge = new AppBridge(null, HOST_INFO, hostCapabilities(view, input.granted), { hostContext: input.context });
  const limits = new ViewLimits(events.limited);

  bridge.oninitialized = () => events.initialized();
  bridge.oncalltool = async (params) => {
    const p = objectOr(params);
    const name = p?.["name"];
    if (typeof name !== "string" || name === "") throw new Error("tools/call needs a tool name");
    const args = p?.["arguments"] === undefined ? {} : objectOr(p["arguments"]);
    if (!args) throw new Error("tools/call arguments must be an object");
    try {
      return sdkResult(await limits.run(params, () => backend.appCallTool(id, name, args)));
    } catch (e) {
      // A refusal is the person's answer, so the view gets it as a tool error it can show.
      if (isBackendError(e) && e.code === "denied")
        return { content: [{ type: "text", text: `Not called: ${e.message}` }], isError: true };
      throw refusal(e);
    }
  };
  bridge.onreadresource = async (params) => {
    const uri = objectOr(params)?.["uri"];
    if (typeof uri !== "string") throw new Error("resources/read needs a uri");
    try {
      return (await limits.run(params, () => backend.appReadResource(id, uri))) as SdkReadResourceResult;
    } catch (e) {
      throw refusal(e);
    }
  };
  bridge.onopenlink = async (params) => {
    try {
      await limits.run(params, () => backend.appOpenLink(id, params.url));
      return {};
    } catch (e) {
      if (e instanceof LimitRefusal) throw e;
      return { isError: true };
    }
  };
  bridge.onmessage = async (params) => {
    const message = params as AppMessageParams;
    try {
      await limits.run(params, () => backend.appMessage(id, message));
    } catch (e) {
      if (e instanceof LimitRefusal) throw e;
      return { isError: true };
    }
    return events.message(message) ? {} : { isError: true };
  };
  bridge.onupdatemodelcontext = async (params) => {
    const context = params as AppContextParams;
    try {
      await limits.run(params, () => backend.appUpdateContext(id, context));
    } catch (e) {
      throw refusal(e);
    }
    events.context(context);
    return {};
  };
  bridge.onrequestdisplaymode = async ({ mode }) => ({ mode: events.displayMode(mode) });
  bridge.onsizechange = ({ width, height }) => events.size(width, height);
  bridge.onloggingmessage = ({ level, data }) => events.log(level, data);
  bridge.onrequestteardown = () => events.requestTeardown();
  return bridge;
}

/**
 * Connects over postMessage to `target` alone. PostMessageTransport drops messages whose
 * `event.source` is not the window it is given, so a forged message from another frame (or the
 * window itself) never reaches the bridge.
 */
export async function connectBridge(bridge: AppBridge, target: Window): Promise<void> {
  await bridge.connect(new PostMessageTransport(target, target));
}

/** Asks the view to tear down, waiting at most `ms` for its answer. */
export async function teardown(bridge: AppBridge, ms: number): Promise<void> {
  await Promise.race([
    bridge.teardownResource({}, { timeout: ms }).catch(() => undefined),
    new Promise((resolve) => setTimeout(resolve, ms)),
  ]);
}
