// `@trailblaze/scripting/testing`: a mock client that records the calls a tool makes, and a mock
// context, so a tool's `*.test.ts` runs under `bun test` with no host, device or browser.

import { createMemory, createTarget, noopLogger, toolsProxy } from "./context.mjs";

/** A client whose `tools.<name>(args)` calls are recorded in `calls`; `stub` cans a reply. */
export function createMockClient() {
  const calls = [];
  const stubs = new Map();
  const tools = toolsProxy(async (tool, args) => {
    calls.push({ tool, args });
    const stub = stubs.get(tool);
    if (stub && typeof stub.errorMessage === "string" && stub.errorMessage.length > 0) {
      throw new Error(`ctx.tools.${tool}: tool failed: ${stub.errorMessage}`);
    }
    if (stub && stub.structuredContent !== undefined && stub.structuredContent !== null) return stub.structuredContent;
    return stub?.textContent ?? "";
  });
  return {
    tools,
    calls,
    stub(tool, response) {
      if (typeof tool !== "string" || tool.trim() === "") throw new Error("createMockClient: stub() needs a tool name");
      stubs.set(tool, response ?? { textContent: "" });
    },
    reset() {
      calls.length = 0;
      stubs.clear();
    },
  };
}

/** A context with test defaults: `platform` is required, the rest is optional. */
export function createMockContext(options = {}) {
  const device = options.device ?? {};
  return {
    baseUrl: options.baseUrl,
    sessionId: options.sessionId ?? "mock-session",
    invocationId: options.invocationId ?? "mock-invocation",
    device: {
      platform: options.platform,
      widthPixels: device.widthPixels ?? 1080,
      heightPixels: device.heightPixels ?? 2400,
      driverType: device.driverType ?? "mock-driver",
    },
    target: typeof options.target?.resolveAppId === "function" ? options.target : createTarget(options.target),
    memory: createMemory(stringValues(options.memory)),
    logger: options.logger ?? noopLogger,
  };
}

function stringValues(memory) {
  const out = {};
  for (const [key, value] of Object.entries(memory ?? {})) {
    if (typeof value === "string") out[key] = value;
  }
  return out;
}
