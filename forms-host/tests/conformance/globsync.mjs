// `node --import ./globsync.mjs …`: on Node.js 20, registers globsync-hooks.mjs (see there).
import fs from "node:fs";
import { register } from "node:module";
if (typeof fs.globSync !== "function") {
  register("./globsync-hooks.mjs", import.meta.url);
}
