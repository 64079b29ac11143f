// hdr_decode.mjs: decodes an HdrHistogram interval log with the reference
// JavaScript implementation (hdr-histogram-js's HistogramLogReader) and
// prints one line per interval:
//   count p50 p99 max interval_max_column start_s length_s tag
// (tag: the interval's "Tag=" mark, a --rate-profile's phase; "-" if none)
// (count and values in the histogram's unit, ns for sbench; the
// Interval_Max column as written, ms).  Used by tests/integration/hdr_log.sh.
//
// usage: node hdr_decode.mjs LOGFILE [HDR_JS_DIR]
//   HDR_JS_DIR (or env SBT_HDR_JS_DIR, default tests/hdr-js next to this
//   file's parent) holds package.json and node_modules/hdr-histogram-js.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const [logFile, dirArg] = process.argv.slice(2);
if (!logFile) {
  console.error("usage: node hdr_decode.mjs LOGFILE [HDR_JS_DIR]");
  process.exit(2);
}
const jsDir = path.resolve(dirArg || process.env.SBT_HDR_JS_DIR || path.join(here, "..", "hdr-js"));
const require = createRequire(path.join(jsDir, "package.json"));
const hdr = require("hdr-histogram-js");

const text = readFileSync(logFile, "utf8");
// the raw Interval_Max column, read separately (the reader does not expose it)
const maxColumn = text.split(/\r?\n/)
  .filter((l) => l && !l.startsWith("#") && !l.startsWith('"StartTimestamp"'))
  .map((l) => l.replace(/^Tag=[^,]*,/, "").split(",")[2]);

// 64-bit (float64) counts: sbench intervals can exceed 2^31 per bucket
const reader = new hdr.HistogramLogReader(text, 64);
let n = 0;
for (let h; (h = reader.nextIntervalHistogram()) !== null; n++) {
  const start = h.startTimeStampMsec / 1000;
  const length = (h.endTimeStampMsec - h.startTimeStampMsec) / 1000;
  console.log([h.totalCount, h.getValueAtPercentile(50), h.getValueAtPercentile(99), h.maxValue,
    maxColumn[n], start.toFixed(3), length.toFixed(3),
    h.tag && h.tag !== "NO TAG" ? h.tag : "-"].join(" "));
}
if (n === 0) {
  console.error(`${logFile}: no interval decoded`);
  process.exit(1);
}
