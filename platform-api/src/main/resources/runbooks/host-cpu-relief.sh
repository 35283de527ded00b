#!/bin/sh
# Runs on the alert's host over SSH (sent on standard input to `sh -s`): lowers the priority of the
# top CPU users by 10; kills nothing. Parameters arrive as --name=value arguments and RUNBOOK_<NAME>
# variables; no shell on the platform side ever interprets them.
set -eu
count="${RUNBOOK_COUNT:-1}"
dry_run="${RUNBOOK_DRY_RUN:-true}"
ps -eo pid=,pcpu=,comm= --sort=-pcpu | head -n "$count" | while read -r pid pcpu comm; do
  if [ "$dry_run" = "true" ]; then
    echo "dry run: would renice +10 $comm (pid $pid, ${pcpu}% CPU) on $(hostname)"
  else
    renice -n 10 -p "$pid" >/dev/null && echo "reniced +10 $comm (pid $pid, ${pcpu}% CPU) on $(hostname)"
  fi
done
echo "incident=${CADRE_INCIDENT_ID:-none} run=${CADRE_RUN_ID:-none}"
