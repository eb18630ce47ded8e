// A Model Context Protocol server over stdio, just what tool servers need: `initialize`,
// `tools/list`, `tools/call`, `ping`, and requests back to the client (the `trailblaze/callTool`
// re-entry into the host's registry). One JSON-RPC message per line on stdout; everything a tool
// prints goes to stderr so it can never be mistaken for a message.

import { ToolCallError, drainMemory, reloadMemory, toolsProxy } from "./context.mjs";

export const CALL_TOOL = "trailblaze/callTool";
const DEFAULT_PROTOCOL = "2025-06-18";

/** Keep stdout for the protocol: console output of tools goes to stderr. */
export function protectStdout() {
  const toStderr = (...parts) => {
    process.stderr.write(parts.map((p) => (typeof p === "string" ? p : inspect(p))).join(" ") + "\n");
  };
  for (const level of ["log", "info", "debug", "trace"]) console[level] = toStderr;
}

function inspect(value) {
  if (value instanceof Error) return value.stack ?? String(value);
  try {
    return JSON.stringify(value);
  } catch {
    return String(value);
  }
}

/**
 * Serve `listTools()` and `callTool(params, session)` on stdin/stdout until stdin closes.
 * `session.request(method, params)` sends a request to the client and resolves with its result.
 */
export function serveStdio({ name, version, listTools, callTool }) {
  const pending = new Map();
  let nextId = 1;
  let buffer = "";
  const send = (message) => process.stdout.write(JSON.stringify({ jsonrpc: "2.0", ...message }) + "\n");
  const session = {
    request(method, params) {
      const id = `srv-${nextId++}`;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        send({ id, method, params });
      });
    },
    notify(method, params) {
      send({ method, params });
    },
  };
  const answer = async (message) => {
    const { id, method, params } = message;
    try {
      if (method === "initialize") {
        const result = {
          protocolVersion: typeof params?.protocolVersion === "string" ? params.protocolVersion : DEFAULT_PROTOCOL,
          capabilities: { tools: {}, logging: {} },
          serverInfo: { name, version },
        };
        send({ id, result });
      } else if (method === "tools/list") {
        send({ id, result: { tools: await listTools() } });
      } else if (method === "tools/call") {
        send({ id, result: await callTool(params ?? {}, session) });
      } else if (method === "ping" || method === "logging/setLevel") {
        send({ id, result: {} });
      } else {
        send({ id, error: { code: -32601, message: `method not found: ${method}` } });
      }
    } catch (error) {
      send({ id, error: { code: -32603, message: error instanceof Error ? error.message : String(error) } });
    }
  };
  const receive = (message) => {
    if (message.method !== undefined && message.id !== undefined) {
      void answer(message);
    } else if (message.method === undefined && message.id !== undefined) {
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      if (message.error) waiting.reject(Object.assign(new Error(message.error.message), { code: message.error.code }));
      else waiting.resolve(message.result ?? {});
    }
  };
  process.stdin.setEncoding("utf8");
  process.stdin.on("data", (chunk) => {
    buffer += chunk;
    let end;
    while ((end = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, end).trim();
      buffer = buffer.slice(end + 1);
      if (!line) continue;
      let message;
      try {
        message = JSON.parse(line);
      } catch {
        process.stderr.write(`[trailblaze] ignored a line that is not JSON-RPC: ${line.slice(0, 200)}\n`);
        continue;
      }
      receive(message);
    }
  });
  process.stdin.on("end", () => process.exit(0));
  return session;
}

/**
 * The `tools` namespace of one call: each `tools.<name>(args)` is a `trailblaze/callTool`
 * request carrying the call's invocation id and the session's callback secret, plus the memory
 * written so far; the reply brings the host's memory back.
 */
export function callbackTools(session, envelope, memory) {
  return toolsProxy(async (tool, args) => {
    const writes = drainMemory(memory);
    let reply;
    try {
      reply = await session.request(CALL_TOOL, {
        invocationId: envelope.invocationId,
        callbackToken: envelope.callbackToken,
        name: tool,
        arguments: args,
        ...writes,
      });
    } catch (error) {
      throw new ToolCallError(tool, error instanceof Error ? error.message : String(error), true);
    }
    if (reply.memory) reloadMemory(memory, reply.memory, reply.secretKeys);
    if (!reply.success) throw new ToolCallError(tool, String(reply.errorMessage ?? `${tool} failed`));
    return reply.structuredContent ?? reply.textContent ?? "";
  });
}

/** A server-backed logger: MCP `notifications/message`, which the host keeps in the tool's log. */
export function sessionLogger(session, tool) {
  const emit = (level) => (...parts) =>
    session.notify("notifications/message", { level, logger: tool, data: parts.map((p) => (typeof p === "string" ? p : inspect(p))).join(" ") });
  return { debug: emit("debug"), info: emit("info"), warn: emit("warning"), error: emit("error") };
}

/** A handler's return value as an MCP `tools/call` result, with the memory it wrote. */
export function toCallResult(value, memory, { raw = false } = {}) {
  const meta = { trailblaze: drainMemory(memory) };
  if (raw && value && typeof value === "object" && Array.isArray(value.content)) {
    return { ...value, _meta: { ...(value._meta ?? {}), ...meta } };
  }
  if (value === undefined || value === null) return { content: [{ type: "text", text: "" }], _meta: meta };
  if (typeof value === "string") return { content: [{ type: "text", text: value }], _meta: meta };
  let text;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    throw new TypeError(`the tool returned a value that is not JSON (${error instanceof Error ? error.message : error})`);
  }
  if (text === undefined) throw new TypeError(`the tool returned a ${typeof value}, which is not JSON`);
  return { content: [{ type: "text", text }], structuredContent: value, _meta: meta };
}

/** A thrown value as an MCP error result: the message, and the name and stack for the host. */
export function toErrorResult(error) {
  const isError = error instanceof Error;
  const name = isError && typeof error.name === "string" ? error.name : "Error";
  const message = isError ? String(error.message) : String(error);
  const stack = isError && typeof error.stack === "string" ? error.stack.slice(0, 16384) : "";
  return {
    isError: true,
    content: [{ type: "text", text: message }],
    _meta: { trailblaze: { error: { name, message, stack, tool: isError ? error.tool : undefined } } },
  };
}
