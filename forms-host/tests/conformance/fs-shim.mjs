// node:fs as the conformance suite imports it on Node.js 20 (see globsync-hooks.mjs).
import fs from "node:fs";
export * from "node:fs";
export default fs;
export function globSync() {
  throw new Error("fs.globSync needs Node.js 22 or later (the conformance suite's report command)");
}
