#!/usr/bin/env bash
# install_release: `rockpack install --release V` and `--latest-release` against TheRock's
# own install_rocm_from_artifacts.py (vendored, upstream_therock/, offline through
# install_shim/), which downloads s3://therock-{nightly,dev}-tarball/v4/tarball/
# therock-dist-{platform}-{group}-{version}.tar.gz and extracts it (tarfile, filter="tar"):
# s3rver on loopback holds such buckets, made of the demo store's release tarballs under
# dev and nightly names; rockpack installs from the same buckets, from a local copy of
# one, and straight from the demo store (its release/tarball/ view); the trees must be
# the same file for file (bytes, modes, types, symlink targets, hardlinks, mtimes of
# files and directories). Then hostile tarballs (an attacker's release bucket): no
# entry may be written outside the output directory, whatever the archive holds.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../remote/remote.sh"
it_init "$@"
HERE=$(cd "$(dirname "$0")" && pwd)
BT=$HERE/upstream_therock/build_tools
python3 -c 'import boto3' 2>/dev/null || skip "python3 has no boto3 (packaging/install-deps.sh --tests: python3-boto3)"
rt_need_s3rver

V=7.13.0.dev0+abc1234 # the demo runs' version
"$ROCKPACK" -q --cache "$T/cache" release "$STORE" -o "$T/rel" --kind tarball || die "rockpack release failed"
for run in 24205988454 24205988455; do
	"$ROCKPACK" -q --cache "$T/cache" export "$STORE" $run-linux \
		tarballs/therock-dist-linux-gfx94X-dcgpu-$V.tar.gz -o "$T/t$run" || die "export of $run's tarball failed"
done
# the dev bucket: the release tarballs as they are; the nightly bucket: under nightly names,
# two days of gfx94X-dcgpu (different runs' contents), its -tests tarball of a later day,
# another platform's later still, a dev name (no date: sorts last, as upstream's)
mkdir -p "$T/dev/v4/tarball" "$T/nightly/v4/tarball"
cp "$T"/rel/tarball/*.tar.gz "$T/dev/v4/tarball/"
N=$T/nightly/v4/tarball
cp "$T/t24205988454/therock-dist-linux-gfx94X-dcgpu-$V.tar.gz" "$N/therock-dist-linux-gfx94X-dcgpu-7.11.0a20260119.tar.gz"
cp "$T/t24205988455/therock-dist-linux-gfx94X-dcgpu-$V.tar.gz" "$N/therock-dist-linux-gfx94X-dcgpu-7.11.0a20260120.tar.gz"
cp "$T/rel/tarball/therock-dist-linux-gfx94X-dcgpu-tests-$V.tar.gz" "$N/therock-dist-linux-gfx94X-dcgpu-tests-7.11.0a20260121.tar.gz"
cp "$T/rel/tarball/therock-dist-linux-gfx94X-dcgpu-tests-$V.tar.gz" "$N/therock-dist-windows-gfx94X-dcgpu-7.11.0a20260125.tar.gz"
cp "$T/rel/tarball/therock-dist-linux-gfx94X-dcgpu-tests-$V.tar.gz" "$N/therock-dist-linux-gfx94X-dcgpu-7.12.0.dev0+0123abc.tar.gz"
cp "$T/rel/tarball/therock-dist-linux-gfx110X-all-$V.tar.gz" "$N/therock-dist-linux-gfx110X-all-7.11.0rc20260122.tar.gz"
cmp -s "$N/therock-dist-linux-gfx94X-dcgpu-7.11.0a20260119.tar.gz" "$N/therock-dist-linux-gfx94X-dcgpu-7.11.0a20260120.tar.gz" &&
	die "the two runs' tarballs are the same: the latest pick would not be tested"
rt_s3rver dev "$T/dev" therock-dev-tarball
DEV=http://127.0.0.1:$RT_PORT
rt_s3rver nightly "$T/nightly" therock-nightly-tarball
NIGHTLY=http://127.0.0.1:$RT_PORT

upstream() { # ENDPOINT ARGS...
	local ep=$1
	shift
	env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN -u AWS_PROFILE \
		-u GITHUB_REPOSITORY AWS_DEFAULT_REGION=us-east-1 AWS_CONFIG_FILE=/dev/null \
		AWS_SHARED_CREDENTIALS_FILE=/dev/null RK_S3_ENDPOINT=$ep RK_THEROCK_BUILD_TOOLS=$BT \
		PYTHONPATH=$HERE/install_shim python3 "$BT/install_rocm_from_artifacts.py" "$@"
}
meta() { (cd "$1" && find . -mindepth 1 \( -type d -printf '%p %m %y %T@\n' \) -o \( -type l -printf '%p %y %l\n' \) -o -printf '%p %m %y %s %T@\n') | sort; }

# compare DIR_UP DIR_RP WHAT
compare() {
	if ! diff -r --no-dereference "$1" "$2" >"$T/diff" 2>&1; then
		fail "$3: diff -r"
		head -n 20 "$T/diff" >&2
	fi
	meta "$1" >"$T/up.meta"
	meta "$2" >"$T/rp.meta"
	it_same "$3: modes/types/symlinks/sizes/mtimes" "$T/up.meta" "$T/rp.meta"
	it_links "$1" >"$T/up.links"
	it_links "$2" >"$T/rp.links"
	it_same "$3: hardlinks" "$T/up.links" "$T/rp.links"
	[ -s "$T/rp.meta" ] || fail "$3: nothing installed"
}

i=0
# check ENDPOINT BUCKET WANT_TARBALL ARGS...: upstream from the bucket; rockpack from the
# same bucket, from a local copy of it, and (--release of the demo version) from the
# demo store itself
check() {
	local ep=$1 bucket=$2 want=$3 local
	shift 3
	i=$((i + 1))
	local what="case $i ($*)" up=$T/up/$i
	upstream "$ep" "$@" --output-dir "$up" >"$T/up.$i.log" 2>&1 ||
		{ fail "$what: upstream failed: $(tail -n 5 "$T/up.$i.log")"; return 0; }
	grep -q "$want" "$T/up.$i.log" || fail "$what: upstream did not fetch $want: $(tail -n 5 "$T/up.$i.log")"
	"$ROCKPACK" --cache "$T/cache" --endpoint "$ep" install "s3://$bucket" "$@" --dry-run >"$T/rp.$i.dry" ||
		fail "$what: rockpack --dry-run failed"
	[ "$(cat "$T/rp.$i.dry")" = "v4/tarball/$want" ] || fail "$what: --dry-run: $(cat "$T/rp.$i.dry"), want v4/tarball/$want"
	"$ROCKPACK" -q --cache "$T/cache" --endpoint "$ep" install "s3://$bucket" "$@" --output-dir "$T/rs/$i" ||
		{ fail "$what: rockpack install from s3 failed"; return 0; }
	compare "$up" "$T/rs/$i" "$what from s3://$bucket"
	case $bucket in *dev*) local=$T/dev ;; *) local=$T/nightly ;; esac
	"$ROCKPACK" -q --cache "$T/cache" install "$local" "$@" --output-dir "$T/rl/$i" ||
		{ fail "$what: rockpack install from a local copy failed"; return 0; }
	compare "$up" "$T/rl/$i" "$what from a local copy"
	if [ "$2" = "$V" ]; then
		"$ROCKPACK" -q --cache "$T/cache" install "$STORE" "$@" --output-dir "$T/rv/$i" ||
			{ fail "$what: rockpack install from the demo store's release/ failed"; return 0; }
		compare "$up" "$T/rv/$i" "$what from the store's release/tarball/"
	fi
	it_say "$what: $(wc -l <"$T/rp.meta") entries"
}

check "$DEV" therock-dev-tarball therock-dist-linux-gfx94X-dcgpu-$V.tar.gz --release $V --amdgpu-family gfx94X-dcgpu
check "$DEV" therock-dev-tarball therock-dist-linux-gfx110X-all-$V.tar.gz --release $V --amdgpu-family gfx110X-all
check "$NIGHTLY" therock-nightly-tarball therock-dist-linux-gfx94X-dcgpu-7.11.0a20260119.tar.gz \
	--release 7.11.0a20260119 --amdgpu-family gfx94X-dcgpu
check "$NIGHTLY" therock-nightly-tarball therock-dist-linux-gfx94X-dcgpu-7.11.0a20260120.tar.gz \
	--latest-release --amdgpu-family gfx94X-dcgpu
check "$NIGHTLY" therock-nightly-tarball therock-dist-linux-gfx110X-all-7.11.0rc20260122.tar.gz \
	--latest-release --artifact-group gfx110X-all

# the demo store's release/tarball/ for --latest-release too (one version: the later run's)
"$ROCKPACK" -q --cache "$T/cache" install "$STORE" --latest-release --amdgpu-family gfx94X-dcgpu --output-dir "$T/lv" ||
	fail "--latest-release from the demo store failed"
diff -r --no-dereference "$T/up/1" "$T/lv" >/dev/null 2>&1 || fail "--latest-release from the demo store differs from --release $V"
# refusals: a version upstream refuses; a family with no release; a non-empty output
rc=0
"$ROCKPACK" -q install "$T/nightly" --release 7.11 --amdgpu-family gfx94X-dcgpu --output-dir "$T/x1" 2>/dev/null || rc=$?
[ $rc = 2 ] || fail "--release 7.11: exit $rc, not a usage error"
"$ROCKPACK" -q install "$T/nightly" --latest-release --amdgpu-family gfx90X-none --output-dir "$T/x2" 2>/dev/null &&
	fail "--latest-release of a family without releases succeeded"
[ -e "$T/x2" ] && fail "a failed --latest-release left its output directory"

# hostile tarballs: each must fail (or land inside), and nothing outside may change
mkdir -p "$T/outside" "$T/evil/v4/tarball"
echo secret >"$T/outside/secret"
python3 - "$T/evil/v4/tarball" "$T/outside" <<'EOF'
import io, sys, tarfile
out, outside = sys.argv[1], sys.argv[2]
def tb(day, members):
    with tarfile.open(f"{out}/therock-dist-linux-gfxevil-7.11.0a202601{day:02d}.tar.gz", "w:gz",
                      format=tarfile.GNU_FORMAT) as tf:
        for name, kind, arg in members:
            ti = tarfile.TarInfo(name)
            ti.mtime = 1767225600
            data = None
            if kind == "f":
                data = arg.encode(); ti.size = len(data); ti.mode = 0o6777
            elif kind == "d":
                ti.type = tarfile.DIRTYPE; ti.mode = 0o777
            elif kind == "l":
                ti.type = tarfile.SYMTYPE; ti.linkname = arg
            elif kind == "h":
                ti.type = tarfile.LNKTYPE; ti.linkname = arg
            elif kind == "c":
                ti.type = tarfile.CHRTYPE; ti.devmajor = 1; ti.devminor = 3
            elif kind == "p":
                ti.type = tarfile.FIFOTYPE
            tf.addfile(ti, io.BytesIO(data) if data is not None else None)
ok = ("ok", "f", "fine")
tb(1, [ok, ("../escape", "f", "x")])
tb(2, [ok, ("a/../../escape", "f", "x")])
tb(3, [ok, ("lnk", "l", outside), ("lnk/pwned", "f", "x")])
tb(4, [ok, ("lnk", "l", "."), ("lnk/lnk/pwned", "f", "x")])
tb(5, [ok, ("h", "h", "../outside/secret")])
tb(6, [ok, ("lnk", "l", outside + "/secret"), ("h", "h", "lnk")])
tb(7, [ok, ("h", "h", outside + "/secret")])
tb(8, [ok, ("null", "c", "")])
tb(9, [ok, ("fifo", "p", "")])
tb(10, [ok, ("d", "d", ""), ("d", "l", outside)])
tb(11, [ok, ("d", "l", outside), ("d", "d", ""), ("d/pwned", "f", "x")])
tb(12, [ok, ("lnk", "l", "sub"), ("sub", "l", outside), ("lnk/pwned", "f", "x")])
# these succeed, inside: a leading '/' is dropped (tarfile's "tar" filter); a file over a
# symlink to outside replaces the link; high and group/other write mode bits are dropped
tb(20, [ok, ("/abs", "f", "in"), ("//dir/abs2", "f", "in")])
tb(21, [ok, ("s", "l", outside + "/secret"), ("s", "f", "replaced")])
EOF
before=$(cd "$T/outside" && find . -printf '%p %s %T@\n' | sort; cat secret)
for d in 01 02 03 04 05 06 07 08 09 10 11 12; do
	rc=0
	"$ROCKPACK" -q install "$T/evil" --release 7.11.0a202601$d --amdgpu-family gfxevil --output-dir "$T/eo/$d" \
		2>"$T/evil.$d.err" || rc=$?
	[ $rc = 1 ] || fail "hostile tarball $d: exit $rc (want 1: refused)"
	[ -e "$T/eo/$d" ] && fail "hostile tarball $d: left $(find "$T/eo/$d" | head -3)"
	[ -s "$T/evil.$d.err" ] || fail "hostile tarball $d: refused without a message"
done
[ -e "$T/escape" ] || [ -e "$T/eo/escape" ] && fail "a '..' entry was written"
"$ROCKPACK" -q install "$T/evil" --release 7.11.0a20260120 --amdgpu-family gfxevil --output-dir "$T/eo/20" ||
	fail "hostile tarball 20 (leading '/') failed"
[ "$(cat "$T/eo/20/abs" "$T/eo/20/dir/abs2" 2>/dev/null)" = inin ] || fail "leading '/' not dropped"
[ "$(stat -c %a "$T/eo/20/ok")" = 755 ] || fail "mode 6777 became $(stat -c %a "$T/eo/20/ok"), want 755"
"$ROCKPACK" -q install "$T/evil" --release 7.11.0a20260121 --amdgpu-family gfxevil --output-dir "$T/eo/21" ||
	fail "hostile tarball 21 (file over a symlink) failed"
[ -f "$T/eo/21/s" ] && [ ! -L "$T/eo/21/s" ] || fail "a file over a symlink did not replace the link"
after=$(cd "$T/outside" && find . -printf '%p %s %T@\n' | sort; cat secret)
[ "$before" = "$after" ] || fail "the directory outside changed: $after"
[ -z "$(find "$T" -maxdepth 1 -name 'pwned' -o -maxdepth 1 -name escape)" ] || fail "an entry escaped into $T"
it_finish
