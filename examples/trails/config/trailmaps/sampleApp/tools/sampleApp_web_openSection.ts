import { trailblaze } from "@trailblaze/scripting";
import { pageUrl, type Section } from "./sampleApp_shared";

export interface OpenSectionArgs {
  /** The section to show. */
  section: Section;
  /** A heading the section shows once open. */
  heading: string;
}

/**
 * Show a section of the sample app, opening the page only when the section is not already
 * on screen: a probe whose failure is caught, then a recovery.
 */
export const sampleApp_web_openSectionIfNeeded = trailblaze.tool<OpenSectionArgs>(
  { supportedPlatforms: ["web"], requiresContext: true },
  async ({ section, heading }, ctx) => {
    try {
      await ctx.tools.web_waitForUrl({ pattern: `#${section}$`, timeoutMs: 300 });
      return `The ${section} section was already open.`;
    } catch (error) {
      ctx.logger.info(`opening ${section}: ${(error as Error).message.split("\n")[0]}`);
    }
    await ctx.tools.web_navigate({ action: "GOTO", url: pageUrl(ctx, section) });
    await ctx.tools.web_verifyTextVisible({ text: heading });
    return `Opened the ${section} section.`;
  },
);
