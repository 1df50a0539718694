#!/usr/bin/env bash
# compare.sh runs the validation benchmarks of the bench package and prints,
# per input class and size, the throughput of unicode/utf8 (stdlib) and of
# sanitize and their ratio sanitize/stdlib (above 1: sanitize is faster).
#
# usage: bench/compare.sh [-n rounds] [-b regexp] [-o file] [-c] [go test flags...]
#
#   -n rounds   rounds of the whole set (default 10); every round runs each
#               benchmark once, so stdlib and sanitize runs interleave in
#               time and a burst of noise on the machine hits both
#   -b regexp   benchmarks to run (default Validate: Validate and
#               ValidateString)
#   -o file     keep the raw results there (default: a temporary file)
#   -c          exit 1 if a median ratio is below 1 or sanitize allocates
#
# Further flags go to the test binary, e.g. -benchtime=200ms. One round is
#
#   go test -run '^$' -bench Validate -benchmem -cpu=1 -count=1 ./bench/
#
# from a test binary built once. If benchstat is installed (go install
# golang.org/x/perf/cmd/benchstat@latest), its comparison follows the table.
set -euo pipefail

usage() { sed -n '2,/^set/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
rounds=10 bench=Validate out='' check=''
extra=()
while [ $# -gt 0 ]; do
	case $1 in
	-n | -b | -o) [ $# -ge 2 ] || usage ;;
	esac
	case $1 in
	-n) rounds=$2; shift ;;
	-b) bench=$2; shift ;;
	-o) out=$2; shift ;;
	-c) check=-check ;;
	-h | -help | --help) usage ;;
	-test.*) extra+=("$1") ;;
	-*) extra+=("-test.${1#-}") ;;
	*) usage ;;
	esac
	shift
done

cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=${out:-$tmp/results.txt}
: >"$out"

go test -c -o "$tmp/bench.test" ./bench/
go build -o "$tmp/ratio" ./bench/internal/ratio
for ((r = 1; r <= rounds; r++)); do
	echo "round $r/$rounds" >&2
	(cd bench && "$tmp/bench.test" -test.run '^$' -test.bench "$bench" -test.benchmem \
		-test.cpu=1 -test.count=1 ${extra[@]+"${extra[@]}"}) >>"$out"
done

echo "go $(go env GOVERSION) $(go env GOOS)/$(go env GOARCH); $(grep -m1 '^cpu:' "$out" || true); $rounds rounds"
status=0
"$tmp/ratio" $check "$out" || status=$?

benchstat=$(command -v benchstat || true)
[ -n "$benchstat" ] || [ ! -x "$(go env GOPATH)/bin/benchstat" ] || benchstat=$(go env GOPATH)/bin/benchstat
if [ -n "$benchstat" ]; then
	echo
	"$benchstat" -col /impl -filter '.unit:(B/s OR allocs/op)' "$out"
fi
exit $status
