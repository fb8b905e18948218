// SPDX-License-Identifier: GPL-2.0-only
// Checks Kubernetes manifests against the API's JSON schemas (the
// kubernetes-models package): node validate.mjs FILE...
// Every document must be of a known apiVersion and kind, and valid: types,
// enums and required fields. (Unknown fields pass: the schemas allow them,
// as the API server's non-strict decoding does.) Exits 1 if any is bad.
import { readFileSync } from "node:fs";
import yaml from "js-yaml";

let failed = false;
for (const file of process.argv.slice(2)) {
  const docs = yaml.loadAll(readFileSync(file, "utf8")).filter((d) => d);
  for (const [i, doc] of docs.entries()) {
    const where = `${file}: document ${i + 1} (${doc.kind} ${doc.metadata?.name})`;
    const [group, version] = doc.apiVersion.includes("/")
      ? doc.apiVersion.split("/")
      : [null, doc.apiVersion];
    const mod = group ? `kubernetes-models/${group}/${version}` : `kubernetes-models/${version}`;
    let Model;
    try {
      Model = (await import(mod))[doc.kind];
    } catch (e) {
      Model = undefined;
    }
    if (!Model) {
      console.error(`${where}: unknown apiVersion/kind ${doc.apiVersion} ${doc.kind}`);
      failed = true;
      continue;
    }
    try {
      new Model(doc).validate();
      console.log(`${where}: valid`);
    } catch (e) {
      console.error(`${where}: ${e.message}`);
      failed = true;
    }
  }
}
process.exit(failed ? 1 : 0);
