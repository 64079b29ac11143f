#!/bin/sh
# shards.sh: one sbench run as 3 shards started by Open MPI's mpirun, the
# shards' reports merged into one, on this machine: the sequence to use
# across machines (mpirun --host a,b,c ...).  prepare runs once, before the
# shards; --start-at starts their workers together; each shard writes its
# JSON report and HdrHistogram log ({shard} is its index); sbench merge
# adds them up exactly and prints the run's report with a table of shards.
#
#   examples/shards.sh [sbench database options]
#
# Without options it runs on the null driver (no server).  For example:
#   examples/shards.sh --db-driver=pgsql --pgsql-host=127.0.0.1 --pgsql-user=sbtest --pgsql-password=...
# Environment: SBENCH [sbench, or ./build/cli/sbench], SHARDS [3],
# RUN ["--threads=2 --time=10 --report-interval=1"], WORKLOAD
# [oltp_read_write], OUT [a temporary directory, removed at the end].
# Slurm instead of mpirun:  srun --ntasks=$SHARDS sbench ... (SLURM_PROCID is the index);
# Kubernetes: examples/k8s/sbench-shards.yaml.
set -eu
sbench=${SBENCH:-sbench}
[ -x ./build/cli/sbench ] && [ -z "${SBENCH:-}" ] && sbench=$(pwd)/build/cli/sbench
shards=${SHARDS:-3}
run=${RUN:---threads=2 --time=10 --report-interval=1}
workload=${WORKLOAD:-oltp_read_write}
[ $# -gt 0 ] || set -- --db-driver=null
out=${OUT:-}
if [ -z "$out" ]; then
    out=$(mktemp -d)
    trap 'rm -rf "$out"' EXIT
fi
mkdir -p "$out/shards"
common="--tables=2 --table-size=10000"
# shellcheck disable=SC2086
"$sbench" "$@" $common "$workload" prepare --force >/dev/null  # once, before the shards
start=$(($(date +%s) + 5))                                    # time for every shard to connect
# shellcheck disable=SC2086
mpirun --allow-run-as-root --oversubscribe --bind-to none -n "$shards" \
    "$sbench" "$@" $common $run --start-at=$start \
    --report-format=json --output="$out/shards/s{shard}.json" --hdr-log="$out/shards/s{shard}.hlog" \
    "$workload" run >"$out/mpirun.log"
"$sbench" merge "$out/shards"
# shellcheck disable=SC2086
"$sbench" "$@" $common "$workload" cleanup >/dev/null
