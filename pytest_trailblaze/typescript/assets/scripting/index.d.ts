// Types of `@trailblaze/scripting` as pytest-trailblaze provides it. `trailblaze check` copies
// this folder to `trails/.trailblaze/sdk/` so editors resolve the module; each trailmap's
// generated `trailblaze-client.d.ts` adds its tools to `TrailblazeToolMap`.

/** One tool `ctx.tools` can call: its arguments and what the call resolves with. */
export interface TrailblazeToolEntry {
  args: unknown;
  result: unknown;
}

/** Every tool a trailmap can call, filled in by its generated `trailblaze-client.d.ts`. */
// eslint-disable-next-line @typescript-eslint/no-empty-interface
export interface TrailblazeToolMap {}

type ToolArgs<K extends keyof TrailblazeToolMap> = TrailblazeToolMap[K] extends { args: infer A } ? A : never;
type ToolResultOf<K extends keyof TrailblazeToolMap> = TrailblazeToolMap[K] extends { result: infer R } ? R : unknown;

/** `web_evaluate(fn, ...args)`, `web_evaluate("script")` or `web_evaluate({ script })`. */
export interface WebEvaluateMethod<R> {
  <TArgs extends unknown[], TResult>(fn: (...args: TArgs) => TResult, ...args: TArgs): Promise<R>;
  (script: string): Promise<R>;
  (args: { script: string }): Promise<R>;
}

/** `ctx.tools.<name>(args)`: resolves with the tool's result, rejects with its failure. */
export type TrailblazeToolMethods = {
  [K in keyof TrailblazeToolMap]: K extends "web_evaluate"
    ? WebEvaluateMethod<ToolResultOf<K>>
    : {} extends ToolArgs<K>
      ? (args?: ToolArgs<K>) => Promise<ToolResultOf<K>>
      : (args: ToolArgs<K>) => Promise<ToolResultOf<K>>;
};

/** The client a tool's test passes as the third argument; at run time the host provides it. */
export interface TrailblazeClient {
  readonly tools: TrailblazeToolMethods;
}

/** What `ctx.tools.<name>(...)` rejects with: `message` is the inner tool's message. */
export declare class ToolCallError extends Error {
  readonly tool: string;
  /** True when the call was refused before it ran (not in a live call, wrong session). */
  readonly refused: boolean;
}

export type TrailblazeLogLevel = "debug" | "info" | "warn" | "error";

export interface TrailblazeLogger {
  debug(...message: unknown[]): void;
  info(...message: unknown[]): void;
  warn(...message: unknown[]): void;
  error(...message: unknown[]): void;
}

/**
 * The trail's memory. Writes reach the trail once the call ends. A secret reads as its
 * reference (`{{name}}`), which is resolved when you pass it to another tool: its value never
 * enters the tool's process.
 */
export interface TrailblazeMemory {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
  has(key: string): boolean;
  keys(): string[];
  delete(key: string): void;
  /** `{{key}}` and `${key}` replaced by their values (secrets and unknown keys stay as written). */
  interpolate(template: string): string;
  setJson(key: string, value: unknown): void;
  getJson<T = unknown>(key: string): T | undefined;
}

export interface TrailblazeDevice {
  platform: "web" | "android" | "ios" | "desktop";
  widthPixels: number;
  heightPixels: number;
  /** The driver's key, e.g. `playwright-native`, `android-ondevice-accessibility`. */
  driverType: string;
}

export interface TrailblazeTarget {
  id: string;
  displayName?: string;
  /** The app ids the target declares for the session's platform, in manifest order. */
  appIds: string[];
  appId?: string;
  baseUrls?: string[];
  resolvedBaseUrl?: string;
  /** The resolved app id, else the first declared, else `defaultAppId`. */
  resolveAppId(options?: { defaultAppId?: string }): string | undefined;
  /** The target's web base URL, else `defaultBaseUrl`. */
  resolveBaseUrl(options?: { defaultBaseUrl?: string }): string | undefined;
}

export interface TrailblazeContext {
  /** The target's web base URL (`platforms.web.base_url`, else memory's `baseUrl`), when known. */
  baseUrl?: string;
  /** Opaque session id, for log correlation. */
  sessionId: string;
  /** This call's id. */
  invocationId: string;
  device: TrailblazeDevice;
  target?: TrailblazeTarget;
  memory: TrailblazeMemory;
  logger: TrailblazeLogger;
}

/** A handler's context: the session context plus `tools` to call other tools. */
export interface ToolContext extends TrailblazeContext {
  readonly tools: TrailblazeToolMethods;
}

/** The input of a tool that takes none. */
export type EmptyInput = Record<string, never>;

export interface TrailheadSpec {
  to?: string;
  dynamic?: boolean;
}

/** Facts about a typed tool, read from the file without running it (literal values only). */
export interface TrailblazeTypedToolSpec {
  /** The description agents read; wins over the TSDoc above the export. */
  description?: string;
  supportedPlatforms?: readonly ("web" | "android" | "ios" | "desktop")[];
  supportedDrivers?: readonly string[];
  /** A hint for catalogs: the tool needs a live session. */
  requiresContext?: boolean;
  requiresHost?: boolean;
  /** False: agents are not offered the tool (recordings may still call it). */
  surfaceToLlm?: boolean;
  /** False: a recording keeps the tools this one calls instead of this call. */
  isRecordable?: boolean;
  /** A JSON Schema for the input; wins over the one read from the input type. */
  inputSchema?: Record<string, unknown>;
  trailhead?: TrailheadSpec;
}

/** A typed tool: `(input, ctx, client)` for tests, run by the host with the live context. */
export interface TypedToolDefinition<TInput, TResult> {
  (input: TInput, ctx?: TrailblazeContext, client?: TrailblazeClient): Promise<TResult>;
  readonly spec: TrailblazeTypedToolSpec;
}

/** A tool declared for `run()`: `(args, ctx, client)`, returning text, an object or an MCP result. */
export type TrailblazeToolHandler = (
  args: Record<string, unknown>,
  ctx: TrailblazeContext | undefined,
  client: TrailblazeClient,
) => unknown;

export interface TrailblazeToolSpec {
  description?: string;
  /** A JSON Schema object, or a zod schema (zod must be installed where the server runs). */
  inputSchema?: unknown;
  _meta?: Record<string, unknown>;
}

export interface RunOptions {
  name?: string;
  version?: string;
}

export declare function tool<TInput = EmptyInput, TResult = string>(
  handler: (input: TInput, ctx: ToolContext) => Promise<TResult> | TResult,
): TypedToolDefinition<TInput, TResult>;
export declare function tool<TInput = EmptyInput, TResult = string>(
  spec: TrailblazeTypedToolSpec,
  handler: (input: TInput, ctx: ToolContext) => Promise<TResult> | TResult,
): TypedToolDefinition<TInput, TResult>;
export declare function tool(name: string, spec: TrailblazeToolSpec, handler: TrailblazeToolHandler): void;

/** Serve the tools declared with `tool(name, spec, handler)` as an MCP server over stdio. */
export declare function run(options?: RunOptions): Promise<void>;

/** The context of an MCP `tools/call` from its `_meta` (`extra._meta` in the MCP SDK). */
export declare function fromMeta(meta: unknown, logger?: TrailblazeLogger): TrailblazeContext | undefined;

/** For an MCP server on the official SDK: the call's `tools` client and context (from `extra`). */
export declare function client(extra: unknown): { tools: TrailblazeToolMethods; ctx: TrailblazeContext | undefined };

/** A return value as an MCP result that carries the memory `ctx.memory` wrote. */
export declare function result(value: unknown, ctx?: TrailblazeContext): {
  content: Array<{ type: "text"; text: string }>;
  structuredContent?: unknown;
  isError?: boolean;
  _meta?: Record<string, unknown>;
};

/** zod, when installed beside the tools. */
export declare const z: any;

export declare const trailblaze: {
  readonly tool: typeof tool;
  readonly run: typeof run;
  readonly fromMeta: typeof fromMeta;
  readonly client: typeof client;
  readonly result: typeof result;
};
export default trailblaze;

declare global {
  /** What `setTimeout` returns: only good for `clearTimeout`. */
  interface TimeoutHandle {
    readonly __timeoutHandle: unique symbol;
  }
  function setTimeout(callback: (...args: any[]) => void, ms?: number, ...args: any[]): TimeoutHandle;
  function clearTimeout(handle: TimeoutHandle | undefined): void;
  function setInterval(callback: (...args: any[]) => void, ms?: number, ...args: any[]): TimeoutHandle;
  function clearInterval(handle: TimeoutHandle | undefined): void;
  function queueMicrotask(callback: () => void): void;
  function structuredClone<T>(value: T): T;
  function atob(data: string): string;
  function btoa(data: string): string;

  interface Console {
    log(...data: unknown[]): void;
    info(...data: unknown[]): void;
    warn(...data: unknown[]): void;
    error(...data: unknown[]): void;
    debug(...data: unknown[]): void;
    trace(...data: unknown[]): void;
  }
  var console: Console;

  class URLSearchParams {
    constructor(init?: string | Record<string, string> | [string, string][] | URLSearchParams);
    append(name: string, value: string): void;
    delete(name: string): void;
    get(name: string): string | null;
    getAll(name: string): string[];
    has(name: string): boolean;
    set(name: string, value: string): void;
    sort(): void;
    toString(): string;
    forEach(callback: (value: string, key: string) => void): void;
    entries(): IterableIterator<[string, string]>;
    keys(): IterableIterator<string>;
    values(): IterableIterator<string>;
    [Symbol.iterator](): IterableIterator<[string, string]>;
  }

  class URL {
    constructor(url: string | URL, base?: string | URL);
    hash: string;
    host: string;
    hostname: string;
    href: string;
    readonly origin: string;
    password: string;
    pathname: string;
    port: string;
    protocol: string;
    search: string;
    readonly searchParams: URLSearchParams;
    username: string;
    toString(): string;
    toJSON(): string;
    static canParse(url: string, base?: string): boolean;
  }

  class TextEncoder {
    readonly encoding: string;
    encode(input?: string): Uint8Array;
  }
  class TextDecoder {
    constructor(label?: string, options?: { fatal?: boolean; ignoreBOM?: boolean });
    readonly encoding: string;
    decode(input?: ArrayBuffer | ArrayBufferView, options?: { stream?: boolean }): string;
  }

  class DOMException extends Error {
    constructor(message?: string, name?: string);
    readonly code: number;
  }

  interface Event {
    readonly type: string;
  }
  interface AbortSignalEventMap {
    abort: Event;
  }
  interface AbortSignal {
    readonly aborted: boolean;
    readonly reason: unknown;
    onabort: ((this: AbortSignal, ev: Event) => unknown) | null;
    throwIfAborted(): void;
    addEventListener<K extends keyof AbortSignalEventMap>(type: K, listener: (this: AbortSignal, ev: AbortSignalEventMap[K]) => unknown): void;
    removeEventListener<K extends keyof AbortSignalEventMap>(type: K, listener: (this: AbortSignal, ev: AbortSignalEventMap[K]) => unknown): void;
  }
  var AbortSignal: {
    prototype: AbortSignal;
    abort(reason?: unknown): AbortSignal;
    timeout(milliseconds: number): AbortSignal;
    any(signals: AbortSignal[]): AbortSignal;
  };
  class AbortController {
    readonly signal: AbortSignal;
    abort(reason?: unknown): void;
  }

  type HeadersInit = Headers | Record<string, string> | [string, string][];
  class Headers {
    constructor(init?: HeadersInit);
    append(name: string, value: string): void;
    delete(name: string): void;
    get(name: string): string | null;
    has(name: string): boolean;
    set(name: string, value: string): void;
    forEach(callback: (value: string, key: string) => void): void;
    entries(): IterableIterator<[string, string]>;
    [Symbol.iterator](): IterableIterator<[string, string]>;
  }
  type BodyInit = string | URLSearchParams | ArrayBuffer | ArrayBufferView;
  interface RequestInit {
    method?: string;
    headers?: HeadersInit;
    body?: BodyInit | null;
    signal?: AbortSignal | null;
    redirect?: "follow" | "error" | "manual";
  }
  class Request {
    constructor(input: string | URL | Request, init?: RequestInit);
    readonly url: string;
    readonly method: string;
    readonly headers: Headers;
    text(): Promise<string>;
    json(): Promise<any>;
  }
  interface ResponseInit {
    status?: number;
    statusText?: string;
    headers?: HeadersInit;
  }
  class Response {
    constructor(body?: BodyInit | null, init?: ResponseInit);
    readonly ok: boolean;
    readonly status: number;
    readonly statusText: string;
    readonly url: string;
    readonly headers: Headers;
    text(): Promise<string>;
    json(): Promise<any>;
    static json(data: unknown, init?: ResponseInit): Response;
  }
  function fetch(input: string | URL | Request, init?: RequestInit): Promise<Response>;
}
