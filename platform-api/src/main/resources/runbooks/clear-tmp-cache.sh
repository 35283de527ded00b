#!/bin/sh
# Demo remediation: deletes files older than N minutes from Cadre's own scratch cache
# (${TMPDIR:-/tmp}/cadre-scratch) and nothing else -- never a business cache (seed 003's /data/cache).
# Parameters arrive as --name=value arguments and RUNBOOK_<NAME> variables; no shell ever
# interprets them.
set -eu
minutes="${RUNBOOK_OLDER_THAN_MINUTES:-60}"
dry_run="${RUNBOOK_DRY_RUN:-true}"
dir="${TMPDIR:-/tmp}/cadre-scratch"
mkdir -p "$dir"
count=$(find "$dir" -type f -mmin "+$minutes" | wc -l)
if [ "$dry_run" = "true" ]; then
  echo "dry run: $count files older than $minutes minutes in $dir would be deleted"
else
  find "$dir" -type f -mmin "+$minutes" -delete
  echo "deleted $count files older than $minutes minutes from $dir"
fi
echo "incident=${CADRE_INCIDENT_ID:-none} run=${CADRE_RUN_ID:-none}"
