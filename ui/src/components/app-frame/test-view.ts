// For tests: the view's end of the wire, as an app inside the frame would have it, and an App
// (the views' own SDK) connected over it.
import type { JSONRPCMessage, Transport } from "@modelcontextprotocol/client";
import { App } from "@modelcontextprotocol/ext-apps";

/** The view's end of the wire, as inside the frame: it hears what the host posts to the frame's
 * window, and its own messages reach the host as `message` events whose source is that window. */
export class FrameTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onclose?: () => void;
  onerror?: (error: Error) => void;
  constructor(private frame: Window) {}
  private listener = (e: MessageEvent) => this.onmessage?.(e.data as JSONRPCMessage);
  async start() {
    this.frame.addEventListener("message", this.listener);
  }
  async send(message: JSONRPCMessage) {
    window.dispatchEvent(new MessageEvent("message", { data: message, source: this.frame }));
  }
  async close() {
    this.frame.removeEventListener("message", this.listener);
    this.onclose?.();
  }
}


/** Starts a view's App in `frame` (the iframe's window); resolves after the handshake. */
export async function startView(frame: Window, setup: (app: App) => void = () => undefined): Promise<App> {
  const app = new App({ name: "test-view", version: "1.0.0" }, {}, { autoResize: false });
  setup(app);
  await app.connect(new FrameTransport(frame));
  return app;
}
