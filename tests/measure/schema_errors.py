"""schema_errors.py: JSON report lines against docs/report.schema.json, one
message per violation.  Shared by merge_exact.sh and shards_tpcc.sh."""
import json


def schema_errors(schema_path, lines, what):
    """Messages "WHAT I against the schema: ..." for each line (a dict) of
    lines that docs/report.schema.json rejects, numbered from 1; one
    message when python3-jsonschema is missing (a failure, not a skip)."""
    try:
        import jsonschema
    except ImportError:
        return ["python3-jsonschema missing"]
    val = jsonschema.Draft202012Validator(json.load(open(schema_path)))
    return [f"{what} {i + 1} against the schema: {e.message[:160]}"
            for i, d in enumerate(lines) for e in val.iter_errors(d)]
