#!/usr/bin/env bash
# Benchmarks for the pip index (RUN/python/, docs/views.md), side by side with what a user
# would otherwise run.
#
#   bench/python_bench.sh [BUILD_DIR] [SDK_MIB] [NWHEELS] [MANY_MIB] [REPEAT]
#
# Stores (generated, deterministic): a run whose python/ holds 5 wheels of SDK_MIB (default
# 300) MiB in total (bench/mkwheels.py: half incompressible, half text, deflated), a run
# with NWHEELS (default 200) wheels of MANY_MIB (default 400) MiB in total, and the demo
# store's split run, whose python/ is synthesized from its artifacts.
#   install  `pip install` (Debian's pip, fresh venv, --no-cache-dir, offline) with
#            --index-url file://MNT/RUN/python/simple/ vs --no-index --find-links DIR on
#            the same files on local disk                               (goal <= 1.2x)
#            cold: empty rockfs cache, page cache dropped, fresh mount; warm: again on
#            the same mount; remount: a new mount on the same cache, page cache dropped
#   index    `ls -R python/` + `cat` of every page and .metadata file for the NWHEELS run:
#            cold (empty cache: every wheel hashed once), remount (hashes from the cache's
#            pyhash/ records), kernel cache (same mount again), vs bench/pyindex.py, a
#            static PEP 503/658 generator (sha256 + METADATA of every wheel) on local disk
#   wheels   `rockpack wheels STORE RUN -o DIR [--index]` vs `cp -r` (+ pyindex.py)
# Every measure is taken REPEAT (default 3) times, interleaved with its baseline; the
# table shows medians and the ratio of the medians, then the [min-max] of both sides.
# The script only uses the mount, pip and rockpack: it does not depend on when rockfs
# hashes the wheels. Root drops the page cache before cold runs. Needs python3-venv.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
sdk_mib=${2:-300}
nwheels=${3:-200}
many_mib=${4:-400}
repeat=${5:-3}
rockfs=$build/fs/rockfs
rockpack=$build/tools/rockpack
. "$top/bench/lib.sh"
bench_init pybench
can_drop=0
if [ -w /proc/sys/vm/drop_caches ] && sync && echo 3 >/proc/sys/vm/drop_caches 2>/dev/null; then
	can_drop=1
fi
drop() { if [ $can_drop = 1 ]; then sync; echo 3 >/proc/sys/vm/drop_caches; fi; }
quiet() { "$@" >/dev/null; }

# pip: Debian's, offline (a proxy that refuses every connection), no cache, no config, no
# PIP_* settings from the caller's environment (e.g. PIP_FIND_LINKS).
for v in $(compgen -e | grep '^PIP_' || true); do unset "$v"; done
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_CONFIG_FILE=/dev/null PIP_NO_CACHE_DIR=1
export http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 no_proxy=
nv=0
# pipi ARGS...: a fresh venv (not timed), then the timed `pip install ARGS`; prints seconds
pipi() {
	local venv=$work/venv$((nv += 1)) t
	/usr/bin/python3 -m venv "$venv"
	t=$(timeit "$venv/bin/python" -m pip install -q --no-cache-dir "$@" 2>>"$work/pip.log") || {
		echo "pip install $* failed:" >&2
		tail -n 20 "$work/pip.log" >&2
		exit 1
	}
	rm -rf "$venv"
	echo "$t"
}
mount_rk() { # CACHE
	"$rockfs" "$work/store" "$mnt" -f -o "cache=$1" 2>>"$work/daemon.log" &
	pid=$!
	for _ in $(seq 300); do
		mountpoint -q "$mnt" && return 0
		kill -0 "$pid" 2>/dev/null || { cat "$work/daemon.log"; exit 1; }
		sleep 0.05
	done
	exit 1
}
umount_rk() {
	fusermount3 -u "$mnt"
	wait "$pid" || true
	pid=
}
# samples: one list of seconds per measure, "name" -> "t1 t2 ..."
declare -A S
add() { S[$1]="${S[$1]:-} $2"; }
med() { echo ${S[$1]} | tr ' ' '\n' | sort -g | awk '{ v[NR] = $1 } END { printf "%.3f", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
span() { echo ${S[$1]} | tr ' ' '\n' | sort -g | awk 'NR == 1 { a = $1 } { b = $1 } END { printf "%.2f-%.2f", a, b }'; }
row() { # LABEL BASELINE-KEY ROCKFS-KEY [NOTE]
	local b r
	b=$(med "$2")
	r=$(med "$3")
	printf '%-50s %9ss %9ss %7sx  [%s] [%s] %s\n' "$1" "$b" "$r" "$(ratio "$r" "$b")" "$(span "$2")" "$(span "$3")" "${4:-}"
}
one() { # LABEL KEY NOTE: a measure without a baseline
	printf '%-50s %10s %9ss %8s  [%s] %s\n' "$1" "" "$(med "$2")" "" "$(span "$2")" "${3:-}"
}
header() { printf '%-50s %10s %10s %8s  %s\n' "$1" baseline rockfs ratio "[min-max of $repeat runs: baseline] [rockfs]"; }

echo "generating the stores in $work ..."
store=$work/store
SDK=90000000003-linux
MANY=90000000004-linux
SPLIT=24205988455-linux
mkdir -p "$store/$SDK/python" "$store/$MANY/python"
python3 "$top/bench/mkwheels.py" "$store/$SDK/python" sdk "$sdk_mib" >/dev/null
python3 "$top/bench/mkwheels.py" "$store/$MANY/python" many "$nwheels" "$many_mib" >/dev/null
python3 "$top/tests/demo/mkdemo.py" "$work/demo" --runs split >/dev/null
mv "$work/demo/$SPLIT" "$store/"
mkdir -p "$work/local-sdk" "$work/local-many" "$work/local-demo"
cp "$store/$SDK/python/"*.whl "$work/local-sdk/"
cp "$store/$MANY/python/"*.whl "$work/local-many/"
echo "machine: $(nproc) CPUs, $(uname -r); $(/usr/bin/python3 -m pip --version | cut -d' ' -f1-2), Python $(/usr/bin/python3 -c 'import platform; print(platform.python_version())')"
echo "$SDK: 5 wheels, $(du -cb "$work/local-sdk/"*.whl | tail -n1 | cut -f1) bytes; $MANY: $nwheels wheels, $(du -cb "$work/local-many/"*.whl | tail -n1 | cut -f1) bytes"

# ---- 1a. install the 5 stored wheels ----
echo
echo "== pip install benchsdk (5 stored wheels, $sdk_mib MiB) from the mount vs --find-links on local disk"
idx=file://$mnt/$SDK/python/simple/
for i in $(seq "$repeat"); do
	drop
	add cp "$(timeit cp -r "$store/$SDK/python" "$work/cp-sdk")"
	rm -rf "$work/cp-sdk"
	drop
	add b_cold "$(pipi --no-index --find-links "$work/local-sdk" benchsdk)"
	add b_warm "$(pipi --no-index --find-links "$work/local-sdk" benchsdk)"
	drop
	rm -rf "$work/cache-sdk"
	mount_rk "$work/cache-sdk"
	add r_cold "$(pipi --index-url "$idx" benchsdk)"
	add r_warm "$(pipi --index-url "$idx" benchsdk)"
	add r_fl "$(pipi --no-index --find-links "$mnt/$SDK/python/find-links" benchsdk)"
	umount_rk
	drop
	mount_rk "$work/cache-sdk"
	add r_re "$(pipi --index-url "$idx" benchsdk)"
	umount_rk
done
header "pip install benchsdk"
row "cold (page cache dropped; rockfs: empty cache)" b_cold r_cold
row "warm (second install; rockfs: same mount)" b_warm r_warm
row "remount, same rockfs cache, page cache dropped" b_cold r_re "(vs cold baseline)"
row "rockfs --find-links MNT/RUN/python/find-links" b_warm r_fl "(warm)"
printf '%-50s %9ss   (what the baseline needs first; not in its times)\n' "cp -r of the stored python/ (page cache dropped)" "$(med cp)"

# ---- 1b. install the demo run's synthesized wheels ----
echo
echo "== pip install 'rocm[libraries,devel]' from the demo split run (python/ synthesized from artifacts)"
mount_rk "$work/cache-copy"
for f in "$mnt/$SPLIT/python/files/"*; do
	case $f in *.metadata) ;; *) cp "$f" "$work/local-demo/" ;; esac
done
umount_rk
fl=(--find-links /usr/share/python-wheels)
idx=file://$mnt/$SPLIT/python/simple/
for i in $(seq "$repeat"); do
	drop
	add db_cold "$(pipi --no-index --find-links "$work/local-demo" "${fl[@]}" 'rocm[libraries,devel]')"
	add db_warm "$(pipi --no-index --find-links "$work/local-demo" "${fl[@]}" 'rocm[libraries,devel]')"
	drop
	rm -rf "$work/cache-demo"
	mount_rk "$work/cache-demo"
	add dr_cold "$(pipi --index-url "$idx" "${fl[@]}" 'rocm[libraries,devel]')"
	add dr_warm "$(pipi --index-url "$idx" "${fl[@]}" 'rocm[libraries,devel]')"
	umount_rk
	drop
	mount_rk "$work/cache-demo"
	add dr_re "$(pipi --index-url "$idx" "${fl[@]}" 'rocm[libraries,devel]')"
	umount_rk
done
header "pip install 'rocm[libraries,devel]'"
row "cold (page cache dropped; rockfs: empty cache)" db_cold dr_cold "(rockfs ingests the artifacts)"
row "warm (second install; rockfs: same mount)" db_warm dr_warm
row "remount, same rockfs cache, page cache dropped" db_cold dr_re "(vs cold baseline)"

# ---- 2. render the index of NWHEELS stored wheels ----
echo
echo "== index of $MANY: $nwheels stored wheels ($many_mib MiB)"
P=$mnt/$MANY/python
readall() { ls -R "$P" >/dev/null && cat "$P/simple/index.html" "$P/simple/"*/index.html "$P/files/"*.metadata >/dev/null; }
readstatic() { ls -R "$1" >/dev/null && cat "$1/simple/index.html" "$1/simple/"*/index.html "$1/files/"*.metadata >/dev/null; }
same=same
for i in $(seq "$repeat"); do
	rm -rf "$work/idx1" "$work/idx2" "$work/cache-many"
	drop
	add ib_cold "$(timeit python3 "$top/bench/pyindex.py" "$work/local-many" "$work/idx1")"
	add ib_warm "$(timeit python3 "$top/bench/pyindex.py" "$work/local-many" "$work/idx2")"
	add ib_read "$(timeit readstatic "$work/idx2")"
	drop
	mount_rk "$work/cache-many"
	add ir_cold "$(timeit readall)"
	add ir_kern "$(timeit readall)"
	for d in "$work/idx1/simple/"*/; do
		cmp -s "$d/index.html" "$P/simple/$(basename "$d")/index.html" || same=different
	done
	umount_rk
	drop
	mount_rk "$work/cache-many"
	add ir_re "$(timeit readall)"
	umount_rk
done
header "ls -R + cat of every page and .metadata"
row "cold (page cache dropped; rockfs: empty cache)" ib_cold ir_cold "(baseline: pyindex.py)"
row "remount, hashes from the cache, page cache dropped" ib_cold ir_re "(vs pyindex.py cold)"
row "same mount again (kernel cache) vs static pages" ib_read ir_kern "(baseline: ls -R + cat of pyindex.py's output)"
row "same mount again (kernel cache) vs pyindex.py" ib_warm ir_kern "(pyindex.py, page cache warm)"
echo "project pages: rockfs and pyindex.py write the $same bytes"

# ---- 3. rockpack wheels ----
echo
echo "== rockpack wheels $SDK (page cache dropped, empty rockfs cache each time)"
for i in $(seq "$repeat"); do
	rm -rf "$work/cp1" "$work/cp1-idx" "$work/rp1" "$work/rp2" "$work/cache-rp1" "$work/cache-rp2"
	drop
	add pb_cp "$(timeit cp -r "$store/$SDK/python" "$work/cp1")"
	t=$(timeit python3 "$top/bench/pyindex.py" "$work/cp1" "$work/cp1-idx")
	add pb_idx "$(awk -v a="$(echo ${S[pb_cp]} | awk '{ print $NF }')" -v b="$t" 'BEGIN { printf "%.3f", a + b }')"
	drop
	add pr_w "$(timeit "$rockpack" --cache "$work/cache-rp1" -q wheels "$store" "$SDK" -o "$work/rp1")"
	drop
	add pr_wi "$(timeit "$rockpack" --cache "$work/cache-rp2" -q wheels "$store" "$SDK" -o "$work/rp2" --index)"
done
header "rockpack wheels"
row "rockpack wheels -o DIR vs cp -r" pb_cp pr_w
row "rockpack wheels -o DIR --index vs cp -r + pyindex.py" pb_idx pr_wi
[ $can_drop = 1 ] || echo "(not root: page cache not dropped; cold numbers are warm-page-cache numbers)"
