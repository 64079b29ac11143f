#!/bin/bash
# soak_short.sh: bench/soak.sh for 2 minutes (the first the baseline) on the servers of
# scripts/test.sh (SBT_*): oltp_read_write with --clients=16 on PostgreSQL
# and MariaDB while backends are killed and PostgreSQL restarts; fails when
# events were lost, open fds grew or the RSS grew more than 32 MB after the
# first minute (bench/soak.sh's table says which).
set -u
: "${SBT_BUILD:?set SBT_BUILD}" "${SBT_PGPORT:?set SBT_PGPORT (scripts/test.sh exports it)}"
here=$(cd "$(dirname "$0")" && pwd)
SOAK_CLIENTS=16 SOAK_MAX_RSS_MB=32 timeout -k 10 300 bash "$here/../../bench/soak.sh" 2
