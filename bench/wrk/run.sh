#!/usr/bin/env bash
# run.sh measures what utf8guard costs the demo server under wrk: requests
# per second of /strict/ (strict preset) against /open/ (unchecked, the
# middleware returns at once) for the same clean GET and the same clean POST,
# and their ratio strict/open, on Echo v4 and on Echo v5 (the demo's -echo
# flag: the same routes through utf8guard's adapter for each). The target
# of the issues "Speed" and 15 is a median ratio of at least 0.95 for each
# kind on each version; the verdict takes the median of the rounds'
# ratios (each round's two runs are adjacent in time), and the ratio of
# the two medians is printed too. Each round also gives the server's CPU
# time per request (from /proc, in microseconds) for both routes and their
# ratio open/strict: the share of /open's rate that /strict would keep on a
# core of its own, less sensitive than requests per second to time the VM
# loses to its neighbours.
#
# usage: bench/wrk/run.sh [-n rounds] [-d duration] [-c connections]
#                         [-w warmup] [-k kinds] [-e echo] [-o dir] [-check]
#
#   -n rounds       rounds per kind (default 5); a round runs /strict and
#                   /open twice each, A-B-B-A, and which goes first
#                   alternates from round to round, so drift and bursts of
#                   noise on the machine hit both; a route's rate in a round
#                   is the mean of its two runs
#   -d duration     length of each wrk run, as wrk takes it (default 5s)
#   -c connections  wrk connections (default 32), on one wrk thread (-t1)
#   -w warmup       an uncounted wrk run of this length per route and kind
#                   before the rounds (default 1s; 0 skips it)
#   -k kinds        get, post or get,post (default get,post)
#   -e echo         the Echo major version the demo runs on: v4, v5 or both
#                   (default both: the whole measurement on v4, then on v5,
#                   each on a server of its own); -echo is the same
#   -o dir          keep each wrk run's output in dir (default: discarded)
#   -check          exit 1 if a median ratio is below 0.95
#
# It exits 1 if any wrk run saw a response of status >= 400 (wrk's
# "Non-2xx or 3xx responses") or a socket error, or if a route does not
# answer exactly 200 to curl before and after the runs; 2 on bad usage or a
# missing tool.
#
# The server is built once (go build ./examples/server) and runs, for each
# Echo version, on 127.0.0.1 at a free port (-addr 127.0.0.1:0 -echo VER),
# pinned with taskset to CPU
# $SERVER_CPU (default 0), so the Go runtime sets GOMAXPROCS to 1; wrk runs
# pinned to CPU $WRK_CPU (default 1). The server's stdout (its JSON log
# lines: rejections only, it logs nothing for accepted requests) and stderr
# go to files, never to the terminal; the number of log lines is printed at
# the end and should be 0.
#
# The requests (the path after the prefix is the same for both routes):
#
#   get:   GET  /{strict,open}/catalog/items/42?page=2&sort=price&lang=de&q=caf%C3%A9
#   post:  POST /{strict,open}/api/orders/new, Content-Type: application/json,
#          body bench/wrk/body1k.json (1024 octets, UTF-8, NFC, non-ASCII
#          text), set by bench/wrk/post.lua
#
# Tools: wrk, curl and taskset (util-linux). When wrk or curl is missing and
# apt-get is there and we are root (as on CI, CI=true), they are installed
# with apt-get; otherwise the script says what to install and exits 2.
set -euo pipefail

usage() { sed -n '2,/^set/p' "$0" | sed '$d; s/^# \{0,1\}//' >&2; exit 2; }
cmdline=$(printf '%q ' "$0" "$@")
rounds=5 duration=5s conns=32 warmup=1s kinds=get,post echoes=both keep='' check=''
while [ $# -gt 0 ]; do
	case $1 in
	-n | -d | -c | -w | -k | -e | -echo | --echo | -o) [ $# -ge 2 ] || usage ;;
	esac
	case $1 in
	-n) rounds=$2; shift ;;
	-d) duration=$2; shift ;;
	-c) conns=$2; shift ;;
	-w) warmup=$2; shift ;;
	-k) kinds=$2; shift ;;
	-e | -echo | --echo) echoes=$2; shift ;;
	-o) keep=$2; shift ;;
	-check | --check) check=1 ;;
	-h | -help | --help) usage ;;
	*) usage ;;
	esac
	shift
done
[[ $rounds =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: -n: want a positive integer" >&2; exit 2; }
[[ $conns =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: -c: want a positive integer" >&2; exit 2; }
for kind in ${kinds//,/ }; do
	case $kind in get | post) ;; *) echo "run.sh: -k: unknown kind $kind (want get, post)" >&2; exit 2 ;; esac
done
case $echoes in
v4 | v5) ;;
both) echoes=v4,v5 ;;
*) echo "run.sh: -e: unknown Echo version $echoes (want v4, v5 or both)" >&2; exit 2 ;;
esac
# wrk takes a bare number as seconds; say so in the settings line.
[[ $duration =~ ^[0-9]+$ ]] && duration+=s
[[ $warmup =~ ^[0-9]+$ ]] && warmup+=s
server_cpu=${SERVER_CPU:-0}
wrk_cpu=${WRK_CPU:-1}

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cd "$root"

# Tools.
missing=()
command -v wrk >/dev/null || missing+=(wrk)
command -v curl >/dev/null || missing+=(curl)
if [ ${#missing[@]} -gt 0 ]; then
	if command -v apt-get >/dev/null && [ "$(id -u)" = 0 ]; then
		echo "installing ${missing[*]} with apt-get" >&2
		export DEBIAN_FRONTEND=noninteractive
		apt-get update -qq >&2
		apt-get install -y -qq "${missing[@]}" >&2
	else
		echo "run.sh: missing ${missing[*]}: install with 'sudo apt-get install -y ${missing[*]}' (Debian/Ubuntu)" >&2
		exit 2
	fi
fi
command -v taskset >/dev/null || { echo "run.sh: missing taskset: install util-linux" >&2; exit 2; }
ncpu=$(nproc --all)
if [ "$server_cpu" -ge "$ncpu" ] || [ "$wrk_cpu" -ge "$ncpu" ] || [ "$server_cpu" = "$wrk_cpu" ]; then
	echo "run.sh: need two distinct CPUs (SERVER_CPU=$server_cpu WRK_CPU=$wrk_cpu, $ncpu CPUs)" >&2
	exit 2
fi

tmp=$(mktemp -d)
pid=
# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
	if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
		kill "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
[ -z "$keep" ] || mkdir -p "$keep"

echo "command:  $cmdline"
echo "machine:  $(nproc) CPUs online to us ($ncpu in all), $(grep -m1 '^model name' /proc/cpuinfo | sed 's/^[^:]*: *//')"
echo "go:       $(go env GOVERSION) $(go env GOOS)/$(go env GOARCH)"
echo "wrk:      $(wrk -v 2>&1 | head -1 | sed 's/ Copyright.*//')"
echo "settings: $rounds rounds of 2 runs x $duration per route (A-B-B-A), wrk -t1 -c$conns, warm-up $warmup, server on CPU $server_cpu, wrk on CPU $wrk_cpu, Echo ${echoes//,/ and }"
echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) before the runs"

go build -o "$tmp/server" ./examples/server

# start ECHO starts the demo on Echo version ECHO and sets pid and base.
start() {
	: >"$tmp/server.err"
	taskset -c "$server_cpu" "$tmp/server" -addr 127.0.0.1:0 -echo "$1" >>"$tmp/server.out" 2>"$tmp/server.err" &
	pid=$!
	base=
	for _ in $(seq 100); do
		base=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$tmp/server.err" 2>/dev/null | head -1 || true)
		if [ -n "$base" ] && curl -s -o /dev/null "$base/open/"; then
			break
		fi
		kill -0 "$pid" 2>/dev/null || { echo "run.sh: server exited:" >&2; cat "$tmp/server.err" >&2; exit 1; }
		base=
		sleep 0.1
	done
	[ -n "$base" ] || { echo "run.sh: server did not answer within 10 s" >&2; cat "$tmp/server.err" >&2; exit 1; }
	echo "server:   Echo $1, $base, pid $pid, CPUs $(awk '/^Cpus_allowed_list/ {print $2}' "/proc/$pid/status"), stdout and stderr to files"
	echo
}

# stop stops the demo started last.
stop() {
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	pid=
}

: >"$tmp/server.out"
get_path='catalog/items/42?page=2&sort=price&lang=de&q=caf%C3%A9'
post_path='api/orders/new'
body=$here/body1k.json
[ "$(wc -c <"$body")" -eq 1024 ] || { echo "run.sh: $body is not 1024 octets" >&2; exit 1; }

# url KIND ROUTE prints the URL of KIND's request on ROUTE (strict, open).
url() {
	case $1 in
	get) echo "$base/$2/$get_path" ;;
	post) echo "$base/$2/$post_path" ;;
	esac
}

# probe KIND ROUTE checks with curl that the request answers exactly 200
# with the JSON echo of the path (and of the decoded body for post).
probe() {
	local code out=$tmp/probe.json
	case $1 in
	get) code=$(curl -s -o "$out" -w '%{http_code}' "$(url get "$2")") ;;
	post) code=$(curl -s -o "$out" -w '%{http_code}' -H 'Content-Type: application/json' \
		--data-binary "@$body" "$(url post "$2")") ;;
	esac
	if [ "$code" != 200 ]; then
		echo "run.sh: $1 /$2/ answered $code, want 200: $(head -c 300 "$out")" >&2
		return 1
	fi
	if ! grep -q "\"path\":\"/$2/" "$out" || { [ "$1" = post ] && ! grep -q '"json":{' "$out"; }; then
		echo "run.sh: $1 /$2/ answered 200 but not the expected echo: $(head -c 300 "$out")" >&2
		return 1
	fi
}

# wrkrun KIND ROUTE DURATION OUT runs wrk once, its output to OUT.
wrkrun() {
	local script=()
	[ "$1" = get ] || script=(-s "$here/post.lua")
	WRK_BODY=$body taskset -c "$wrk_cpu" wrk -t1 -c"$conns" -d"$3" ${script[@]+"${script[@]}"} "$(url "$1" "$2")" >"$4" 2>&1
}

# cputicks prints the CPU time the server has used, user and system, in
# clock ticks of $hz per second (/proc/PID/stat, fields 14 and 15). Per
# request it is the server's own cost, which time stolen from the VM does
# not inflate as it does the wall-clock rate.
hz=$(getconf CLK_TCK)
cputicks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }

# median of the numbers on stdin.
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) exit 1; if (NR % 2) printf "%.0f", v[(NR + 1) / 2]; else printf "%.0f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

status=0 verdicts=()
for ver in ${echoes//,/ }; do
	start "$ver"
	for kind in ${kinds//,/ }; do
		ok=1
		probe "$kind" strict || ok=0
		probe "$kind" open || ok=0
		[ $ok = 1 ] || exit 1
		if [ "$kind" = get ]; then
			echo "$ver get:  taskset -c $wrk_cpu wrk -t1 -c$conns -d$duration '$(url get '{strict,open}')'"
		else
			echo "$ver post: taskset -c $wrk_cpu wrk -t1 -c$conns -d$duration -s bench/wrk/post.lua '$(url post '{strict,open}')'"
		fi
		if [ "$warmup" != 0s ]; then
			wrkrun "$kind" strict "$warmup" "$tmp/warm"
			wrkrun "$kind" open "$warmup" "$tmp/warm"
		fi
		: >"$tmp/$kind.strict" ; : >"$tmp/$kind.open" ; : >"$tmp/$kind.ratios" ; : >"$tmp/$kind.cpuratios"
		printf '  %-6s %12s %12s %8s   %s\n' round strict open ratio 'server CPU per request: strict, open, open/strict'
		for ((r = 1; r <= rounds; r++)); do
			# A-B-B-A: a drift of the machine's speed that is linear over the
			# round hits both routes alike.
			if ((r % 2)); then order=(strict open open strict); else order=(open strict strict open); fi
			declare -A rps=() cpu=() ticks=() reqs=()
			for k in 0 1 2 3; do
				route=${order[k]}
				out=$tmp/wrk.$kind.$route.$r.$k
				t0=$(cputicks)
				wrkrun "$kind" "$route" "$duration" "$out"
				t1=$(cputicks)
				[ -z "$keep" ] || cp "$out" "$keep/$ver.$kind.$route.$r.$k.txt"
				v=$(awk '/^Requests\/sec:/ {print $2}' "$out")
				if [ -z "$v" ]; then
					echo "run.sh: no Requests/sec from wrk:" >&2
					cat "$out" >&2
					exit 1
				fi
				bad=$(awk '/Non-2xx or 3xx responses:/ {print $NF}' "$out")
				if [ -n "$bad" ] && [ "$bad" != 0 ]; then
					echo "  FAIL: $kind /$route/ round $r: $bad responses of status >= 400" >&2
					status=1
				fi
				sock=$(grep 'Socket errors:' "$out" || true)
				if [ -n "$sock" ]; then
					echo "  FAIL: $kind /$route/ round $r: ${sock#"${sock%%[! ]*}"}" >&2
					status=1
				fi
				rps[$route]=$(awk -v a="${rps[$route]:-0}" -v v="$v" 'BEGIN { printf "%.3f", a + v / 2 }')
				ticks[$route]=$((${ticks[$route]:-0} + t1 - t0))
				reqs[$route]=$((${reqs[$route]:-0} + $(awk '/ requests in / {print $1}' "$out")))
			done
			for route in strict open; do
				echo "${rps[$route]}" >>"$tmp/$kind.$route"
				cpu[$route]=$(awk -v t="${ticks[$route]}" -v hz="$hz" -v n="${reqs[$route]}" 'BEGIN { printf "%.3f", t * 1e6 / hz / n }')
			done
			rr=$(awk -v s="${rps[strict]}" -v o="${rps[open]}" 'BEGIN { printf "%.6f", s / o }')
			echo "$rr" >>"$tmp/$kind.ratios"
			cr=$(awk -v s="${cpu[strict]}" -v o="${cpu[open]}" 'BEGIN { printf "%.6f", o / s }')
			echo "$cr" >>"$tmp/$kind.cpuratios"
			printf '  %-6s %12.0f %12.0f %8.3f   %6.2f µs %6.2f µs %6.3f   (%s first)\n' "$r" "${rps[strict]}" "${rps[open]}" "$rr" \
				"${cpu[strict]}" "${cpu[open]}" "$cr" "${order[0]}"
			unset rps cpu ticks reqs
		done
		ms=$(median <"$tmp/$kind.strict")
		mo=$(median <"$tmp/$kind.open")
		mratio=$(awk -v s="$ms" -v o="$mo" 'BEGIN { printf "%.3f", s / o }')
		# The median of the rounds' ratios: the two runs of a round are next
		# to each other in time, so a drift of the machine's speed (another
		# job, a throttled core) cancels out of it.
		ratio=$(sort -g "$tmp/$kind.ratios" | awk '{ v[NR] = $1 } END { if (NR % 2) printf "%.3f", v[(NR + 1) / 2]; else printf "%.3f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
		printf '  %-6s %12s %12s %8s   (ratio of the medians)\n' median "$ms" "$mo" "$mratio"
		printf '  %-6s %12s %12s %8s   (median of the rounds'"'"' ratios: the verdict)\n' '' '' '' "$ratio"
		cratio=$(sort -g "$tmp/$kind.cpuratios" | awk '{ v[NR] = $1 } END { if (NR % 2) printf "%.3f", v[(NR + 1) / 2]; else printf "%.3f", (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
		printf '  %-6s %12s %12s %8s   (median of the rounds'"'"' open/strict server CPU per request)\n' '' '' '' "$cratio"
		if awk -v x="$ratio" 'BEGIN { exit !(x >= 0.95) }'; then
			verdicts+=("$ver $kind $ratio >= 0.95 ok")
		else
			verdicts+=("$ver $kind $ratio < 0.95 BELOW")
			[ -z "$check" ] || status=1
		fi
		probe "$kind" strict || status=1
		probe "$kind" open || status=1
		echo
	done
	stop
done

logs=$(wc -l <"$tmp/server.out")
echo "server log lines (stdout): $logs"
[ "$logs" = 0 ] || { echo "  first: $(head -c 300 "$tmp/server.out")"; }
echo "load:     $(cut -d' ' -f1-3 /proc/loadavg) (1, 5, 15 min) after the runs"
below=0 summary=
for v in "${verdicts[@]}"; do
	case $v in *BELOW) below=1 ;; esac
	summary+=${summary:+; }$v
done
if [ $below = 0 ]; then
	echo "verdict: median round ratio strict/open >= 0.95 for every kind and Echo version ($summary)"
else
	echo "verdict: median round ratio strict/open below 0.95 for some kind or Echo version ($summary)"
fi
[ $status = 0 ] || echo "FAIL: see the lines above" >&2
exit $status
