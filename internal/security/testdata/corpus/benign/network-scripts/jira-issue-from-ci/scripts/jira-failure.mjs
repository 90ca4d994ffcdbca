#!/usr/bin/env node
// Create or update a Jira issue for a failing CI job.
import { parseArgs } from "node:util";

const { values: args } = parseArgs({
  options: {
    job: { type: "string" },
    url: { type: "string" },
    summary: { type: "string" },
  },
});
for (const k of ["job", "url", "summary"]) {
  if (!args[k]) throw new Error(`--${k} is required`);
}

const env = (name) => {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set`);
  return v;
};
const base = env("JIRA_BASE_URL").replace(/\/$/, "");
const auth = "Basic " + Buffer.from(`${env("JIRA_EMAIL")}:${env("JIRA_API_TOKEN")}`).toString("base64");
const project = env("JIRA_PROJECT");
const label = `ci-${args.job}`.replace(/[^a-z0-9-]/gi, "-");

async function jira(method, path, body) {
  const res = await fetch(`${base}/rest/api/3${path}`, {
    method,
    headers: { Authorization: auth, Accept: "application/json", "Content-Type": "application/json" },
    body: body ? JSON.stringify(body) : undefined,
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.status === 204 ? null : res.json();
}

const adf = (text) => ({
  type: "doc",
  version: 1,
  content: [{ type: "paragraph", content: [{ type: "text", text }] }],
});

const jql = `project = ${project} AND labels = "${label}" AND statusCategory != Done ORDER BY created DESC`;
const found = await jira("POST", "/search/jql", { jql, maxResults: 1, fields: ["key"] });

if (found.issues?.length) {
  const key = found.issues[0].key;
  await jira("POST", `/issue/${key}/comment`, { body: adf(`Failed again: ${args.url}`) });
  console.log(`commented on ${key}`);
} else {
  const created = await jira("POST", "/issue", {
    fields: {
      project: { key: project },
      issuetype: { name: "Bug" },
      summary: args.summary,
      labels: [label],
      description: adf(`CI job ${args.job} failed: ${args.url}`),
    },
  });
  console.log(`created ${created.key}`);
}
