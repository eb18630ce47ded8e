// Bun resolves `@trailblaze/scripting` (and `/testing`) to the copy shipped beside this file,
// for tool files and their tests that have no node_modules of their own.
const here = new URL("./scripting/", import.meta.url).pathname;
Bun.plugin({
  name: "trailblaze-scripting",
  setup(build) {
    for (const [name, file] of [
      ["@trailblaze/scripting", "index.mjs"],
      ["@trailblaze/scripting/testing", "testing.mjs"],
    ]) {
      build.module(name, () => ({ contents: `export * from ${JSON.stringify(here + file)};`, loader: "js" }));
    }
  },
});
