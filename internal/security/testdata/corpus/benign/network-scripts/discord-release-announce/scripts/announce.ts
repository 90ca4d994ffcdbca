import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: { tag: { type: "string" }, url: { type: "string" }, notes: { type: "string" } },
});
const webhook = process.env.DISCORD_WEBHOOK_URL;
if (!webhook) throw new Error("DISCORD_WEBHOOK_URL is not set");
if (!values.tag || !values.url) throw new Error("--tag and --url are required");

const LIMIT = 4096;
let notes = values.notes ? await readFile(values.notes, "utf8") : "";
if (notes.length > LIMIT) {
  const more = `\n\n… [full notes](${values.url})`;
  notes = notes.slice(0, LIMIT - more.length) + more;
}

const res = await fetch(`${webhook}?wait=true`, {
  method: "POST",
  headers: { "Content-Type": "application/json" },
  body: JSON.stringify({
    username: "Release Bot",
    allowed_mentions: { parse: [] },
    embeds: [{ title: `Released ${values.tag}`, url: values.url, description: notes, color: 0x2ecc71 }],
  }),
});
if (!res.ok) {
  throw new Error(`Discord returned ${res.status}: ${await res.text()}`);
}
console.log(`announced ${values.tag}`);
