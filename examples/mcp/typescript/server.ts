// An MCP tool server in TypeScript (@modelcontextprotocol/sdk) for the sample app's trails.
// Runs on bun when it is installed, otherwise on node through tsx.
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { z } from "zod";

// Declared on every tool so the schema keeps it: trails send it with each call.
const trailblazeContext = z
  .object({
    memory: z.record(z.string(), z.string()).optional(),
    device: z
      .object({ platform: z.string(), widthPixels: z.number(), heightPixels: z.number(), driverType: z.string() })
      .partial()
      .optional(),
  })
  .passthrough()
  .optional();

const server = new McpServer({ name: "sample-app-typescript", version: "1.0.0" });

const text = (value: string) => ({ content: [{ type: "text" as const, text: value }] });

server.registerTool(
  "sampleApp_generateTestUser",
  {
    description: "Make up a contact-form user: returns JSON with name, email and category.",
    inputSchema: { seed: z.number().int().optional(), _trailblazeContext: trailblazeContext },
  },
  async ({ seed }) => {
    const n = seed ?? 7;
    return text(JSON.stringify({ name: `Test User ${n}`, email: `user${n}@example.test`, category: "support" }));
  },
);

server.registerTool(
  "sampleApp_viewportReport",
  {
    description: "Report the device and a remembered value from the _trailblazeContext of the call.",
    inputSchema: { key: z.string(), _trailblazeContext: trailblazeContext },
  },
  async ({ key, _trailblazeContext: context }) => {
    if (!context?.device) {
      return { ...text("the call carried no _trailblazeContext"), isError: true };
    }
    const { platform, widthPixels, heightPixels } = context.device;
    return text(`${platform} ${widthPixels}x${heightPixels} ${key}=${context.memory?.[key] ?? "<missing>"}`);
  },
);

server.registerTool(
  "sampleApp_ios_resetKeychain",
  {
    description: "Only registered for ios sessions: its _meta limits it to that platform.",
    inputSchema: { _trailblazeContext: trailblazeContext },
    _meta: { "trailblaze/supportedPlatforms": ["ios"] },
  },
  async () => text("keychain reset"),
);

server.registerTool(
  "sampleApp_countTo",
  {
    description: "Check a count is within limits; pushed into the sampleApp_support toolset.",
    inputSchema: { value: z.number().int(), _trailblazeContext: trailblazeContext },
    _meta: { "trailblaze/toolset": "sampleApp_support" },
  },
  async ({ value }) => (value > 100 ? { ...text(`${value} is over the limit of 100`), isError: true } : text(`ok ${value}`)),
);

await server.connect(new StdioServerTransport());
