#!/bin/bash
# completion.sh: the bash completion of sbench (completion/sbench), driven
# as bash drives it on TAB: bash-completion loaded, the function that
# `complete -p sbench` names called with COMP_LINE, COMP_POINT, COMP_WORDS
# and COMP_CWORD split as readline splits them, COMPREPLY read back.  What
# it offers is compared with what sbench itself lists, read here with a
# separate parser (options from --help, drivers, workloads, commands).
#
# Usage: completion.sh SBENCH_DIR [COMPLETION_FILE]
#   SBENCH_DIR: the directory of the sbench to complete for (put first on
#   PATH); COMPLETION_FILE: source this file; without it, the completion
#   must be found where bash-completion loads it on demand (an installed
#   sbench: the package or `meson install`).
set -u
sbdir=$(cd "$1" 2>/dev/null && pwd) || { echo "FAIL no directory $1"; echo "0 passed, 1 failed"; exit 1; }
file=${2:-}
[ -n "$file" ] && file=$(realpath "$file")
[ -x "$sbdir/sbench" ] || { echo "FAIL no sbench in $sbdir"; echo "0 passed, 1 failed"; exit 1; }
bc=/usr/share/bash-completion/bash_completion
[ -f "$bc" ] || { echo "FAIL bash-completion is not installed ($bc)"; echo "0 passed, 1 failed"; exit 1; }
tmp=$(mktemp -d /tmp/sbench-completion.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
pass=0 fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }

# complete LINE: the words bash would offer at the end of LINE, sorted, one
# a line.  A fresh bash each time, as a new shell would load it.
complete_line() {
    : >"$tmp/compopt"
    # on demand, bash-completion looks in XDG_DATA_DIRS: the installation's
    # share/ (and never in a user's own completions)
    BASH_COMPLETION_USER_DIR="$tmp/no-user-completions" XDG_DATA_DIRS="$(dirname "$sbdir")/share" \
    PATH="$sbdir:/usr/bin:/bin" SB_COMPOPT="$tmp/compopt" SB_FILE="$file" SB_LINE="$1" bash --norc --noprofile -c '
        . /usr/share/bash-completion/bash_completion
        # outside a real TAB, compopt refuses to run: record what it was asked
        compopt() { echo "compopt $*" >>"$SB_COMPOPT"; }
        if [ -n "$SB_FILE" ]; then . "$SB_FILE"; else _completion_loader sbench; fi
        spec=$(complete -p sbench 2>/dev/null) || { echo "NO-COMPLETE-SPEC"; exit; }
        fn=${spec#*-F }; fn=${fn%% *}
        # readline: words split at blanks, and at "=" and ":" (COMP_WORDBREAKS)
        # which are words of their own
        COMP_LINE=$SB_LINE COMP_POINT=${#SB_LINE} COMP_WORDS=() w=""
        for ((i = 0; i < ${#SB_LINE}; i++)); do
            ch=${SB_LINE:i:1}
            case $ch in
                " ") [ -n "$w" ] && COMP_WORDS+=("$w"); w="" ;;
                "=" | ":") [ -n "$w" ] && COMP_WORDS+=("$w"); COMP_WORDS+=("$ch"); w="" ;;
                *) if [[ $w == "=" || $w == ":" ]]; then w=""; fi; w+=$ch ;;
            esac
        done
        if [ -n "$w" ]; then COMP_WORDS+=("$w")
        elif [[ $SB_LINE == *" " ]]; then COMP_WORDS+=("")
        fi
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
        "$fn" sbench "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
        printf "%s\n" "${COMPREPLY[@]}"' 2>&1 | sort -u | sed '/^$/d'
}

# expected sets, from sbench's own listings (a different parser from the
# completion's: python, whole option tokens)
options_of() {  # options_of ARGS...: --name= or --name, sorted
    sbench_out=$("$sbdir/sbench" "$@" </dev/null 2>/dev/null)
    printf '%s\n' "$sbench_out" | python3 -c '
import re, sys
for line in sys.stdin:
    m = re.match(r"  (--[\w-]+)(\[=on\|off\]|=)?", line)
    if m:
        print(m.group(1) + ("=" if m.group(2) == "=" else ""))' | sort -u
}
section_of() {  # section_of TITLE ARGS...: first column of a --help section
    local title=$1; shift
    "$sbdir/sbench" "$@" --help </dev/null 2>/dev/null | python3 -c '
import sys
title, on = sys.argv[1], False
for line in sys.stdin:
    if line.startswith(title):
        on = True
    elif on and line.startswith("  ") and not line.startswith("  -"):
        print(line.split()[0])
    elif on:
        break' "$title" | sort -u
}
same() {  # same NAME EXPECTED GOT
    if [ "$2" = "$3" ] && [ -n "$2" ]; then
        ok "$1 ($(echo "$2" | wc -l) words)"
    else
        bad "$1"; diff <(echo "$2") <(echo "$3") | head -20
    fi
}

got=$(complete_line "sbench --db-driver=pgsql --pg")
if echo "$got" | grep -qx -- '--pgsql-host='; then ok "--db-driver=pgsql --pg<TAB> offers --pgsql-host="; else bad "--db-driver=pgsql --pg<TAB> lacks --pgsql-host: $got"; fi
same "--db-driver=pgsql --pg<TAB> = the --pg* options of 'sbench --db-driver=pgsql --help'" \
    "$(options_of --db-driver=pgsql --help | grep '^--pg')" "$got"

got=$(complete_line "sbench --db-driver=pgsql --")
same "--db-driver=pgsql --<TAB> = every option of 'sbench --db-driver=pgsql --help'" \
    "$(options_of --db-driver=pgsql --help)" "$got"

got=$(complete_line "sbench --db-driver=mysql --pg")
[ -z "$got" ] && ok "--db-driver=mysql --pg<TAB> offers no pgsql option" || bad "--db-driver=mysql --pg<TAB> offers: $got"

got=$(complete_line "sbench --db-driver=no_such_driver --threa")
same "--db-driver=no_such_driver --threa<TAB>: the general options still" "--thread-stack-size= --threads=" "$(echo $got)"

got=$(complete_line "sbench --sq")
same "--sq<TAB> without --db-driver: the default driver's (sqlite) options" \
    "$(options_of --db-driver=sqlite --help | grep '^--sq')" "$got"

workloads=$(section_of "Workloads found")
got=$(complete_line "sbench ")
same "sbench <TAB> = the workloads of 'sbench --help' and the program's commands" \
    "$(printf '%s\n' $workloads capacity compare history info lint merge new params pgbench report | sort -u)" "$got"
echo "$workloads" | grep -qx oltp_read_write && ok "the workloads include oltp_read_write" || bad "no oltp_read_write among: $workloads"

touch my_workload.lua
got=$(complete_line "sbench my")
same "sbench my<TAB> offers ./my_workload.lua" "my_workload.lua" "$got"

mkdir wl && printf 'function event() end\n' >wl/zz_extra_workload.lua
got=$(complete_line "sbench --workload-path=$tmp/wl zz")
same "--workload-path=DIR zz<TAB> finds the workload in DIR" "zz_extra_workload" "$got"

got=$(complete_line "sbench --db-driver=")
same "--db-driver=<TAB> = the drivers of 'sbench --help'" "$(section_of "Drivers found")" "$got"

got=$(complete_line "sbench --report-format=")
same "--report-format=<TAB>: its choices" "$(printf 'csv\njson\ntext')" "$got"

got=$(complete_line "sbench --histogram=")
same "--histogram=<TAB>: on, off" "$(printf 'off\non')" "$got"

got=$(complete_line "sbench oltp_read_only ")
same "sbench oltp_read_only <TAB>: its commands (prewarm: sysbench 1.0.20's; trace: every workload's)" "$(printf 'cleanup\nhelp\nprepare\nprewarm\nrun\ntrace')" "$got"
got=$(complete_line "sbench lint oltp_read_o")
same "sbench lint oltp_read_o<TAB>: a workload" "oltp_read_only" "$got"

got=$(complete_line "sbench pgbench --cl")
same "sbench pgbench --cl<TAB>: pgbench's --client= and sbench's --clients=, --clients-profile=" "$(printf -- '--client=\n--clients-profile=\n--clients=')" "$got"
got=$(complete_line "sbench pgbench --sel")
same "sbench pgbench --sel<TAB>: pgbench's --select-only" "--select-only" "$got"
# every pgbench option offered is one sbench pgbench accepts (not refused as unknown)
for w in $(complete_line "sbench pgbench --"); do
    case $w in --client= | --jobs= | --time= | --transactions= | --connect | --protocol= | --select-only | --skip-some-updates | --initialize | --no-vacuum | --vacuum-all | --foreign-keys | --unlogged-tables | --max-tries= | --random-seed=)
        case $w in *=) set -- "${w%=}" 1 ;; *) set -- "$w" ;; esac
        out=$("$sbdir/sbench" pgbench --db-driver=no_such_driver "$@" 2>&1)
        case $out in *"invalid option"* | *"not an option"*) bad "sbench pgbench refuses the offered $w: $out" ;; esac ;;
    esac
done
ok "the pgbench options offered are accepted by sbench pgbench"

printf 'sbench.cmdline.commands = { warm = {function() end} }\nfunction event() end\n' >cmds.lua
got=$(complete_line "sbench ./cmds.lua ")
if echo "$got" | grep -qx warm && echo "$got" | grep -qx run; then ok "a workload's own command (warm) is offered"; else bad "commands of ./cmds.lua: $got"; fi

got=$(complete_line "sbench oltp_read_only run --point")
same "a workload's options after it: --point<TAB>" "$(options_of oltp_read_only help | grep '^--point')" "$got"

got=$(complete_line "sbench --threads")
same "--threads<TAB>" "--threads=" "$got"
grep -qx "compopt -o nospace" "$tmp/compopt" && ok "--threads= is offered without a space after it" ||
    bad "no 'compopt -o nospace' after --threads=: $(cat "$tmp/compopt")"
got=$(complete_line "sbench --histog")
same "--histog<TAB>: a switch and an option with a value" "$(printf -- '--histogram\n--histogram-precision=')" "$got"
# sbench history: its commands, then its options as its --help lists them
got=$(complete_line "sbench history ")
same "history <TAB>: its commands" "$(printf 'diff\nexport\ngate\nimport\nlist\nreport\nshow\ntrend')" "$got"
want=$("$sbdir/sbench" history --help | sed -n 's/^  \(--l[a-z-]*=\).*/\1/p' | sort)
got=$(complete_line "sbench history list --l")
same "history list --l<TAB>: its options from its --help" "$want" "$got"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
