// hdr_sum.mjs: adds up histograms with the reference implementation
// (hdr-histogram-js) and prints their sum bucket by bucket, so that two
// ways of getting one run's latencies can be compared exactly:
//   node hdr_sum.mjs HDR_JS_DIR LOG...          every interval of every log
//   node hdr_sum.mjs HDR_JS_DIR --b64 STRING... base64 compressed histograms
// Output: "count N", then one line "INDEX COUNT HIGHEST_EQUIVALENT_VALUE"
// per non-empty bucket (counts-array index, ascending).  Used by
// tests/measure/merge_exact.sh and tests/integration/shards.sh.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const [jsDir, ...args] = process.argv.slice(2);
if (!jsDir || args.length === 0) {
  console.error("usage: node hdr_sum.mjs HDR_JS_DIR LOG... | --b64 STRING");
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(jsDir), "package.json"));
const hdr = require("hdr-histogram-js");
let total = null;
const add = (h) => {
  if (total === null)
    total = hdr.build({ bitBucketSize: 64, lowestDiscernibleValue: h.lowestDiscernibleValue,
                        highestTrackableValue: h.highestTrackableValue,
                        numberOfSignificantValueDigits: h.numberOfSignificantValueDigits });
  total.add(h);
};
if (args[0] === "--b64") {
  for (const b of args.slice(1)) add(hdr.decodeFromCompressedBase64(b, 64));
} else {
  for (const f of args) {
    const reader = new hdr.HistogramLogReader(readFileSync(f, "utf8"), 64);
    let n = 0;
    for (let h; (h = reader.nextIntervalHistogram()) !== null; n++) add(h);
    if (n === 0) {
      console.error(`${f}: no interval decoded`);
      process.exit(1);
    }
  }
}
const out = [`count ${total.totalCount}`];
for (let i = 0; i < total.countsArrayLength; i++) {
  const c = total.getCountAtIndex(i);
  if (c > 0) out.push(`${i} ${c} ${total.highestEquivalentValue(total.valueFromIndex(i))}`);
}
console.log(out.join("\n"));
