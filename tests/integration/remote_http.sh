#!/usr/bin/env bash
# remote_http: http:// stores and a shared caching proxy, with nginx from Debian:
#  - nginx autoindex serving the demo store (index none.html: a stored index.html is a
#    plain file there, as in S3): the mount equals the local-directory mount
#    (names, types, sizes, every byte of every view);
#  - a run with a TheRock-style generated index.html (generate_s3_index.py: url-quoted
#    hrefs, name/index.html for subdirectories), autoindex off: the same; a stale
#    index.html listing a file the server lacks: that file left out, one warning;
#  - nginx as a caching proxy in front of s3rver, used by two mounts through http_proxy
#    (libcurl's proxy environment): the second mount's cold reads are served by the proxy
#    (no archive reaches the S3 server twice), and both mounts read the right bytes.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../remote/remote.sh"
it_init "$@"
command -v nginx >/dev/null || skip "nginx is not installed (packaging/install-deps.sh)"
command -v curl >/dev/null || skip "curl is not installed"

# a TheRock-style tree: one run, with generated index.html files and autoindex off
RUN=24205988455-linux
mkdir -p "$T/www/therock"
cp -r "$STORE/$RUN" "$T/www/therock/"
python3 - "$T/www/therock/$RUN" <<'EOP'
import os, sys, urllib.parse
for d, dirs, files in os.walk(sys.argv[1]):
    rows = ['<tr><td><a href="%s/index.html">%s/</a></td><td>-</td></tr>' % (urllib.parse.quote(n), n)
            for n in sorted(dirs)]
    rows += ['<tr><td><a href="%s">%s</a></td><td>%d</td></tr>'
             % (urllib.parse.quote(n), n, os.path.getsize(os.path.join(d, n))) for n in sorted(files)]
    with open(os.path.join(d, "index.html"), "w") as f:
        f.write("<html><body><table>\n%s\n</table></body></html>\n" % "\n".join(rows))
EOP
# the same with a stale index.html: it lists a file the server does not have
mkdir -p "$T/www/stale"
cp -r "$T/www/therock/$RUN" "$T/www/stale/"
sed -i 's|</table>|<tr><td><a href="ghost_lib_generic.tar.zst">ghost_lib_generic.tar.zst</a></td><td>1</td></tr>\n</table>|' \
	"$T/www/stale/$RUN/index.html"

P=$(rt_free_port)
rt_nginx ngweb "
	server {
		listen 127.0.0.1:$P;
		location /store/ { alias $STORE/; autoindex on; index none.html; }
		location /therock/ { root $T/www; index index.html; }
		location /raw/ { alias $T/www/therock/; autoindex off; index none.html; }
		location /stale/ { root $T/www; index index.html; }
	}"
rt_wait_http "http://127.0.0.1:$P/store/"

it_mount local "$STORE" "$T/local" "$T/cache-local"
rt_tree "$T/local" >"$T/local.tree"
it_sums "$T/local" >"$T/local.sums"

it_mount web "http://127.0.0.1:$P/store/" "$T/web" "$T/cache-web"
rt_tree "$T/web" >"$T/web.tree"
it_same "nginx autoindex: names, types and sizes" "$T/local.tree" "$T/web.tree"
it_sums "$T/web" >"$T/web.sums"
it_same "nginx autoindex: sha256 of every file" "$T/local.sums" "$T/web.sums"
it_alive web
it_umount web
it_quiet_log web

it_mount local1 "$STORE/$RUN" "$T/local1" "$T/cache-local1"
it_mount therock "http://127.0.0.1:$P/therock/$RUN" "$T/therock" "$T/cache-therock"
rt_tree "$T/local1" | grep -v '^f [0-9]* ./artifacts/index.html$' >"$T/local1.tree"
rt_tree "$T/therock" | grep -v '^f [0-9]* ./artifacts/index.html$' >"$T/therock.tree"
it_same "TheRock index.html: names, types and sizes" "$T/local1.tree" "$T/therock.tree"
for v in browse dist tarballs; do
	it_sums "$T/local1/$v" >"$T/local1.$v.sums"
	it_sums "$T/therock/$v" >"$T/therock.$v.sums"
	it_same "TheRock index.html: $v/" "$T/local1.$v.sums" "$T/therock.$v.sums"
done
it_umount therock
it_quiet_log therock
# a server without directory indexes (403 for dir/, like S3 itself): dir/index.html
it_mount raw "http://127.0.0.1:$P/raw/$RUN" "$T/raw" "$T/cache-raw"
rt_tree "$T/raw" | grep -v '^f [0-9]* ./artifacts/index.html$' >"$T/raw.tree"
it_same "no directory index (dir/index.html): names, types and sizes" "$T/local1.tree" "$T/raw.tree"
it_sums "$T/raw/browse" >"$T/raw.browse.sums"
it_same "no directory index: browse/" "$T/local1.browse.sums" "$T/raw.browse.sums"
grep -q '^REQ GET /raw/.*/ 403 ' "$T/ngweb/access.log" ||
	fail "the server without directory index never answered 403"
it_umount raw
# the stale index: the missing file is left out with one warning, the rest is served
it_mount stale "http://127.0.0.1:$P/stale/$RUN" "$T/stale" "$T/cache-stale"
rt_tree "$T/stale" | grep -v '^f [0-9]* ./artifacts/index.html$' >"$T/stale.tree"
it_same "stale index.html: names, types and sizes" "$T/local1.tree" "$T/stale.tree"
it_sums "$T/stale/browse" >"$T/stale.browse.sums"
it_same "stale index.html: browse/" "$T/local1.browse.sums" "$T/stale.browse.sums"
[ "$(grep -c "ghost_lib_generic.tar.zst'.*(404)" "${IT_LOG[stale]}")" = 1 ] ||
	fail "want one warning for the file the index lists but the server lacks"
it_umount stale
it_umount local1

# two mounts sharing a caching proxy in front of the S3 server
rt_need_s3rver
rt_s3rver s3 "$STORE" therock-ci-artifacts
S3P=$RT_PORT
PP=$(rt_free_port)
rt_nginx proxy "
	server {
		listen 127.0.0.1:$PP;
		location / {
			proxy_pass http://127.0.0.1:$S3P;
			proxy_cache rt;
			proxy_cache_valid 200 1h;
			proxy_cache_lock on;
			proxy_set_header Host \$http_host;
		}
	}"
rt_wait_http "http://127.0.0.1:$PP/therock-ci-artifacts?list-type=2"
export http_proxy=http://127.0.0.1:$PP
unset no_proxy NO_PROXY
EP=http://127.0.0.1:$S3P
it_mount a s3://therock-ci-artifacts "$T/a" "$T/cache-a" -o "endpoint=$EP"
it_sums "$T/a/$RUN/browse" >"$T/a.sums"
it_sums "$T/local/$RUN/browse" >"$T/want.sums"
it_same "mount a through the caching proxy" "$T/want.sums" "$T/a.sums"
na=$(rt_count "$T/s3.log" '\.tar\.(zst|xz) ')
[ "$na" -gt 0 ] || fail "mount a: no archive reached the S3 server (was the proxy bypassed?)"
nproxy=$(rt_count "$T/proxy/access.log" '\.tar\.(zst|xz) ')
[ "$nproxy" -ge "$na" ] || fail "mount a: the proxy saw $nproxy archive requests, the server $na"

it_mount b s3://therock-ci-artifacts "$T/b" "$T/cache-b" -o "endpoint=$EP"
it_sums "$T/b/$RUN/browse" >"$T/b.sums"
it_same "mount b through the caching proxy" "$T/want.sums" "$T/b.sums"
nb=$(rt_count "$T/s3.log" '\.tar\.(zst|xz) ')
[ "$nb" -eq "$na" ] || fail "mount b's cold reads reached the S3 server ($((nb - na)) archive requests)"
hits=$(rt_count "$T/proxy/access.log" '\.tar\.(zst|xz) .* HIT$')
[ "$hits" -gt 0 ] || fail "the proxy served no archive from its cache"
it_umount a
it_umount b
it_quiet_log a
it_quiet_log b
unset http_proxy

it_umount local
it_finish
