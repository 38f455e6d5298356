#!/usr/bin/env bash
# remote_deadline: a frozen server (it takes requests and never answers) bounds every
# FUSE operation on a remote store: with -o timeout=SEC a lookup, a listing or a read
# fails with EIO within the documented bound (rockfs(8), docs/remote-stores.md: about
# SEC, retries included; checked here against 2*SEC+2 s, a correctness bound with room
# for a loaded machine, not a performance figure), the log says why, the daemon stays
# up, and the same mount reads right once the server answers again.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../remote/remote.sh"
it_init "$@"
command -v nginx >/dev/null || skip "nginx is not installed (packaging/install-deps.sh)"

P=$(rt_free_port)
rt_nginx web "
	server {
		listen 127.0.0.1:$P;
		location /store/ { alias $STORE/; autoindex on; }
	}"
rt_wait_http "http://127.0.0.1:$P/store/"
rt_proxy fp "http://127.0.0.1:$P"
URL=http://127.0.0.1:$RT_PORT/store/
SCHED=$T/fp.schedule
SEC=4
BOUND=$((SEC + 2))
unset http_proxy https_proxy HTTPS_PROXY all_proxy ALL_PROXY

it_mount local "$STORE" "$T/local" "$T/cache-local"
runs=$(cd "$STORE" && ls -d [0-9]*-* | sort)
run=$(head -n 1 <<<"$runs")
run2=$(tail -n 1 <<<"$runs")
[ "$run" != "$run2" ] || die "the demo store should hold two runs"

# timed NAME CMD...: run CMD (expected to fail with EIO) and check the time it took
timed() {
	local what=$1 t0 t1 ms rc=0
	shift
	t0=$(date +%s%N)
	"$@" >/dev/null 2>"$T/timed.err" || rc=$?
	t1=$(date +%s%N)
	ms=$(((t1 - t0) / 1000000))
	it_say "$what: exit $rc after $ms ms (bound $((BOUND * 1000)) ms)"
	[ "$rc" -ne 0 ] || fail "$what: succeeded through a frozen server"
	grep -q 'Input/output error' "$T/timed.err" || fail "$what: $(cat "$T/timed.err") (want EIO)"
	[ "$ms" -lt $((BOUND * 1000)) ] ||
		fail "$what: took $ms ms with timeout=$SEC (bound: $BOUND s, retries included)"
}

for retries in 6 0; do
	echo ok >"$SCHED"
	name=r$retries
	it_mount $name "$URL" "$T/$name" "$T/cache-$name" -o "timeout=$SEC,retries=$retries"
	ls "$T/$name/$run/browse" >/dev/null || fail "$name: listing before the freeze failed"
	stem=$(ls "$T/$name/$run/browse" | head -n1)
	file=$(cd "$T/local/$run/browse/$stem" && find . -type f | sort | head -n1)
	echo freeze >"$SCHED"
	# a read that needs the archive (the ingest streams it)
	timed "$name: read of browse/$stem/$file" cat "$T/$name/$run/browse/$stem/$file"
	# a listing of a run not listed yet
	timed "$name: listing of $run2" ls "$T/$name/$run2"
	# a download that stops a quarter of the way in (headers and some bytes, then nothing):
	# a file near the end of the largest archive
	big=$(cd "$STORE/$run" && ls -S -- *.tar.zst | head -n 1)
	last=$(zstd -dc "$STORE/$run/$big" | tar -tv | awk '$1 ~ /^-/ { f = $NF } END { print f }')
	echo ok,stall >"$SCHED" # the .sha256sum answers, the archive stalls (and each retry)
	timed "$name: read of browse/${big%.tar.zst}/$last (stalled download)" \
		cat "$T/$name/$run/browse/${big%.tar.zst}/$last"
	grep -qE "giving up|no data" "${IT_LOG[$name]}" || fail "$name: the daemon did not log the timeout"
	it_alive $name || true
	echo ok >"$SCHED"
	cmp "$T/local/$run/browse/$stem/$file" "$T/$name/$run/browse/$stem/$file" ||
		fail "$name: after the freeze: wrong bytes (or EIO) from a server that answers again"
	cmp "$T/local/$run/browse/${big%.tar.zst}/$last" "$T/$name/$run/browse/${big%.tar.zst}/$last" ||
		fail "$name: after the stall: wrong bytes (or EIO) from a server that answers again"
	ls "$T/$name/$run2/browse" >/dev/null || fail "$name: after the freeze: $run2 unlisted"
	it_umount $name
done
[ "$(rt_count "$T/fp.log" '^REQ GET .* freeze ')" -gt 0 ] || fail "the proxy never froze"
[ "$(rt_count "$T/fp.log" '^REQ GET .*tar.zst stall ')" -gt 0 ] || fail "the proxy never stalled a download"
it_umount local
it_finish
