// Runs under `trailblaze check` (with bun): no browser, the mock client answers instead.
import { describe, expect, test } from "bun:test";
import { createMockClient, createMockContext } from "@trailblaze/scripting/testing";
import { sampleApp_web_countTo } from "./sampleApp_web_countTo";

describe("sampleApp_web_countTo", () => {
  test("stops at once when the counter already shows the target, and remembers it", async () => {
    const client = createMockClient();
    client.stub("sampleApp_web_readCounter", { textContent: "", structuredContent: { value: 2, shown: "2" } });
    const ctx = createMockContext({ platform: "web" });

    const said = await sampleApp_web_countTo({ target: 2, rememberAs: "n" }, ctx, client);

    expect(client.calls.map((c) => c.tool)).toEqual(["sampleApp_web_openSectionIfNeeded", "sampleApp_web_readCounter"]);
    expect(ctx.memory.get("n")).toBe("2");
    expect(said).toContain("shows 2");
  });

  test("gives up with a clear error when the counter never moves", async () => {
    const client = createMockClient();
    client.stub("sampleApp_web_readCounter", { textContent: "", structuredContent: { value: 0, shown: "0" } });
    const ctx = createMockContext({ platform: "web" });

    await expect(sampleApp_web_countTo({ target: 3 }, ctx, client)).rejects.toThrow("did not reach 3 in 50 clicks");
    expect(client.calls.filter((c) => c.tool === "web_click")).toHaveLength(50);
  });
});
