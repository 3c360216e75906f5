#!/usr/bin/env bash
# demo_script_test.sh SCRIPTS_DIR — see CMakeLists.txt. Prints what failed; exit 1 on failure.
set -uo pipefail
scripts="$1"
tree="$(mktemp -d -t ordo-demo-test.XXXXXX)"
trap 'rm -rf "$tree"' EXIT
fail=0
check() { if ! eval "$2"; then echo "FAIL: $1"; fail=1; fi; }

mkdir -p "$tree/repo/scripts/deps" "$tree/bin" "$tree/repo/build/cpu-release/apps/ordo"
cp "$scripts/demo" "$scripts/bootstrap" "$tree/repo/scripts/"
cp "$scripts"/deps/*.apt "$tree/repo/scripts/deps/"
# No fetch-oracles in the tree: a demo that tried to fetch them fails here.
cat >"$tree/bin/cmake" <<'STUB'
#!/usr/bin/env bash
for i in $(seq 1 50); do echo "stub cmake build log line $i"; done
[ "${STUB_CMAKE_FAIL:-0}" = 1 ] && { echo "stub cmake: error: something broke"; exit 1; }
exit 0
STUB
cat >"$tree/bin/dpkg-query" <<'STUB'
#!/usr/bin/env bash
printf 'install ok installed'
STUB
cat >"$tree/repo/build/cpu-release/apps/ordo/ordo" <<'STUB'
#!/usr/bin/env bash
echo "stub ordo: $*"
STUB
chmod +x "$tree/bin/"* "$tree/repo/build/cpu-release/apps/ordo/ordo" "$tree/repo/scripts/"*
export PATH="$tree/bin:$PATH" TMPDIR="$tree"  # the failing demo keeps its log in TMPDIR

out="$("$tree/repo/scripts/demo" 2>&1)"; rc=$?
echo "--- demo (build succeeds):"; echo "$out"
check "demo exits 0" '[ $rc -eq 0 ]'
check "one build status line" '[ "$(grep -c "^demo: built " <<<"$out")" -eq 1 ]'
check "no build log shown" '! grep -q "stub cmake build log" <<<"$out"'
check "no oracles fetched" '! grep -q "fetch-oracles" <<<"$out"'
check "ordo generate ran with the default prompt" 'grep -q "^stub ordo: generate -p Hello! Who are you? -n 200$" <<<"$out"'
check "at most 3 lines (bootstrap, build, ordo)" '[ "$(wc -l <<<"$out")" -le 3 ]'

out="$(STUB_CMAKE_FAIL=1 "$tree/repo/scripts/demo" 2>&1)"; rc=$?
echo "--- demo (build fails):"; tail -3 <<<"$out"
check "failing build: non-zero exit" '[ $rc -ne 0 ]'
check "failing build: the log is shown" 'grep -q "stub cmake: error: something broke" <<<"$out"'
check "failing build: ordo not run" '! grep -q "stub ordo" <<<"$out"'

out="$("$tree/repo/scripts/bootstrap" --run --dry-run cpu)"
echo "--- bootstrap --run --dry-run:"; echo "$out"
check "--run: no npm" '! grep -qw npm <<<"$out"'
check "--run: no oracles" 'grep -q "oracles: not fetched" <<<"$out"'
check "--run: still the build packages" 'grep -qw libcli11-dev <<<"$out"'
out="$("$tree/repo/scripts/bootstrap" --dry-run cpu)"
echo "--- bootstrap --dry-run (tests):"; echo "$out"
check "tests: npm" 'grep -qw npm <<<"$out"'
check "tests: oracles fetched" 'grep -q "oracles: scripts/fetch-oracles" <<<"$out"'
exit $fail
