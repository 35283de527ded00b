#!/usr/bin/env bash
# A real OpenID Connect provider for the sign-in tests: Keycloak's own distribution, fetched from
# Maven Central once and unpacked into a cache outside the clone.
#
#   test-peers/keycloak.sh [--env]
#
# prints CADRE_TEST_KEYCLOAK_HOME=<unpacked distribution> (with --env as an `export` line for eval).
# ./test runs it. The cache is $CADRE_TEST_KEYCLOAK_CACHE, by default ~/.cache/cadre-test/keycloak,
# laid out as <cache>/keycloak-<version>/bin/kc.sh. The tests start it themselves
# (support/KeycloakPeer.java: `bin/kc.sh start-dev` on a free loopback port with a test realm
# imported); it needs a JDK 21 or newer, which ./test has already found.
#
# The zip is about 165 MB; it is fetched with this repository's Maven wrapper, so it lands in the
# local Maven repository like any other artifact and a second clone does not fetch it again.
set -euo pipefail
VERSION=26.5.6
HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${CADRE_TEST_KEYCLOAK_CACHE:-$HOME/.cache/cadre-test/keycloak}
HOME_DIR=$CACHE/keycloak-$VERSION

say() { echo "keycloak.sh: $*" >&2; }
fail() { echo "keycloak.sh: $*" >&2; exit 1; }

command -v unzip >/dev/null || fail "unzip is missing — install it (Debian: apt-get install -y unzip)"

mkdir -p "$CACHE"
# One unpack at a time per cache (two ./test runs at once would both unpack).
exec 9>"$CACHE/.lock"
flock 9

if [ ! -x "$HOME_DIR/bin/kc.sh" ]; then
  say "fetching org.keycloak:keycloak-quarkus-dist:$VERSION:zip from Maven Central (about 165 MB)"
  rm -f "$CACHE"/keycloak-quarkus-dist-*.zip
  (cd "$HERE/.." && ./mvnw -B -q dependency:copy -Dartifact="org.keycloak:keycloak-quarkus-dist:$VERSION:zip" \
      -DoutputDirectory="$CACHE") >"$CACHE/fetch.log" 2>&1 \
    || fail "could not fetch Keycloak $VERSION with Maven: see $CACHE/fetch.log"
  zip=$CACHE/keycloak-quarkus-dist-$VERSION.zip
  [ -f "$zip" ] || fail "Maven reported Keycloak $VERSION fetched, but $zip is not there"
  rm -rf "$HOME_DIR" "$CACHE/unpack"
  mkdir -p "$CACHE/unpack"
  unzip -q "$zip" -d "$CACHE/unpack" || fail "could not unpack $zip into $CACHE"
  mv "$CACHE/unpack/keycloak-$VERSION" "$HOME_DIR" && rmdir "$CACHE/unpack" \
    || fail "the zip did not hold keycloak-$VERSION/ as expected"
  rm -f "$zip"   # the local Maven repository keeps a copy
  [ -x "$HOME_DIR/bin/kc.sh" ] || fail "$HOME_DIR/bin/kc.sh is missing after unpacking"
fi

# start-dev first re-builds the server for development (a Quarkus augmentation: a minute or two on
# two cores) and writes the result into lib/quarkus. Doing that once here, with the build options the
# tests start it with (--db=dev-mem), spares every test run that minute: the tests copy the
# distribution as it is left here.
WARM=$HOME_DIR/.cadre-dev-build
if [ ! -f "$WARM" ]; then
  [ -n "${JAVA_HOME:-}" ] || fail "JAVA_HOME is not set: Keycloak $VERSION needs a JDK 21 or newer"
  say "building Keycloak for start-dev once (a minute or two; log: $CACHE/dev-build.log)"
  rm -rf "$HOME_DIR/data"
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])' 2>/dev/null || echo 18080)
  KC_BOOTSTRAP_ADMIN_USERNAME=admin KC_BOOTSTRAP_ADMIN_PASSWORD=admin-password \
    setsid "$HOME_DIR/bin/kc.sh" start-dev --db=dev-mem --http-host=127.0.0.1 --http-port="$port" \
      >"$CACHE/dev-build.log" 2>&1 &
  kc=$!
  built=""
  for _ in $(seq 1 1200); do
    if grep -q "Running the server in development mode" "$CACHE/dev-build.log"; then built=yes; break; fi
    kill -0 "$kc" 2>/dev/null || break
    sleep 0.5
  done
  kill -- -"$kc" 2>/dev/null || true
  wait "$kc" 2>/dev/null || true
  rm -rf "$HOME_DIR/data"
  [ -n "$built" ] || fail "Keycloak's start-dev build did not finish: see $CACHE/dev-build.log"
  touch "$WARM"
fi

if [ "${1:-}" = "--env" ]; then
  echo "export CADRE_TEST_KEYCLOAK_HOME='$HOME_DIR'"
else
  echo "CADRE_TEST_KEYCLOAK_HOME=$HOME_DIR"
fi
