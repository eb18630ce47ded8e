// A TypeScript MCP fixture server (@modelcontextprotocol/sdk McpServer + StdioServerTransport + zod)
// for the MCP tests. It runs on node through tsx, or on bun; tsfx_env says which.
// Any command-line argument (--sentinel=...) is ignored: it only makes the process easy to find.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

// Declared on every tool as an optional passthrough field, or zod strips it from the arguments.
const trailblazeContext = z
  .object({
    memory: z.record(z.string(), z.string()).optional(),
    device: z
      .object({ platform: z.string(), widthPixels: z.number(), heightPixels: z.number(), driverType: z.string() })
      .partial()
      .passthrough()
      .optional(),
  })
  .passthrough()
  .optional();

const server = new McpServer({ name: "ts-fixture", version: "1.0.0" });
const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

server.registerTool(
  "tsfx_echo",
  { description: "Return the message.", inputSchema: { message: z.string(), _trailblazeContext: trailblazeContext } },
  async ({ message }) => text(message),
);

server.registerTool(
  "tsfx_context",
  { description: "The _trailblazeContext of this call.", inputSchema: { _trailblazeContext: trailblazeContext } },
  async ({ _trailblazeContext: context }) => text(JSON.stringify(context ?? null)),
);

server.registerTool(
  "tsfx_env",
  { description: "The TRAILBLAZE_* environment, the runtime, folder and command line.", inputSchema: { _trailblazeContext: trailblazeContext } },
  async () => {
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => k.startsWith("TRAILBLAZE_") || k.startsWith("MCPFX_")),
    );
    const runtime = (process.versions as Record<string, string | undefined>).bun ? "bun" : "node";
    return text(JSON.stringify({ env, runtime, cwd: process.cwd(), argv: process.argv, pid: process.pid }));
  },
);

server.registerTool(
  "tsfx_fail",
  { description: "Fail with isError and the message.", inputSchema: { message: z.string(), _trailblazeContext: trailblazeContext } },
  async ({ message }) => ({ ...text(message), isError: true }),
);

server.registerTool(
  "tsfx_throw",
  { description: "Throw an Error with the message.", inputSchema: { message: z.string(), _trailblazeContext: trailblazeContext } },
  async ({ message }) => {
    throw new Error(message);
  },
);

server.registerTool(
  "tsfx_structured",
  {
    description: "Structured content: a count and its double.",
    inputSchema: { count: z.number().int(), _trailblazeContext: trailblazeContext },
  },
  async ({ count }) => ({ ...text(`count ${count}`), structuredContent: { count, double: count * 2 } }),
);

server.registerTool(
  "tsfx_webOnly",
  {
    description: "Registered for web sessions only.",
    inputSchema: { _trailblazeContext: trailblazeContext },
    _meta: { "trailblaze/supportedPlatforms": ["web"] },
  },
  async () => text("web only ran"),
);

server.registerTool(
  "tsfx_iosOnly",
  {
    description: "Registered for ios sessions only.",
    inputSchema: { _trailblazeContext: trailblazeContext },
    _meta: { "trailblaze/supportedPlatforms": ["ios"] },
  },
  async () => text("ios only ran"),
);

server.registerTool(
  "tsfx_supportTool",
  {
    description: "Pushed into the tsfx_support toolset.",
    inputSchema: { _trailblazeContext: trailblazeContext },
    _meta: { "trailblaze/toolset": "tsfx_support", "trailblaze/requiresContext": true },
  },
  async () => text("support ran"),
);

// Upstream's scripting SDK returns ctx.memory.set/delete this way: _meta.trailblaze.memoryDelta / memoryDeletions.
server.registerTool(
  "tsfx_remember",
  {
    description: "Write trail memory through the result's _meta.trailblaze envelope.",
    inputSchema: {
      values: z.record(z.string(), z.string()),
      deletions: z.array(z.string()).optional(),
      _trailblazeContext: trailblazeContext,
    },
  },
  async ({ values, deletions }) => ({
    ...text(`remembered ${Object.keys(values).join(",")}`),
    _meta: { trailblaze: { memoryDelta: values, ...(deletions ? { memoryDeletions: deletions } : {}) } },
  }),
);

await server.connect(new StdioServerTransport());
