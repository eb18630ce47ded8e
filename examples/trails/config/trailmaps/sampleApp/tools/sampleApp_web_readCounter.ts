import { trailblaze, type EmptyInput } from "@trailblaze/scripting";

/** What `sampleApp_web_readCounter` returns: a structured result, not just text. */
export interface CounterReading {
  /** The number the counter shows. */
  value: number;
  /** The text exactly as shown. */
  shown: string;
}

/**
 * Read the counter of the sample app's Counter section, as a number.
 */
export const sampleApp_web_readCounter = trailblaze.tool<EmptyInput, CounterReading>(
  { supportedPlatforms: ["web"], requiresContext: true, surfaceToLlm: false },
  async (_input, ctx) => {
    const shown = await ctx.tools.web_evaluate("document.querySelector('#counter-value').textContent");
    const value = Number(shown);
    if (!Number.isFinite(value)) throw new Error(`the counter shows '${shown}', not a number`);
    return { value, shown };
  },
);
