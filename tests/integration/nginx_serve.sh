#!/usr/bin/env bash
# nginx_serve: the shipped packaging/nginx-rockfs.conf (only its port and root changed)
# serving a mount of the demo store with the real nginx on 127.0.0.1, and the clients
# machines without FUSE would use:
#  - nginx -t accepts the file, and nginx logs no warning while serving;
#  - listings: autoindex for plain directories, the python view's index.html as the
#    index of simple/ and simple/<project>/; a write method is refused (405);
#  - Cache-Control: a minute for the store root, run listings and index pages, a year
#    and immutable for files under a run; Content-Type for .deb, .rpm, .whl, .tar.zst,
#    .tar.gz, .metadata, README and the PEP 503 pages;
#  - curl -r: ranges of a tarball (206, Content-Range) equal the mount's bytes (dd), and
#    the whole file equals it too;
#  - pip install --index-url http://.../RUN/python/simple/ into a fresh venv, offline;
#  - apt-get update + install from http://.../RUN/packages/deb into a throwaway root;
#  - dnf --installroot from http://.../RUN/packages/rpm/x86_64 (as root).
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../remote/remote.sh"
it_init "$@"
CONF=$(cd "$(dirname "$0")/../.." && pwd)/packaging/nginx-rockfs.conf
for tool in nginx curl dd dpkg apt-get; do
	command -v $tool >/dev/null || skip "$tool is not installed (packaging/install-deps.sh --tests)"
done
PY=/usr/bin/python3
it_need_venv "$PY"
# loopback only: no proxy from the environment, no pip configuration
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PIP_CONFIG_FILE=/dev/null
SPLIT=24205988455-linux
LEGACY=24205988454-linux
VER=7.13.0.dev0+abc1234

M=$T/mnt
it_mount fs "$STORE" "$M" "$T/cache"

# the shipped file, with the two EDIT lines set
P=$(rt_free_port)
sed -e "s|^\(\s*\)listen 8080;|\1listen 127.0.0.1:$P;|" -e "s|^\(\s*\)root /mnt/rock;|\1root $M;|" \
	"$CONF" >"$T/rockfs.conf"
[ "$(diff "$CONF" "$T/rockfs.conf" | grep -c '^>')" = 2 ] ||
	die "the EDIT lines (listen 8080; root /mnt/rock;) of $CONF were not found"
rt_nginx ng "include $T/rockfs.conf;"
NGPID=${IT_BG[-1]}
U=http://127.0.0.1:$P
rt_wait_http "$U/"
nginx -t -c "$T/ng/nginx.conf" -p "$T/ng" >"$T/nginx-t.log" 2>&1 ||
	{ cat "$T/nginx-t.log" >&2; fail "nginx -t rejects the configuration"; }

# hdr URL NAME: the value of one response header of a HEAD request
hdr() {
	curl -sI "$1" | tr -d '\r' | sed -n "s/^$2: //Ip" | sed -n 1p
}
SHORT="public, max-age=60"
LONG="public, max-age=31536000, immutable"
TB=therock-dist-linux-gfx110X-all-$VER
WHL=rocm_sdk_core-$VER-py3-none-linux_x86_64.whl
DEB=$(cd "$M/$SPLIT/packages/deb/pool/main" && find . -name '*.deb' -print -quit)
RPM=$(cd "$M/$SPLIT/packages/rpm/x86_64" && find . -maxdepth 1 -name '*.rpm' -printf '%f\n' -quit)
[ -n "$DEB" ] && [ -n "$RPM" ] || fail "the demo's packages view has no .deb or .rpm"
ART=$(cd "$M/$SPLIT/artifacts" && find . -maxdepth 1 -name '*.tar.zst' -printf '%f\n' -quit)

# ---- listings, caching headers, types ----
curl -sf "$U/" >"$T/root.html" || fail "GET / failed"
for r in $SPLIT $LEGACY README; do
	grep -q "href=\"$r/\?\"" "$T/root.html" || fail "the root listing lacks $r"
done
curl -sf "$U/README" | cmp -s - "$M/README" || fail "GET /README differs from the mount's"
curl -sf "$U/$SPLIT/browse/" | grep -q '<title>Index of' || fail "browse/ is not autoindexed"
curl -sf "$U/$SPLIT/python/simple/" | cmp -s - "$M/$SPLIT/python/simple/index.html" ||
	fail "simple/ is not served by its index.html"
curl -sf "$U/$SPLIT/python/simple/rocm-sdk-core/" |
	cmp -s - "$M/$SPLIT/python/simple/rocm-sdk-core/index.html" ||
	fail "simple/rocm-sdk-core/ is not served by its index.html"
# a symbolic link inside the mount (libfoo.so -> libfoo.so.1) is served as its target
L=$(cd "$M/$SPLIT/dist/gfx110X-all" && find . -type l -xtype f -print -quit)
if [ -z "$L" ]; then
	fail "the demo's dist/gfx110X-all has no symbolic link to a file"
else
	curl -sf "$U/$SPLIT/dist/gfx110X-all/${L#./}" | cmp -s - "$M/$SPLIT/dist/gfx110X-all/$L" ||
		fail "the symbolic link dist/gfx110X-all/${L#./} is not served as its target"
fi
code=$(curl -s -o /dev/null -w '%{http_code}' -X PUT --data x "$U/$SPLIT/x")
[ "$code" = 405 ] || fail "PUT answered $code, want 405"
code=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "$U/$SPLIT/python/simple/index.html")
[ "$code" = 405 ] || fail "DELETE answered $code, want 405"

while read -r want path; do
	got=$(hdr "$U$path" Cache-Control)
	case $want in short) w=$SHORT ;; long) w=$LONG ;; esac
	[ "$got" = "$w" ] || fail "Cache-Control of $path: '$got', want '$w'"
done <<EOF
short /
short /README
short /$SPLIT/
short /$SPLIT/browse/
short /$SPLIT/python/simple/
short /$SPLIT/python/simple/rocm-sdk-core/
short /$SPLIT/packages/deb/dists/stable/Release
short /$SPLIT/packages/rpm/x86_64/repodata/repomd.xml
long /$SPLIT/tarballs/$TB.tar.zst
long /$SPLIT/artifacts/$ART
long /$SPLIT/python/files/$WHL
long /$SPLIT/packages/rpm/x86_64/$RPM
long /$SPLIT/packages/deb/pool/main/${DEB#./}
EOF
while read -r path want; do
	got=$(hdr "$U$path" Content-Type)
	[ "$got" = "$want" ] || fail "Content-Type of $path: '$got', want '$want'"
done <<EOF
/$SPLIT/packages/deb/pool/main/${DEB#./} application/vnd.debian.binary-package
/$SPLIT/packages/rpm/x86_64/$RPM application/x-rpm
/$SPLIT/python/files/$WHL application/x-wheel+zip
/$SPLIT/python/files/$WHL.metadata text/plain; charset=utf-8
/$SPLIT/tarballs/$TB.tar.zst application/zstd
/$SPLIT/artifacts/$ART application/zstd
/$SPLIT/tarballs/$TB.tar.gz application/gzip
/$SPLIT/tarballs/$TB.tar application/x-tar
/$SPLIT/python/simple/ text/html; charset=utf-8
/$SPLIT/python/simple/rocm-sdk-core/ text/html; charset=utf-8
/README text/plain; charset=utf-8
/$SPLIT/packages/deb/dists/stable/Release text/plain; charset=utf-8
/$SPLIT/packages/rpm/x86_64/repodata/repomd.xml text/xml; charset=utf-8
EOF
# a run that appears later is not cached as missing: 404 without Cache-Control
[ -z "$(curl -sI "$U/99999999999-linux/" | grep -i '^Cache-Control')" ] ||
	fail "a 404 carries Cache-Control"

# ---- ranges of tarballs equal the mount's bytes ----
for tb in $TB.tar $TB.tar.zst; do
	F=$M/$SPLIT/tarballs/$tb
	S=$(stat -c %s "$F")
	[ "$S" -gt 65536 ] || fail "$tb is only $S bytes: the ranges below test little"
	for r in 0-0 0-99 1000-40000 32768-65535 $((S / 2))-$((S / 2 + 30000)) \
		$((S - 100))-$((S - 1)) $((S - 50))-$((S + 50)) -4096 $((S - 10))-; do
		curl -sf -r "$r" -D "$T/range.hdr" -o "$T/range.got" "$U/$SPLIT/tarballs/$tb" ||
			{ fail "$tb: curl -r $r failed"; continue; }
		case $r in
		-*) a=$((S - ${r#-})) b=$((S - 1)) ;;
		*-) a=${r%-} b=$((S - 1)) ;;
		*) a=${r%-*} b=${r#*-} ;;
		esac
		[ "$b" -lt "$S" ] || b=$((S - 1))
		dd if="$F" iflag=skip_bytes,count_bytes skip="$a" count=$((b - a + 1)) status=none >"$T/range.want"
		cmp -s "$T/range.want" "$T/range.got" || fail "$tb: curl -r $r: not the mount's bytes $a-$b"
		grep -q "^HTTP/1.1 206" "$T/range.hdr" || fail "$tb: curl -r $r: not a 206 answer"
		grep -qi "^Content-Range: bytes $a-$b/$S" "$T/range.hdr" || fail "$tb: curl -r $r: Content-Range"
	done
	curl -sf "$U/$SPLIT/tarballs/$tb" | cmp -s - "$F" || fail "GET $tb: not the mount's bytes"
done
curl -sf "$U/$SPLIT/tarballs/$TB.tar.gz" | cmp -s - "$M/$SPLIT/tarballs/$TB.tar.gz" ||
	fail "GET $TB.tar.gz: not the mount's bytes"

# ---- pip, from the run's simple/ over HTTP, offline ----
V=$T/venv
it_venv "$PY" "$V" || die "venv"
"$V/bin/pip" install --no-cache-dir --disable-pip-version-check --no-input \
	--index-url "$U/$SPLIT/python/simple/" rocm-sdk-device-gfx1100 >"$T/pip.log" 2>&1 ||
	{ fail "pip install --index-url $U/$SPLIT/python/simple/"; tail -n 20 "$T/pip.log" >&2; }
{ "$V/bin/pip" list --format=freeze 2>/dev/null | grep '^rocm' || true; } | sort >"$T/installed"
printf 'rocm-sdk-core==%s\nrocm-sdk-device-gfx1100==%s\nrocm-sdk-libraries==%s\n' $VER $VER $VER \
	>"$T/installed.want"
it_same "pip install over HTTP: installed packages" "$T/installed.want" "$T/installed"
"$V/bin/python" -c 'import rocm_sdk_core, rocm_sdk_libraries' || fail "installed packages do not import"
grep -qE "^REQ GET /$SPLIT/python/files/rocm_sdk_device_gfx1100-[^ ]*\.whl 200 " "$T/ng/access.log" ||
	fail "pip did not fetch the wheel from nginx"

# ---- apt, from the run's packages/deb over HTTP, into a throwaway root ----
A=$T/apt-root
. "$(dirname "$0")/../apt_sandbox.sh"
apt_root "$A" "$U/$SPLIT/packages/deb"
apt_sb() { sh "$A/apt.sh" "$@"; }
if apt_sb update >"$T/apt-update.log" 2>&1; then
	grep -qE '^(W|E):' "$T/apt-update.log" && { cat "$T/apt-update.log" >&2; fail "apt-get update warned"; }
	if apt_sb install -y amdrocm-blas7.13-gfx1100 >"$T/apt-install.log" 2>&1; then
		dpkg --root="$A" -l | awk '/^ii/ {print $2}' >"$T/apt-installed"
		grep -qx 'amdrocm-blas7.13-gfx1100' "$T/apt-installed" || fail "apt: the device package is not installed"
		grep -q '^amdrocm-blas-host7.13' "$T/apt-installed" || fail "apt: its host package was not pulled"
		# the installed files are those of the packages the mount serves
		for p in $(grep '^amdrocm' "$T/apt-installed"); do
			deb=$(find "$M/$SPLIT/packages/deb/pool" -name "${p}_*.deb" -print -quit)
			mkdir -p "$T/x/$p"
			dpkg-deb -x "$deb" "$T/x/$p"
			dpkg --root="$A" -L "$p" | while read -r f; do
				[ -f "$A$f" ] && [ ! -L "$A$f" ] || continue
				cmp -s "$A$f" "$T/x/$p$f" || echo "$p: $f"
			done
		done >"$T/apt.diff"
		[ -s "$T/apt.diff" ] && { head "$T/apt.diff" >&2; fail "apt: installed files differ from the packages"; }
	else
		cat "$T/apt-install.log" >&2
		fail "apt-get install amdrocm-blas7.13-gfx1100 over HTTP"
	fi
else
	cat "$T/apt-update.log" >&2
	fail "apt-get update from $U/$SPLIT/packages/deb"
fi
grep -qE "^REQ GET /$SPLIT/packages/deb/pool/[^ ]*amdrocm-blas7\.13-gfx1100_[^ ]*\.deb 200 " "$T/ng/access.log" ||
	fail "apt did not fetch the .deb from nginx"

# ---- dnf, from the run's packages/rpm/x86_64 over HTTP ----
if [ "$(id -u)" != 0 ] || ! command -v dnf >/dev/null || ! command -v rpmbuild >/dev/null; then
	it_say "dnf part skipped (needs root, dnf and rpmbuild)"
else
	R=$T/dnf-root
	rpm_distro_standin "$R" "$M/$SPLIT/packages/rpm/x86_64" # what the RPMs need of a distribution
	if dnf -y -q --installroot="$R" --releasever=1 --setopt=reposdir=/dev/null \
		--setopt=cachedir="$R.cache" --setopt=install_weak_deps=False --nogpgcheck \
		--setopt=proxy= --disableplugin='*' --repofrompath=rock,"$U/$SPLIT/packages/rpm/x86_64" \
		--repo=rock install amdrocm-blas7.13-gfx1100 >"$T/dnf.log" 2>&1; then
		rpm -q --root="$R" amdrocm-blas7.13-gfx1100 >/dev/null || fail "dnf: the device package is not installed"
		rpm -q --root="$R" amdrocm-blas-host7.13 >/dev/null || fail "dnf: its host package was not pulled"
		rpm -V --root="$R" amdrocm-blas7.13-gfx1100 amdrocm-blas-host7.13 >"$T/rpmV.log" 2>&1 ||
			{ head "$T/rpmV.log" >&2; fail "rpm -V: installed files do not match the packages"; }
	else
		cat "$T/dnf.log" >&2
		fail "dnf install amdrocm-blas7.13-gfx1100 over HTTP"
	fi
	grep -qE "^REQ GET /$SPLIT/packages/rpm/x86_64/amdrocm-blas7\.13-gfx1100-[^ ]*\.rpm 200 " "$T/ng/access.log" ||
		fail "dnf did not fetch the .rpm from nginx"
fi

# ---- nginx and the daemon stayed quiet ----
if grep -nE '\[(warn|error|crit|alert|emerg)\]' "$T/ng/error.log" "$T/nginx-t.log" >&2; then
	fail "nginx logged warnings or errors"
fi
# nginx holds files open (open_file_cache): stop it before unmounting
kill -QUIT "$NGPID"
it_wait_exit "$NGPID" 20 || fail "nginx did not exit"
it_quiet_log fs
it_umount fs
it_finish
