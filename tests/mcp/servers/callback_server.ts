// A TypeScript MCP server on the official SDK whose tool calls the trail's tools back through
// our @trailblaze/scripting (resolved by the host: no node_modules of its own needed for it).
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { trailblaze } from "@trailblaze/scripting";
import { z } from "zod";

const server = new McpServer({ name: "ts-callback-fixture", version: "1.0.0" });

server.registerTool(
  "cbts_call",
  {
    description: "Call a trail tool; report its result or its failure; remember the call.",
    inputSchema: { name: z.string(), arguments: z.record(z.string(), z.unknown()) },
  },
  async ({ name, arguments: args }, extra) => {
    const { tools, ctx } = trailblaze.client(extra);
    ctx?.memory.set("cbtsCalled", name);
    try {
      const said = await (tools as any)[name](args);
      return trailblaze.result(JSON.stringify({ ok: said }), ctx);
    } catch (error) {
      return trailblaze.result(JSON.stringify({ failed: (error as Error).message }), ctx);
    }
  },
);

await server.connect(new StdioServerTransport());
