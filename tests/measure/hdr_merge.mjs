// hdr_merge.mjs: adds up every interval of an HdrHistogram interval log with
// the reference implementation (hdr-histogram-js) and prints one line:
//   intervals total_count p50 p99 p99.99 max covered_s
// (values in the histogram's unit, ns for sbench).  Used by
// tests/measure/windows_add_up.sh to check the log against the final report.
//
// usage: node hdr_merge.mjs LOGFILE HDR_JS_DIR
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

const [logFile, jsDirArg] = process.argv.slice(2);
if (!logFile || !jsDirArg) {
  console.error("usage: node hdr_merge.mjs LOGFILE HDR_JS_DIR");
  process.exit(2);
}
const require = createRequire(path.join(path.resolve(jsDirArg), "package.json"));
const hdr = require("hdr-histogram-js");
const reader = new hdr.HistogramLogReader(readFileSync(logFile, "utf8"), 64);
let total = null, n = 0, covered = 0;
for (let h; (h = reader.nextIntervalHistogram()) !== null; n++) {
  covered += (h.endTimeStampMsec - h.startTimeStampMsec) / 1000;
  if (total === null)
    total = hdr.build({ bitBucketSize: 64, lowestDiscernibleValue: h.lowestDiscernibleValue,
                        highestTrackableValue: h.highestTrackableValue,
                        numberOfSignificantValueDigits: h.numberOfSignificantValueDigits });
  total.add(h);
}
if (total === null) {
  console.error(`${logFile}: no interval decoded`);
  process.exit(1);
}
console.log([n, total.totalCount, total.getValueAtPercentile(50), total.getValueAtPercentile(99),
  total.getValueAtPercentile(99.99), total.maxValue, covered.toFixed(3)].join(" "));
