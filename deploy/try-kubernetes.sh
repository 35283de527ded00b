#!/usr/bin/env bash
# Try the Kubernetes team in ten minutes, without a cluster. One command:
#
#   deploy/try-kubernetes.sh [--build]
#
# starts fabric8's Kubernetes API server EMULATOR (CRUD mode: it stores and serves objects; it is not a real
# API server -- no scheduler, no kubelet; a stand-in controller rolls a written deployment out) with the demo
# namespace `shop` (deployment `web` crash-looping at revision 2), then the platform pointed at it through a
# kubeconfig, and prints the alert to send. Ctrl-C stops both. Builds the two jars first when they are
# missing (or with --build). Environment: PORT (8080), CADRE_BOOTSTRAP_API_KEY (else a new random one).
set -euo pipefail
cd "$(dirname "$0")/.."

port="${PORT:-8080}"
key="${CADRE_BOOTSTRAP_API_KEY:-$(openssl rand -hex 32 2>/dev/null || head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')}"
work="target/try-kubernetes"
# Java 21 or newer: $JAVA_HOME's when set, else the one on PATH.
java="${JAVA_HOME:+$JAVA_HOME/bin/}java"

shopt -s nullglob
emulator_jars=(k8s-emulator/target/k8s-emulator-*.jar)
platform_jars=(platform-api/target/platform-api-*.jar)
if [ "${1:-}" = "--build" ] || [ ${#emulator_jars[@]} -eq 0 ] || [ ${#platform_jars[@]} -eq 0 ]; then
  echo "Building the emulator and the platform (a few minutes the first time)..."
  ./mvnw -B -q -DskipTests -pl k8s-emulator,platform-api -am package
  emulator_jars=(k8s-emulator/target/k8s-emulator-*.jar)
  platform_jars=(platform-api/target/platform-api-*.jar)
fi

mkdir -p "$work"
rm -f "$work/kubeconfig"
"$java" -jar "${emulator_jars[0]}" --kubeconfig "$work/kubeconfig" >"$work/emulator.log" 2>&1 &
emulator=$!
trap 'kill "$emulator" 2>/dev/null || true; wait "$emulator" 2>/dev/null || true' EXIT
for _ in $(seq 1 150); do
  [ -s "$work/kubeconfig" ] && break
  if ! kill -0 "$emulator" 2>/dev/null; then
    cat "$work/emulator.log" >&2
    echo "The emulator did not start (log above)." >&2
    exit 1
  fi
  sleep 0.2
done
[ -s "$work/kubeconfig" ] || { echo "The emulator wrote no kubeconfig in 30 s ($work/emulator.log)." >&2; exit 1; }
cat "$work/emulator.log"

cat <<INFO

Platform: http://127.0.0.1:$port/  (console; sign in with the API key below)
API key:  $key
Separation of duties is off in this demo so one person can approve; production keeps it on.

Once it says "Started", send the alert (in another terminal):

  curl -s -H "Authorization: Bearer $key" -H 'Content-Type: application/json' \\
    http://127.0.0.1:$port/api/v1/integrations/alertmanager -d '{"version":"4","status":"firing","receiver":"cadre",
    "alerts":[{"status":"firing","labels":{"alertname":"KubePodCrashLooping","namespace":"shop",
    "pod":"web-2222-ccccc","container":"app","severity":"critical"},
    "annotations":{"summary":"Pod shop/web-2222-ccccc is crash looping"},
    "startsAt":"2026-12-05T10:00:00Z","fingerprint":"try0kubernetes01"}]}'

then open Incidents: approve the rollback of shop/web to revision 1 and watch it verified.

INFO

# Not exec: the trap stops the emulator when the platform stops (Ctrl-C stops both).
"$java" -jar "${platform_jars[0]}" \
  --server.port="$port" \
  --cadre.security.bootstrap-api-key="$key" \
  --cadre.tools.kubernetes.kubeconfig="$work/kubeconfig" \
  --cadre.tools.kubernetes.context=emulator \
  --cadre.tools.kubernetes.verify-poll-interval=PT1S \
  --cadre.approvals.separation-of-duties=false || true
