// Helpers shared by the sample app's TypeScript tools. No `trailblaze.tool` export: not a tool.
import type { ToolContext } from "@trailblaze/scripting";

/** The sections of the sample app's single page, as its navigation names them. */
export const SECTIONS = ["home", "form", "counter", "about", "scroll"] as const;
export type Section = (typeof SECTIONS)[number];

/** The page's address: the target's base URL (memory `baseUrl`) and `index.html`. */
export function pageUrl(ctx: ToolContext, hash = ""): string {
  const base = ctx.baseUrl ?? ctx.memory.get("baseUrl") ?? "";
  return `${base}/index.html${hash ? "#" + hash : ""}`;
}
