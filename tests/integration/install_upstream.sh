#!/usr/bin/env bash
# install_upstream: TheRock's own install_rocm_from_artifacts.py (vendored,
# upstream_therock/, run offline through install_shim/) against a local S3 server
# (s3rver on loopback) holding the demo store as TheRock's bucket, for several flag
# combinations (one a run of another repository, in the external bucket), and `rockpack
# install` of the same run from the same server: the same
# artifacts (--dry-run) and the same tree, file for file (bytes, modes, types, symlink
# targets, hardlinks; not mtimes: the script's flatten does not keep them); and
# --input-dir (the script's rsync of an existing tree) on trees with symlinks, hardlinks,
# a fifo and odd modes, with and without a trailing '/', mtimes compared too.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/../remote/remote.sh"
it_init "$@"
HERE=$(cd "$(dirname "$0")" && pwd)
BT=$HERE/upstream_therock/build_tools
python3 -c 'import boto3' 2>/dev/null || skip "python3 has no boto3 (packaging/install-deps.sh --tests: python3-boto3)"
rt_need_s3rver
B=therock-ci-artifacts # the bucket upstream picks for ROCm/TheRock's CI runs
rt_s3rver srv "$STORE" $B
EP=http://127.0.0.1:$RT_PORT
# another repository's runs: {owner}-{repo}/ in TheRock's external bucket
mkdir -p "$T/ext/ROCm-rocm-libraries"
ln -s "$STORE/24205988454-linux" "$T/ext/ROCm-rocm-libraries/24205988454-linux"
rt_s3rver ext "$T/ext" therock-ci-artifacts-external
EXT=http://127.0.0.1:$RT_PORT

upstream() {
	env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_SESSION_TOKEN -u AWS_PROFILE \
		-u GITHUB_REPOSITORY AWS_DEFAULT_REGION=us-east-1 AWS_CONFIG_FILE=/dev/null \
		AWS_SHARED_CREDENTIALS_FILE=/dev/null RK_S3_ENDPOINT=${UP_EP:-$EP} RK_THEROCK_BUILD_TOOLS=$BT \
		PYTHONPATH=$HERE/install_shim python3 "$BT/install_rocm_from_artifacts.py" "$@"
}
rp() { "$ROCKPACK" --cache "$T/cache" --endpoint "${UP_EP:-$EP}" install "s3://${UP_B:-$B}" "$@"; }

# tree fingerprint without mtimes
meta() { (cd "$1" && find . -mindepth 1 \( -type d -printf '%p %m %y\n' \) -o -printf '%p %m %y %l %s\n') | sort; }

i=0
check() {
	local run=$1
	shift
	i=$((i + 1))
	local what="case $i ($run $*)" up=$T/up/$i got=$T/rp/$i
	upstream --run-id "$run" "$@" --output-dir "$up" >"$T/up.$i.log" 2>&1 ||
		{ fail "$what: upstream failed: $(tail -n 5 "$T/up.$i.log")"; return 0; }
	# the names it fetched (a stem stored as .tar.zst and .tar.xz is fetched twice by
	# upstream and once by rockfs, which takes the .tar.zst: compared by stem)
	sed -n '/^Filtered artifacts to download:/,/^$/p' "$T/up.$i.log" | sed -n 's|^  .*/||p' |
		sed 's/\.tar\.\(zst\|xz\)$//' | sort -u >"$T/up.$i.names"
	rp --run-id "$run" "$@" --dry-run >"$T/rp.$i.dry" || fail "$what: rockpack --dry-run failed"
	sed 's/\.tar\.\(zst\|xz\)$//' "$T/rp.$i.dry" | sort -u >"$T/rp.$i.names"
	[ -s "$T/up.$i.names" ] || fail "$what: upstream's log lists no artifact"
	it_same "$what: the artifacts selected" "$T/up.$i.names" "$T/rp.$i.names"
	rp --run-id "$run" "$@" --output-dir "$got" -q || { fail "$what: rockpack install failed"; return 0; }
	if ! diff -r --no-dereference "$up" "$got" >"$T/diff" 2>&1; then
		fail "$what: diff -r"
		head -n 20 "$T/diff" >&2
	fi
	meta "$up" >"$T/up.meta"
	meta "$got" >"$T/rp.meta"
	it_same "$what: modes/types/symlinks/sizes" "$T/up.meta" "$T/rp.meta"
	it_links "$up" >"$T/up.links"
	it_links "$got" >"$T/rp.links"
	it_same "$what: hardlinks" "$T/up.links" "$T/rp.links"
	it_say "$what: $(wc -l <"$T/rp.$i.names") artifacts, $(wc -l <"$T/rp.meta") entries"
}

check 24205988454 --amdgpu-family gfx94X-dcgpu --base-only
check 24205988454 --amdgpu-family gfx94X-dcgpu --blas --tests
check 24205988454 --amdgpu-family gfx110X-all --fft --rand --no-blas
check 24205988454 --amdgpu-family gfx110X-all --tests
check 24205988455 --amdgpu-family gfx94X-dcgpu --blas --miopen --tests
check 24205988455 --amdgpu-family gfx110X-all --amdgpu-targets gfx1100 --rand --prim --hipthreads
check 24205988455 --amdgpu-family gfx94X-dcgpu
UP_EP=$EXT UP_B=therock-ci-artifacts-external \
	check 24205988454 --run-github-repo ROCm/rocm-libraries --amdgpu-family gfx94X-dcgpu --rand

# the writers and link modes give the same tree as the script's (case 5): one writer,
# eight with --link=auto (a reflink where the file system has them, else a copy), and
# --link=reflink where the file system has them; where it has none, --link=reflink fails
# and leaves nothing; --link=hard is refused (the cache's blobs are 0400, docs/install.md)
echo x >"$T/probe"
reflinks=0
cp --reflink=always "$T/probe" "$T/probe2" 2>/dev/null && reflinks=1
for args in "-j 1" "-j 8 --link=auto" "--link=reflink --json"; do
	rm -rf "$T/j"
	rc=0
	rp --run-id 24205988455 --amdgpu-family gfx94X-dcgpu --blas --miopen --tests $args \
		--output-dir "$T/j" -q >"$T/j.out" 2>"$T/j.err" || rc=$?
	if [ "$args" = "--link=reflink --json" ] && [ $reflinks = 0 ]; then
		[ $rc = 1 ] && grep -q 'no reflink' "$T/j.err" || fail "--link=reflink without reflinks: exit $rc, $(cat "$T/j.err")"
		[ -e "$T/j" ] && fail "--link=reflink without reflinks left $T/j"
		continue
	fi
	[ $rc = 0 ] || { fail "rockpack install $args failed: $(cat "$T/j.err")"; continue; }
	diff -r --no-dereference "$T/up/5" "$T/j" >"$T/diff" 2>&1 || fail "$args: diff -r: $(head -5 "$T/diff")"
	meta "$T/up/5" >"$T/up.meta"
	meta "$T/j" >"$T/rp.meta"
	it_same "$args: modes/types/symlinks/sizes" "$T/up.meta" "$T/rp.meta"
	it_links "$T/up/5" >"$T/up.links"
	it_links "$T/j" >"$T/rp.links"
	it_same "$args: hardlinks" "$T/up.links" "$T/rp.links"
done
grep -q '"command": "install"' "$T/j.out" || [ $reflinks = 0 ] || fail "--json: $(cat "$T/j.out")"
rc=0
rp --run-id 24205988455 --amdgpu-family gfx94X-dcgpu --link=hard --output-dir "$T/h" 2>/dev/null || rc=$?
[ $rc = 2 ] && [ ! -e "$T/h" ] || fail "--link=hard: exit $rc, want a usage error"

# --input-dir: the script rsyncs an existing TheRock tree (rsync -azP INPUT OUTPUT: no
# selection; INPUT without a trailing '/' lands as OUTPUT/basename(INPUT)); rockpack copies
# it the same way, with modes, mtimes and symlinks, hardlinks as separate files (no -H)
mtimes() { (cd "$1" && find . -mindepth 1 ! -type l -printf '%p %T@\n') | sort; }
cp -a "$T/rp/2" "$T/tree" # a tree with symlinks and hardlinks, and more of its own:
ln -s ../nowhere "$T/tree/dangling"
ln -s bin "$T/tree/bin-link"
mkdir -m 0711 "$T/tree/private"
echo x >"$T/tree/private/f" && chmod 0604 "$T/tree/private/f"
mkfifo "$T/tree/fifo"
touch -d '2001-02-03 04:05:06.789' "$T/tree/private/f" "$T/tree/private"
ln -s tree "$T/tree-link"
k=0
check_input() {
	local src=$1 what
	k=$((k + 1))
	what="input-dir $k ($src)"
	upstream --input-dir "$src" --amdgpu-family gfx94X-dcgpu --output-dir "$T/upi/$k" >"$T/upi.$k.log" 2>&1 ||
		{ fail "$what: upstream failed: $(tail -n 5 "$T/upi.$k.log")"; return 0; }
	grep -q '^Error' "$T/upi.$k.log" && { fail "$what: upstream: $(grep -A3 '^Error' "$T/upi.$k.log")"; return 0; }
	"$ROCKPACK" -q install --input-dir "$src" --amdgpu-family gfx94X-dcgpu --output-dir "$T/rpi/$k" ||
		{ fail "$what: rockpack install failed"; return 0; }
	diff -r --no-dereference -x fifo "$T/upi/$k" "$T/rpi/$k" >"$T/diff" 2>&1 || fail "$what: diff -r: $(head -5 "$T/diff")"
	meta "$T/upi/$k" >"$T/up.meta"
	meta "$T/rpi/$k" >"$T/rp.meta"
	it_same "$what: modes/types/symlinks/sizes (fifo included)" "$T/up.meta" "$T/rp.meta"
	mtimes "$T/upi/$k" >"$T/up.mt"
	mtimes "$T/rpi/$k" >"$T/rp.mt"
	it_same "$what: mtimes" "$T/up.mt" "$T/rp.mt"
	it_links "$T/upi/$k" >"$T/up.links"
	it_links "$T/rpi/$k" >"$T/rp.links"
	it_same "$what: hardlinks" "$T/up.links" "$T/rp.links"
	it_say "$what: $(wc -l <"$T/rp.meta") entries"
}
check_input "$T/tree"
check_input "$T/tree/"
check_input "$T/tree-link"  # a symlink, copied as one
check_input "$T/tree-link/" # followed
check_input "$T/tree/private"
# the dry run names both; an output directory that holds a file is refused, untouched
"$ROCKPACK" install --input-dir "$T/tree" --amdgpu-family gfx94X-dcgpu --output-dir "$T/none" --dry-run >"$T/dry" ||
	fail "input-dir --dry-run failed"
grep -q "$T/tree" "$T/dry" && [ ! -e "$T/none" ] || fail "input-dir --dry-run: $(cat "$T/dry")"
mkdir "$T/full" && echo keep >"$T/full/keep"
"$ROCKPACK" -q install --input-dir "$T/tree" --amdgpu-family gfx94X-dcgpu --output-dir "$T/full" 2>/dev/null &&
	fail "input-dir into a non-empty directory succeeded"
[ "$(ls "$T/full")" = keep ] || fail "input-dir changed a non-empty output directory"
rc=0
"$ROCKPACK" -q install s3://$B --run-id 1 --input-dir "$T/tree" --amdgpu-family gfx94X-dcgpu 2>/dev/null || rc=$?
[ $rc = 2 ] || fail "--run-id with --input-dir: exit $rc, not a usage error (2)"

# the view serves the tree rockpack wrote (same service), and lists no spec
M=$T/mnt
it_mount fs "$STORE" "$M" "$T/mcache"
[ "$(ls "$M/24205988454-linux/install")" = README ] || fail "install/ lists more than its README"
diff -r --no-dereference "$M/24205988454-linux/install/gfx94X-dcgpu+blas+tests" "$T/rp/2" >"$T/diff" 2>&1 ||
	fail "install/gfx94X-dcgpu+blas+tests differs from rockpack install's tree: $(head -5 "$T/diff")"
[ -e "$M/24205988454-linux/install/gfx94X-dcgpu+nosuchflag" ] && fail "an unknown flag resolved"
[ -e "$M/24205988454-linux/install/+blas" ] && fail "a spec without a family resolved"
# a family the run has nothing of still gets the generic artifacts, as upstream's
[ -d "$M/24205988454-linux/install/gfx90X-none+base-only/lib" ] || fail "generic artifacts of any family"
# lookups of one new spec at once: each finds it (made once, the other grafts see it there)
S=$M/24205988455-linux/install/gfx110X-all+rand+prim
pids=()
for k in 1 2 3 4 5 6 7 8; do
	stat -c %F "$S" >"$T/par.$k" 2>&1 &
	pids+=($!)
done
wait "${pids[@]}" # (not a bare wait: the servers run in the background too)
for k in 1 2 3 4 5 6 7 8; do
	[ "$(cat "$T/par.$k")" = directory ] || fail "parallel lookup $k: $(cat "$T/par.$k")"
done
it_quiet_log fs
it_finish
