#!/usr/bin/env bash
# The fault suite (issue 10, docs/reliability.md): two platform instances from the packaged jar on a
# private PostgreSQL and Redis (started under platform-api/target/faults, on free ports; the machine's
# own services are never touched), a CAS-append workload and a stream of exactly-once runs, then
# kill -9 of an instance, Redis killed and restarted, PostgreSQL crashed and restarted, a model
# provider that hangs and one that answers garbage. Prints the report and writes
# platform-api/target/faults/report.md; exits non-zero when a bar fails.
#
# Usage: deploy/faults/run-fault-suite.sh [-Dfaults.appenders=4] [-Dfaults.submit-every-ms=300]
#                                        [-Dfaults.outage-seconds=12] [-Dfaults.pg-outage-seconds=40]
# Needs: JDK 21+ (JAVA_HOME), PostgreSQL server binaries (FAULTS_PG_BIN, default
# /usr/lib/postgresql/15/bin; run as root they are started as user postgres), redis-server on PATH.
# Takes about 6-8 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
if [[ -z "${JAVA_HOME:-}" && -d /usr/lib/jvm/temurin-25-jdk-amd64 ]]; then
  export JAVA_HOME=/usr/lib/jvm/temurin-25-jdk-amd64
fi
command -v redis-server >/dev/null || { echo "redis-server is not on PATH" >&2; exit 2; }
exec ./mvnw -B -pl platform-api -am -Pfaults verify -DskipTests "$@"
