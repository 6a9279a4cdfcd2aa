// The MCP shapes the UI reads, as the spec's schema (2025-11-25 and 2026-07-28) defines them on the
// wire. The backend passes these through from servers unchanged, so every field a server may omit
// is optional here and the UI must cope with anything (servers are not trusted).

export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A JSON Schema as tools and elicitations send it (only the parts the UI reads are typed). */
export interface JsonSchema {
  type?: string | string[];
  title?: string;
  description?: string;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  enum?: JsonValue[];
  enumNames?: string[];
  oneOf?: JsonSchema[];
  anyOf?: JsonSchema[];
  const?: JsonValue;
  default?: JsonValue;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  [key: string]: unknown;
}

export interface Icon {
  src: string;
  mimeType?: string;
  sizes?: string[];
  theme?: "light" | "dark";
}

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

export interface Tool {
  name: string;
  title?: string;
  description?: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations?: ToolAnnotations;
  icons?: Icon[];
  /** MCP Apps reads `_meta.ui` here (resourceUri, visibility). */
  _meta?: Record<string, unknown>;
}

export interface Annotations {
  audience?: ("user" | "assistant")[];
  priority?: number;
  lastModified?: string;
}

export interface TextContent {
  type: "text";
  text: string;
  annotations?: Annotations;
}

export interface ImageContent {
  type: "image";
  data: string;
  mimeType: string;
  annotations?: Annotations;
}

export interface AudioContent {
  type: "audio";
  data: string;
  mimeType: string;
  annotations?: Annotations;
}

export interface ResourceLink {
  type: "resource_link";
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  annotations?: Annotations;
}

export type ResourceContents =
  | { uri: string; mimeType?: string; text: string }
  | { uri: string; mimeType?: string; blob: string };

export interface EmbeddedResource {
  type: "resource";
  resource: ResourceContents;
  annotations?: Annotations;
}

export type ContentBlock = TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource;

export interface CallToolResult {
  content?: ContentBlock[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  _meta?: Record<string, unknown>;
}

/** Where Switchboard (never the server: the core removes a server's own) puts what its sandbox
 * may have refused a result. */
export const SANDBOX_HINT_META = "dev.switchboard/sandboxHint";

export interface Resource {
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
  size?: number;
  icons?: Icon[];
}

export interface ListResourcesResult {
  resources: Resource[];
  nextCursor?: string;
}

export interface ResourceTemplate {
  uriTemplate: string;
  name: string;
  title?: string;
  description?: string;
  mimeType?: string;
}

export interface ReadResourceResult {
  contents: ResourceContents[];
}

export interface PromptArgument {
  name: string;
  title?: string;
  description?: string;
  required?: boolean;
}

export interface Prompt {
  name: string;
  title?: string;
  description?: string;
  arguments?: PromptArgument[];
  icons?: Icon[];
}

export interface PromptMessage {
  role: "user" | "assistant";
  content: ContentBlock;
}

export interface GetPromptResult {
  description?: string;
  messages: PromptMessage[];
}

/** What `completion/complete` completes: a prompt's argument or a resource template's variable. */
export type CompletionTarget = { type: "ref/prompt"; name: string } | { type: "ref/resource"; uri: string };

export interface Completion {
  values: string[];
  total?: number;
  hasMore?: boolean;
}

/** `logging/setLevel` levels (RFC 5424). */
export type LogLevel = "debug" | "info" | "notice" | "warning" | "error" | "critical" | "alert" | "emergency";

/** `ui/message` params (MCP Apps): a message a view asks the host to put into the conversation. */
export interface AppMessageParams {
  role: "user";
  content: ContentBlock[];
}

/** `ui/update-model-context` params (MCP Apps): what a view wants the model to know from now on. */
export interface AppContextParams {
  content?: ContentBlock[];
  structuredContent?: Record<string, unknown>;
}
