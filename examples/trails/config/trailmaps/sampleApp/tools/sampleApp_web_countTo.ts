import { trailblaze } from "@trailblaze/scripting";

export interface CountToArgs {
  /** The value the counter should show. */
  target: number;
  /** Memory key that receives the final value. */
  rememberAs?: string;
}

/**
 * Click the counter's + or - button until it shows the target value, reading it between clicks
 * with the sibling tool `sampleApp_web_readCounter`; remembers the result in memory.
 */
export const sampleApp_web_countTo = trailblaze.tool<CountToArgs>(
  { supportedPlatforms: ["web"], requiresContext: true },
  async ({ target, rememberAs = "counter" }, ctx) => {
    await ctx.tools.sampleApp_web_openSectionIfNeeded({ section: "counter", heading: "Counter" });
    let reading = await ctx.tools.sampleApp_web_readCounter({});
    for (let clicks = 0; reading.value !== target; clicks += 1) {
      if (clicks >= 50) throw new Error(`the counter did not reach ${target} in 50 clicks`);
      const button = reading.value < target ? "increment-btn" : "decrement-btn";
      await ctx.tools.web_click({ ref: `css=#${button}` });
      reading = await ctx.tools.sampleApp_web_readCounter({});
    }
    ctx.memory.set(rememberAs, String(reading.value));
    return `The counter shows ${reading.value}; remembered as ${rememberAs}.`;
  },
);
