# remote.sh: helpers for the remote-store tests (tests/integration/remote_*.sh), on top of
# tests/integration/lib.sh. Servers run on 127.0.0.1 with free ports, are started by the
# test and killed by lib.sh's exit trap (IT_BG).
#   rt_need_s3rver              install s3rver from the npm registry into the build tree
#                               (once, under a lock); skip (77) when node, npm or the
#                               registry is unavailable
#   rt_s3rver NAME DIR BUCKET   serve DIR as s3://BUCKET; sets RT_PORT; log $T/NAME.log
#   rt_proxy NAME UPSTREAM [--sigv4 K:S:R]   the fault proxy; sets RT_PORT; its schedule
#                               file is $T/NAME.schedule ("ok" to start)
#   rt_count LOG REGEX          requests in a server log whose line matches REGEX
#   rt_tree DIR                 "type size path" of everything under DIR (no mtimes)

RT_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

rt_need_s3rver() {
	command -v node >/dev/null || skip "node is not installed (packaging/install-deps.sh)"
	command -v npm >/dev/null || skip "npm is not installed (packaging/install-deps.sh)"
	RT_NPM=${RK_NPM_DIR:-$(dirname "$ROCKFS")/../test-npm}
	mkdir -p "$RT_NPM"
	RT_NPM=$(realpath "$RT_NPM")
	(
		flock 9
		if [ ! -f "$RT_NPM/node_modules/s3rver/package.json" ]; then
			it_say "installing s3rver from the npm registry into $RT_NPM"
			npm install --prefix "$RT_NPM" --no-audit --no-fund --no-save s3rver@3.7.1 \
				>"$RT_NPM/install.log" 2>&1 || exit 77
		fi
	) 9>"$RT_NPM/.lock" || {
		tail -n 5 "$RT_NPM/install.log" >&2 || true
		skip "cannot install s3rver from the npm registry"
	}
}

# rt_wait_port FILE PID: wait (30 s at most) for a server to write its port.
rt_wait_port() {
	local i
	for ((i = 0; i < 300; i++)); do
		if [ -s "$1" ]; then
			RT_PORT=$(cat "$1")
			return 0
		fi
		pid_alive "$2" || die "server (pid $2) exited before listening"
		sleep 0.1
	done
	die "server (pid $2) did not listen within 30 s"
}

rt_s3rver() {
	local name=$1 dir=$2 bucket=$3
	rm -f "$T/$name.port"
	NODE_PATH=$RT_NPM/node_modules node "$RT_DIR/s3rver_run.js" "$T/$name.data" "$dir" \
		"$bucket" "" "$T/$name.port" >"$T/$name.log" 2>&1 &
	IT_BG+=($!)
	rt_wait_port "$T/$name.port" $!
	grep -q '^READY' "$T/$name.log" || die "s3rver: $(cat "$T/$name.log")"
}

rt_proxy() {
	local name=$1 upstream=$2
	shift 2
	rm -f "$T/$name.port"
	echo ok >"$T/$name.schedule"
	python3 -u "$RT_DIR/faultproxy.py" "$upstream" "$T/$name.port" "$T/$name.schedule" "$@" \
		>"$T/$name.log" 2>&1 &
	IT_BG+=($!)
	rt_wait_port "$T/$name.port" $!
}

rt_count() {
	grep -cE "$2" "$1" || true
}

rt_tree() {
	(cd "$1" && find . -printf '%y %s %p\n' | LC_ALL=C sort -k3)
}
