// compare_merge.mjs: the latency of one point of a comparison computed by
// the reference implementation (hdr-histogram-js): every interval of every
// given HdrHistogram log added up, then for percentiles 50 95 99 99.9 the
// value of rank ceil(p/100 * n) (sbench's rule, not hdr-histogram-js's
// rounded rank), as the bucket's highest equivalent value.  Prints one line:
//   total_count v50 v95 v99 v99.9      (ns, before clamping to [min, max])
// Used by tests/integration/compare.sh against sbench compare's summary.
//
// usage: node compare_merge.mjs HDR_JS_DIR LOG...
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const [jsDir, ...logs] = process.argv.slice(2);
if (!jsDir || logs.length === 0) {
  console.error("usage: node compare_merge.mjs HDR_JS_DIR LOG...");
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(jsDir), "package.json"));
const hdr = require("hdr-histogram-js");
let total = null;
for (const log of logs) {
  const reader = new hdr.HistogramLogReader(readFileSync(log, "utf8"), 64);
  for (let h; (h = reader.nextIntervalHistogram()) !== null;) {
    if (total === null)
      total = hdr.build({ bitBucketSize: 64, lowestDiscernibleValue: h.lowestDiscernibleValue,
                          highestTrackableValue: h.highestTrackableValue,
                          numberOfSignificantValueDigits: h.numberOfSignificantValueDigits });
    total.add(h);
  }
}
if (total === null) {
  console.error("no interval decoded");
  process.exit(1);
}
const n = total.totalCount, out = [n];
for (const p of [50, 95, 99, 99.9]) {
  let x = p / 100 * n;
  x -= x * 1e-12;
  const rank = Math.max(1, Math.ceil(x));
  let seen = 0, v = 0;
  for (let i = 0; i < total.countsArrayLength; i++) {
    const c = total.getCountAtIndex(i);
    seen += c;
    if (c > 0 && seen >= rank) {
      v = total.highestEquivalentValue(total.valueFromIndex(i));
      break;
    }
  }
  out.push(v);
}
console.log(out.join(" "));
