// Node.js 20 has no `fs.globSync` (added in 22), which @modelcontextprotocol/conformance
// imports by name at load time for its `report` command only; without it no command starts.
// These module hooks resolve the suite's own `import … from "fs"` to a shim: every export of
// node:fs, plus a `globSync` that throws when called. Nothing else is redirected, and Node.js
// 22 or later (which has fs.globSync) is left alone by globsync.mjs.
const SHIM = new URL("./fs-shim.mjs", import.meta.url).href;

export async function resolve(specifier, context, next) {
  const parent = context.parentURL || "";
  if ((specifier === "fs" || specifier === "node:fs") &&
      parent.includes("/node_modules/@modelcontextprotocol/conformance/")) {
    return { url: SHIM, shortCircuit: true };
  }
  return next(specifier, context);
}
