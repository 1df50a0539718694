#!/usr/bin/env bash
# run.sh runs utf8guard's whole speed comparison and prints its tables:
#
#   validation     BenchmarkValidate of bench/peers: unicode/utf8 (stdlib),
#                  segmentio/asm, bytedance/sonic and utf8guard on every
#                  input class and size
#   classes        BenchmarkCheck of bench: sanitize.Validate against
#                  sanitize.Check with the strict preset's classes
#   normalization  BenchmarkNFCIsNormal of bench: x/text/unicode/norm and
#                  utf8guard's normalize
#   middleware     BenchmarkMiddleware of bench: Echo without and with the
#                  middleware, per request
#   hostile        BenchmarkHostile of bench: each entry point on benign
#                  input and on the worst known for it, 16 KiB to 1 MiB,
#                  summarized by cmd/hostile (growth exponent, worst/benign
#                  ratio, allocations, verdict against the hostile-input goals);
#                  and BenchmarkHostileMW of bench: the same through Echo
#                  and the middleware, constructions on strict,
#                  normalizing and PRECIS routes, summarized by
#                  cmd/hostile -mw in one table of a row per case
#
# usage: bench/run.sh [-n rounds] [-benchtime d] [-hostiletime d] [-mwtime d] [-only section] [-o dir]
#
#   -n rounds     rounds (default 5); every round runs each benchmark once,
#                 so the implementations' runs interleave in time and a
#                 burst of noise on the machine hits them all
#   -benchtime d  passed to the test binaries (default: go test's, 1s);
#                 with it, a round takes roughly 130 times d, plus start-up
#   -hostiletime d  benchtime of BenchmarkHostile (default 100ms: it has
#                 some 600 benchmarks, and its inputs are up to 1 MiB)
#   -mwtime d     benchtime of BenchmarkHostileMW (default: -hostiletime's;
#                 some 350 benchmarks, requests of up to 1 MiB)
#   -only section run one section: hostile, or main (the four others)
#   -o dir        where to write raw.txt (go test's output of every round),
#                 tables.md and validate.svg, and for the hostile section
#                 hostile-raw.txt and hostile.md (BenchmarkHostile),
#                 hostile-mw-raw.txt and hostile-mw.md (BenchmarkHostileMW)
#                 (default bench/results)
#
# It builds the test binaries of bench and bench/peers once, runs them with
# -cpu=1 -benchmem in every round, then prints the Markdown tables of
# cmd/benchtab (medians of the rounds, speedups), writes the chart of
# cmd/chart, and prints benchstat's comparison if benchstat is installed
# (go install golang.org/x/perf/cmd/benchstat@latest). The hostile section
# runs in the same rounds, after the others, BenchmarkHostile then
# BenchmarkHostileMW in every round, and prints cmd/hostile's tables of
# each; a full run is long, so bench/run.sh -only hostile runs it alone.
set -euo pipefail

usage() { sed -n '2,/^set/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
command=$(printf '%q ' "$0" "$@")
command=${command% }
rounds=5 benchtime='' outdir='' hostiletime=100ms mwtime='' only=''
while [ $# -gt 0 ]; do
	case $1 in
	-n | -benchtime | --benchtime | -hostiletime | --hostiletime | -mwtime | --mwtime | -only | --only | -o) [ $# -ge 2 ] || usage ;;
	esac
	case $1 in
	-hostiletime | --hostiletime) hostiletime=$2; shift ;;
	-hostiletime=* | --hostiletime=*) hostiletime=${1#*=} ;;
	-mwtime | --mwtime) mwtime=$2; shift ;;
	-mwtime=* | --mwtime=*) mwtime=${1#*=} ;;
	-only | --only) only=$2; shift ;;
	-only=* | --only=*) only=${1#*=} ;;
	-n) rounds=$2; shift ;;
	-n=*) rounds=${1#*=} ;;
	-benchtime | --benchtime) benchtime=$2; shift ;;
	-benchtime=* | --benchtime=*) benchtime=${1#*=} ;;
	-o) outdir=$2; shift ;;
	-o=*) outdir=${1#*=} ;;
	*) usage ;;
	esac
	shift
done
case $rounds in '' | *[!0-9]* | 0) echo "run.sh: -n wants a positive number" >&2; exit 2 ;; esac
mwtime=${mwtime:-$hostiletime}
case $only in
'') main=1 hostile=1 ;;
main) main=1 hostile=0 ;;
hostile) main=0 hostile=1 ;;
*) echo "run.sh: -only wants main or hostile" >&2; exit 2 ;;
esac

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
outdir=${outdir:-bench/results}
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
raw=$outdir/raw.txt
hraw=$outdir/hostile-raw.txt
mwraw=$outdir/hostile-mw-raw.txt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

flags=(-test.run '^$' -test.benchmem -test.cpu=1 -test.count=1)
[ -z "$benchtime" ] || flags+=("-test.benchtime=$benchtime")
peersBench='^BenchmarkValidate$'
benchBench='^Benchmark(NFCIsNormal|Check|Middleware)$'
hostileFlags=(-test.run '^$' -test.benchmem -test.cpu=1 -test.count=1 "-test.benchtime=$hostiletime" -test.bench '^BenchmarkHostile$')
mwFlags=(-test.run '^$' -test.benchmem -test.cpu=1 -test.count=1 "-test.benchtime=$mwtime" -test.bench '^BenchmarkHostileMW$')

cpu=$(grep -m1 '^model name' /proc/cpuinfo 2>/dev/null | sed 's/.*: //' || true)
date=$(date -u +%Y-%m-%d)
echo "# $command"
echo "# $(go version); cpu: ${cpu:-unknown}; nproc: $(nproc); $date"
peersCmd=$(printf ' %q' "${flags[@]}" -test.bench "$peersBench")
benchCmd=$(printf ' %q' "${flags[@]}" -test.bench "$benchBench")
hostileCmd=$(printf ' %q' "${hostileFlags[@]}")
mwCmd=$(printf ' %q' "${mwFlags[@]}")
echo "# built once: go test -c -o \$tmp/bench.test ./bench/; (cd bench/peers && go test -c -o \$tmp/peers.test .)"
if [ "$main" = 1 ]; then
	echo "# every round: (cd bench/peers && peers.test$peersCmd)"
	echo "#              (cd bench && bench.test$benchCmd)"
fi
if [ "$hostile" = 1 ]; then
	echo "# every round: (cd bench && bench.test$hostileCmd)"
	echo "#              (cd bench && bench.test$mwCmd)"
fi
echo "# rounds: $rounds; raw output: $([ "$main" = 1 ] && echo "$raw ")$([ "$hostile" = 1 ] && echo "$hraw $mwraw")"
echo

go test -c -o "$tmp/bench.test" ./bench/
if [ "$main" = 1 ]; then
	(cd bench/peers && go test -c -o "$tmp/peers.test" .)
	go build -o "$tmp/benchtab" ./bench/cmd/benchtab
	go build -o "$tmp/chart" ./bench/cmd/chart
fi
[ "$hostile" = 1 ] && go build -o "$tmp/hostile" ./bench/cmd/hostile

# Configuration lines that benchstat and the tools read as such.
config() {
	echo "goversion: $(go env GOVERSION)"
	echo "nproc: $(nproc)"
	echo "date: $date"
	echo "rounds: $rounds"
	echo "command: $command"
}
[ "$main" = 0 ] || config >"$raw"
[ "$hostile" = 0 ] || config >"$hraw"
[ "$hostile" = 0 ] || config >"$mwraw"
start=$SECONDS
for ((r = 1; r <= rounds; r++)); do
	echo "round $r/$rounds ($((SECONDS - start)) s)" >&2
	if [ "$main" = 1 ]; then
		(cd bench/peers && "$tmp/peers.test" "${flags[@]}" -test.bench "$peersBench") >>"$raw"
		(cd bench && "$tmp/bench.test" "${flags[@]}" -test.bench "$benchBench") >>"$raw"
	fi
	if [ "$hostile" = 1 ]; then
		# Every row runs its benign and its worst input back to back; so
		# does every case of BenchmarkHostileMW at each size.
		(cd bench && "$tmp/bench.test" "${hostileFlags[@]}") >>"$hraw"
		(cd bench && "$tmp/bench.test" "${mwFlags[@]}") >>"$mwraw"
	fi
done
echo "$rounds round(s) in $((SECONDS - start)) s" >&2

if [ "$hostile" = 1 ]; then
	echo "## Hostile input"
	echo
	"$tmp/hostile" "$hraw" | tee "$outdir/hostile.md"
	echo
	echo "## Hostile input through the middleware"
	echo
	"$tmp/hostile" -mw "$mwraw" | tee "$outdir/hostile-mw.md"
	echo
	echo "Wrote $hraw, $outdir/hostile.md, $mwraw and $outdir/hostile-mw.md."
fi
[ "$main" = 1 ] || exit 0

"$tmp/benchtab" "$raw" | tee "$outdir/tables.md"
"$tmp/chart" -o "$outdir/validate.svg" -note "$(go env GOVERSION), nproc $(nproc), -cpu=1" "$raw"
echo
echo "Wrote $raw, $outdir/tables.md and $outdir/validate.svg."

benchstat=$(command -v benchstat || true)
[ -n "$benchstat" ] || [ ! -x "$(go env GOPATH)/bin/benchstat" ] || benchstat=$(go env GOPATH)/bin/benchstat
if [ -n "$benchstat" ]; then
	echo
	echo "## benchstat"
	for filter in '.name:Validate .unit:B/s' '.name:NFCIsNormal .unit:B/s' '.name:Middleware .unit:(sec/op OR B/op OR allocs/op)'; do
		echo
		echo "\$ benchstat -col /impl -filter '$filter' raw.txt"
		"$benchstat" -col /impl -filter "$filter" "$raw"
	done
fi
