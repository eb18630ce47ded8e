// The host of a trailmap's TypeScript tools: an MCP server over stdio that imports each tool
// file on its first call and runs its handler with a live context. `ctx.tools.<name>(...)`
// becomes a `trailblaze/callTool` request back to pytest-trailblaze, on the same pipe.
//
// Started by pytest-trailblaze with TRAILBLAZE_TS_TOOLS, a JSON map
// `{ "<tool>": { "file": "/abs/tools/x.ts", "export": "<name>" } }`; on Bun with
// bun-preload.mjs, on Node through tsx with tsx-tsconfig.json: both resolve
// `@trailblaze/scripting` to the scripting/ folder beside this file.

import { pathToFileURL } from "node:url";
import { createMemory, createTarget, noopLogger } from "./scripting/context.mjs";
import { TOOL_MARK } from "./scripting/index.mjs";
import {
  callbackTools,
  protectStdout,
  serveStdio,
  sessionLogger,
  toCallResult,
  toErrorResult,
} from "./scripting/stdio.mjs";

protectStdout();
const manifest = JSON.parse(process.env.TRAILBLAZE_TS_TOOLS ?? "{}");
const modules = new Map();

function load(file) {
  if (!modules.has(file)) modules.set(file, import(pathToFileURL(file).href));
  return modules.get(file);
}

function contextOf(envelope, session, tool) {
  const memory = createMemory(envelope.memory, envelope.secretKeys);
  const device = envelope.device ?? {};
  return {
    baseUrl: envelope.baseUrl,
    sessionId: String(envelope.sessionId ?? ""),
    invocationId: String(envelope.invocationId ?? ""),
    device: {
      platform: String(device.platform ?? ""),
      widthPixels: Number(device.widthPixels ?? 0),
      heightPixels: Number(device.heightPixels ?? 0),
      driverType: String(device.driverType ?? ""),
    },
    target: createTarget(envelope.target),
    memory,
    logger: session ? sessionLogger(session, tool) : noopLogger,
  };
}

async function callTool(params, session) {
  const entry = manifest[params.name];
  if (!entry) return { isError: true, content: [{ type: "text", text: `unknown tool: ${params.name}` }] };
  const envelope = params._meta?.trailblaze ?? {};
  const ctx = contextOf(envelope, session, params.name);
  const tools = callbackTools(session, envelope, ctx.memory);
  try {
    const module = await load(entry.file);
    const found = module[entry.export];
    const typed = found?.[TOOL_MARK];
    let value;
    if (typed) {
      value = await typed.handler(params.arguments ?? {}, { ...ctx, tools });
    } else if (typeof found === "function") {
      value = await found(params.arguments ?? {}, ctx, { tools });
    } else {
      throw new Error(`${entry.file} must export a function named '${entry.export}' (found: ${typeof found})`);
    }
    return toCallResult(value, ctx.memory, { raw: !typed });
  } catch (error) {
    return toErrorResult(error);
  }
}

serveStdio({
  name: "trailblaze-ts-host",
  version: "1",
  listTools: () => Object.keys(manifest).map((name) => ({ name, inputSchema: { type: "object" } })),
  callTool,
});

// Load (and transpile) the tool files now, while the trail gets ready, not at the first call; a
// file that fails to load fails the calls of its tools, with its error.
setTimeout(() => {
  for (const { file } of Object.values(manifest)) load(file).catch(() => {});
}, 0);
