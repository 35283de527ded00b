#!/bin/sh
# Read-only: the largest directories under a path, for a human deciding what may be removed.
set -eu
path="${RUNBOOK_PATH:-/tmp}"
du -x -k -d 1 "$path" 2>/dev/null | sort -rn | head -n "${RUNBOOK_TOP:-10}"
