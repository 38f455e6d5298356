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
	# s3rver makes continuation tokens with DES, which OpenSSL 3 keeps in its legacy provider
	NODE_OPTIONS=--openssl-legacy-provider NODE_PATH=$RT_NPM/node_modules node "$RT_DIR/s3rver_run.js" "$T/$name.data" "$dir" \
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

# rt_free_port: a TCP port nothing listens on now (for servers that cannot pick their own).
rt_free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

# rt_nginx NAME SERVER_BLOCKS: nginx in the foreground with the given server { } blocks
# (ports chosen by the caller), its temp files, logs and cache under $T/NAME.
rt_nginx() {
	local name=$1 servers=$2 d=$T/$1 user="" i
	command -v nginx >/dev/null || skip "nginx is not installed (packaging/install-deps.sh)"
	mkdir -p "$d/tmp" "$d/cache"
	[ "$(id -u)" = 0 ] && user="user root;"
	cat >"$d/nginx.conf" <<EOC
$user
daemon off;
worker_processes 1;
pid $d/nginx.pid;
error_log $d/error.log info;
events { worker_connections 256; }
http {
	include /etc/nginx/mime.types;
	default_type application/octet-stream;
	log_format rt 'REQ \$request_method \$request_uri \$status \$upstream_cache_status';
	access_log $d/access.log rt;
	client_body_temp_path $d/tmp/body;
	proxy_temp_path $d/tmp/proxy;
	fastcgi_temp_path $d/tmp/fastcgi;
	uwsgi_temp_path $d/tmp/uwsgi;
	scgi_temp_path $d/tmp/scgi;
	proxy_cache_path $d/cache levels=1:2 keys_zone=rt:10m max_size=1g inactive=1h use_temp_path=off;
	sendfile on;
	$servers
}
EOC
	nginx -e "$d/error.log" -c "$d/nginx.conf" -p "$d" >"$d/stdout" 2>&1 &
	IT_BG+=($!)
	for ((i = 0; i < 300; i++)); do
		[ -s "$d/nginx.pid" ] && return 0
		pid_alive "${IT_BG[-1]}" || die "nginx did not start: $(cat "$d/error.log" "$d/stdout")"
		sleep 0.1
	done
	die "nginx did not start within 30 s"
}

# rt_wait_http URL: until the server answers (30 s at most).
rt_wait_http() {
	local i
	for ((i = 0; i < 300; i++)); do
		curl -s -o /dev/null "$1" && return 0
		sleep 0.1
	done
	die "'$1' does not answer"
}
