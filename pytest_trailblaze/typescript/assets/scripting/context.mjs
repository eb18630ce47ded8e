// The context a tool handler receives: memory, device, target, logger, and the `tools`
// namespace that calls back into the host's tool registry. Plain JavaScript, no imports
// from outside this folder: Bun and Node load it as it is, from wherever the Python
// package is installed.

const HIDDEN = Symbol.for("trailblaze.memory.sync");
const TOKEN = /\{\{\s*(?:memory\.)?([A-Za-z_][\w.-]*)\s*\}\}|\$\{([A-Za-z_][\w.-]*)\}/g;
const RESERVED = new Set([
  "then", "catch", "finally", "constructor", "prototype", "__proto__", "toString", "valueOf", "toJSON",
]);

/** An error a `ctx.tools.<name>(...)` call rejects with: the message is the inner tool's. */
export class ToolCallError extends Error {
  constructor(tool, message, refused = false) {
    super(message);
    this.name = "ToolCallError";
    this.tool = tool;
    this.refused = refused;
  }
}

/**
 * The trail's memory as a tool sees it. Secret values never reach this process: a secret key
 * reads as its own reference (`{{key}}`), which the host resolves when the text is handed to
 * another tool. Writes are buffered and sent back with the next call or the result.
 */
export function createMemory(snapshot = {}, secretKeys = []) {
  const values = new Map();
  const secrets = new Set();
  let sets = new Map();
  let deletions = new Set();
  const load = (next, secret) => {
    values.clear();
    secrets.clear();
    for (const [key, value] of Object.entries(next ?? {})) {
      if (typeof value === "string") values.set(key, value);
    }
    for (const key of secret ?? []) secrets.add(String(key));
  };
  load(snapshot, secretKeys);
  const get = (key) => (secrets.has(key) ? `{{${key}}}` : values.get(key));
  const memory = {
    get,
    set(key, value) {
      const text = typeof value === "string" ? value : JSON.stringify(value);
      if (!secrets.has(key)) values.set(key, text);
      sets.set(key, text);
      deletions.delete(key);
    },
    has: (key) => values.has(key) || secrets.has(key),
    keys: () => [...new Set([...values.keys(), ...secrets])],
    delete(key) {
      values.delete(key);
      sets.delete(key);
      deletions.add(key);
    },
    interpolate(template) {
      return String(template).replace(TOKEN, (whole, a, b) => {
        const key = a ?? b;
        return values.has(key) && !secrets.has(key) ? values.get(key) : whole;
      });
    },
    setJson(key, value) {
      memory.set(key, JSON.stringify(value));
    },
    getJson(key) {
      const raw = get(key);
      if (raw === undefined) return undefined;
      try {
        return JSON.parse(raw);
      } catch {
        return undefined;
      }
    },
    toJSON: () => Object.fromEntries(values),
  };
  Object.defineProperty(memory, HIDDEN, {
    enumerable: false,
    value: {
      drain() {
        const out = { memoryDelta: Object.fromEntries(sets), memoryDeletions: [...deletions] };
        sets = new Map();
        deletions = new Set();
        return out;
      },
      load,
    },
  });
  return memory;
}

/** The buffered writes of a memory made by `createMemory` (empty for any other object). */
export function drainMemory(memory) {
  const sync = memory?.[HIDDEN];
  return sync ? sync.drain() : { memoryDelta: {}, memoryDeletions: [] };
}

/** Replace what a memory holds with the host's view after a call. */
export function reloadMemory(memory, snapshot, secretKeys) {
  memory?.[HIDDEN]?.load(snapshot, secretKeys);
}

export const noopLogger = Object.freeze({ debug() {}, info() {}, warn() {}, error() {} });

/** The resolved target of a session, with the two resolver methods upstream documents. */
export function createTarget(raw) {
  if (!raw || typeof raw !== "object" || typeof raw.id !== "string") return undefined;
  const appIds = Array.isArray(raw.appIds) ? raw.appIds.filter((a) => typeof a === "string") : [];
  const baseUrls = Array.isArray(raw.baseUrls) ? raw.baseUrls.filter((u) => typeof u === "string") : [];
  return {
    id: raw.id,
    displayName: typeof raw.displayName === "string" ? raw.displayName : undefined,
    appIds,
    appId: typeof raw.appId === "string" ? raw.appId : undefined,
    baseUrls,
    resolvedBaseUrl: typeof raw.resolvedBaseUrl === "string" ? raw.resolvedBaseUrl : undefined,
    resolveAppId(options) {
      return this.appId ?? this.appIds[0] ?? options?.defaultAppId;
    },
    resolveBaseUrl(options) {
      return this.resolvedBaseUrl ?? this.baseUrls[0] ?? options?.defaultBaseUrl;
    },
  };
}

/**
 * A `tools` namespace: `tools.<name>(args)` resolves with the inner tool's structured result
 * (or its text), and rejects with a `ToolCallError` carrying the inner tool's message.
 */
export function toolsProxy(dispatch) {
  return new Proxy(
    {},
    {
      get(_target, prop) {
        if (typeof prop !== "string" || RESERVED.has(prop)) return undefined;
        if (prop.trim() === "") throw new Error("ctx.tools: a tool name must not be empty");
        return (first, ...rest) => dispatch(prop, argsOf(prop, first, rest));
      },
    },
  );
}

/** `web_evaluate(fn, ...args)` and `web_evaluate("script")` become `{ script }`; others pass as given. */
function argsOf(name, first, rest) {
  if (name === "web_evaluate") {
    if (typeof first === "function") return { script: `(${first.toString()}).apply(null, ${JSON.stringify(rest)})` };
    if (typeof first === "string") return { script: first };
  }
  if (first === undefined || first === null) return {};
  if (typeof first !== "object" || Array.isArray(first)) {
    throw new TypeError(`ctx.tools.${name}: the arguments must be an object, not ${Array.isArray(first) ? "an array" : typeof first}`);
  }
  return first;
}

/** Read `_meta.trailblaze` of an MCP `tools/call` into a context; undefined without one. */
export function fromMeta(meta, logger) {
  if (!meta || typeof meta !== "object") return undefined;
  const envelope = meta.trailblaze;
  if (!envelope || typeof envelope !== "object") return undefined;
  if (typeof envelope.sessionId !== "string" || typeof envelope.invocationId !== "string") return undefined;
  const device = envelope.device && typeof envelope.device === "object" ? envelope.device : {};
  return {
    baseUrl: typeof envelope.baseUrl === "string" ? envelope.baseUrl : undefined,
    sessionId: envelope.sessionId,
    invocationId: envelope.invocationId,
    device: {
      platform: String(device.platform ?? ""),
      widthPixels: Number(device.widthPixels ?? 0),
      heightPixels: Number(device.heightPixels ?? 0),
      driverType: String(device.driverType ?? device.driver ?? ""),
    },
    target: createTarget(envelope.target),
    memory: createMemory(envelope.memory, envelope.secretKeys),
    logger: logger ?? noopLogger,
  };
}
