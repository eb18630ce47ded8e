// `@trailblaze/scripting` as pytest-trailblaze provides it: typed tools
// (`trailblaze.tool<I, O>(spec, handler)`), the context helpers, and `trailblaze.run()` for a
// standalone MCP server. Tool files import it by name; the host resolves the name to this file,
// so a trailmap needs no package.json or node_modules of its own.

import { createRequire } from "node:module";
import { createMemory, fromMeta, noopLogger, toolsProxy, ToolCallError } from "./context.mjs";
import {
  callbackTools,
  protectStdout,
  serveStdio,
  sessionLogger,
  toCallResult,
  toErrorResult,
} from "./stdio.mjs";

export { fromMeta, ToolCallError };

/** Answers a `trailblaze/callTool` request without a schema of its own (MCP SDK `sendRequest`). */
const ANY_RESULT = Object.freeze({ safeParse: (data) => ({ success: true, data }), parse: (data) => data });

/**
 * For an MCP server written with the official SDK: the `{ tools }` client of the call `extra`
 * belongs to, calling the trail's tools over the same connection, and the call's context.
 *
 *   server.registerTool("shop_checkout", { inputSchema: {} }, async (_args, extra) => {
 *     const { tools, ctx } = trailblaze.client(extra);
 *     await tools.web_click({ ref: "css=#checkout" });
 *     return trailblaze.result("Checked out.", ctx);
 *   });
 */
export function client(extra) {
  const meta = extra?._meta ?? extra?.request?.params?._meta;
  const ctx = fromMeta(meta);
  const envelope = meta?.trailblaze ?? {};
  const session = { request: (method, params) => extra.sendRequest({ method, params }, ANY_RESULT) };
  return { tools: callbackTools(session, envelope, ctx?.memory), ctx };
}

/** A tool's return value as an MCP result, carrying the memory `ctx.memory` wrote back to the trail. */
export function result(value, ctx) {
  return toCallResult(value, ctx?.memory, { raw: true });
}

/** Marks a typed tool so the host can tell it from a plain exported function. */
export const TOOL_MARK = Symbol.for("trailblaze.tool");
const pending = [];

/**
 * `tool(handler)`, `tool(spec, handler)`: a typed tool, exported under the tool's name. It is a
 * function `(input, ctx, client)`: tests call it with a mock context and client, the host with
 * the live ones. `tool(name, spec, handler)` declares a tool for `run()` instead.
 */
export function tool(first, second, third) {
  if (typeof first === "string") {
    if (typeof third !== "function") throw new TypeError(`trailblaze.tool("${first}", spec, handler): the handler must be a function`);
    pending.push({ name: first, spec: second ?? {}, handler: third });
    return undefined;
  }
  const [spec, handler] = typeof first === "function" ? [{}, first] : [first ?? {}, second];
  if (typeof handler !== "function") throw new TypeError("trailblaze.tool(spec, handler): the handler must be a function");
  const definition = async (input, ctx, client) => handler(input ?? {}, toolContext(ctx, client));
  Object.defineProperty(definition, TOOL_MARK, { value: { spec, handler } });
  Object.defineProperty(definition, "spec", { value: spec, enumerable: true });
  return definition;
}

/** The handler's context: the given context with `tools` from the client (tests) or its own. */
function toolContext(ctx, client) {
  const base = ctx ?? { sessionId: "", invocationId: "", device: { platform: "", widthPixels: 0, heightPixels: 0, driverType: "" }, memory: createMemory(), logger: noopLogger };
  const tools = client?.tools ?? base.tools ?? toolsProxy(async (name) => {
    throw new ToolCallError(name, `ctx.tools.${name}: no client to call tools with (pass one as the third argument)`);
  });
  return Object.assign(Object.create(Object.getPrototypeOf(base)), base, { tools });
}

/**
 * Serve the tools declared with `tool(name, spec, handler)` as an MCP server over stdio. A
 * handler gets `(args, ctx, client)`: `ctx` from the call's `_meta.trailblaze` (undefined when the
 * caller sent none) and `client.tools.<name>(args)` to call the host's tools.
 */
export async function run(options = {}) {
  protectStdout();
  const tools = [];
  for (const entry of pending.splice(0)) tools.push({ ...entry, inputSchema: await jsonSchemaOf(entry.name, entry.spec.inputSchema) });
  serveStdio({
    name: options.name ?? "trailblaze-scripting",
    version: options.version ?? "1.0.0",
    listTools: () =>
      tools.map((t) => ({
        name: t.name,
        description: t.spec.description ?? "",
        inputSchema: t.inputSchema,
        ...(t.spec._meta ? { _meta: t.spec._meta } : {}),
      })),
    async callTool(params, session) {
      const entry = tools.find((t) => t.name === params.name);
      if (!entry) return { isError: true, content: [{ type: "text", text: `unknown tool: ${params.name}` }] };
      const envelope = params._meta?.trailblaze ?? {};
      const ctx = fromMeta(params._meta, sessionLogger(session, entry.name));
      const client = { tools: callbackTools(session, envelope, ctx?.memory) };
      const args = { ...(params.arguments ?? {}) };
      delete args._trailblazeContext;
      try {
        return toCallResult(await entry.handler(args, ctx, client), ctx?.memory, { raw: true });
      } catch (error) {
        return toErrorResult(error);
      }
    },
  });
}

async function jsonSchemaOf(name, schema) {
  if (schema === undefined || schema === null) return { type: "object" };
  const isZod = (value) => value && typeof value === "object" && typeof value.safeParse === "function";
  const shape = !isZod(schema) && Object.values(schema).some(isZod);
  if (!isZod(schema) && !shape) return schema;
  const zod = loadZod();
  if (!zod) throw new Error(`tool '${name}': its inputSchema is a zod schema, and zod is not installed where the server runs`);
  return zod.toJSONSchema(shape ? zod.object(schema) : schema);
}

function loadZod() {
  try {
    const found = createRequire(`${process.cwd()}/`)("zod");
    return found.z ?? found;
  } catch {
    return undefined;
  }
}

/**
 * zod, when the project has it installed (upstream's package re-exports it for `inputSchema`).
 * Without it, using `z` says what to install.
 */
export const z = loadZod() ??
  new Proxy({}, {
    get(_target, prop) {
      if (prop === "then" || typeof prop === "symbol") return undefined;
      throw new Error(`z.${String(prop)}: zod is not installed; run \`npm install zod\` beside your tools`);
    },
  });

export const trailblaze = Object.freeze({ tool, run, fromMeta, client, result });
export default trailblaze;
