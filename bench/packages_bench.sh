#!/usr/bin/env bash
# Benchmarks for the packages view (RUN/packages/), side by side with what a script that
# builds the same apt repository from the artifacts must do at minimum.
#
#   bench/packages_bench.sh [BUILD_DIR] [GIB]        (as root: it drops the page cache)
#
# Store: the demo's kpack-split run plus one generic artifact of GIB (default 2) GiB
# (bigdata_lib_generic), and a definitions file, packaging/packages.json plus an entry
# amdrocm-bigdata (non-gfx, bigdata's lib component), passed with -o packages=FILE.
# Steps (ROUNDS, default 2, rounds of the install step; best kept):
#   install      page cache dropped, empty rockfs cache: from starting rockfs to the end
#                of `apt-get update && apt-get install amdrocm-bigdata7.13
#                amdrocm-blas7.13-gfx1100` into a throwaway root (dpkg --root), against
#                the baseline: `zstd -dc | tar x` of every artifact of the run (what
#                TheRock's packaging fetches), `cp -a` of each package's stage dirs into
#                its tree, `dpkg-deb --build` of every package (default compression, and
#                -Znone), dpkg-scanpackages, a Release, and the same apt-get from there
#   list+hash    `ls -lR` and sha256sum of every file of packages/deb and
#                packages/rpm/x86_64 (what rsync -a of both repositories costs): fresh
#                cache, then a remount (warm rockfs cache, page cache dropped), against
#                the same files on local disk (page cache dropped)
#   second arch  fresh cache, one mount: cat of every gfx1101 device package (deb and
#                rpm) after every gfx1100 one, against the first
#   daemon       VmHWM of each mount
#   listing      (issue 28 items 6, 7) page cache dropped, empty rockfs cache: `ls -l` of
#                deb/pool/main, and on another empty cache of rpm/x86_64, against `tar -xf`
#                of the archives the definitions select (all but those deb/README lists as
#                not read): what a script must at least do before it can make a package
#   compressed   the same listings with -o packages_compress=zstd and =xz (listing
#                compresses every package: its size is exact), then a remount over the
#                same cache (every piece found); the packages' bytes against the selected
#                artifacts' bytes and the uncompressed packages'
# STEPS (comma-separated, default all: install,listhash,arch,listing,compressed) picks
# the steps; the plan is made anyway (listing and compressed need only the store).
# The baseline's plan (which stage dirs a package copies, its control files) is made
# before any timing, from the definitions and the mounted repository's control members;
# its packages are checked to hold the same paths as rockfs's.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build}" && pwd)
gib=${2:-2}
rounds=${ROUNDS:-2}
steps=,${STEPS:-install,listhash,arch,listing,compressed},
want() { [[ $steps == *",$1,"* ]]; }
. "$top/bench/lib.sh"
[ "$(id -u)" = 0 ] || { echo "packages_bench.sh: run as root (it drops the page cache)" >&2; exit 1; }
for tool in dpkg-deb dpkg-scanpackages apt-get apt-ftparchive zstd xz sha256sum fusermount3; do
	command -v $tool >/dev/null || { echo "packages_bench.sh: $tool is not installed" >&2; exit 1; }
done
bench_init pbench
RUN=24205988455-linux
WANT="amdrocm-bigdata7.13 amdrocm-blas7.13-gfx1100"

echo "generating the store in $work ..."
python3 "$top/tests/demo/mkdemo.py" "$work/demo" --runs split >/dev/null
run=$work/store/$RUN
mkdir -p "$work/store"
mv "$work/demo/$RUN" "$run"
python3 "$top/tests/demo/mkdemo.py" "$work/large" --large-gib "$gib" >/dev/null
cp "$work/large/90000000001-linux"/bigdata_lib_generic.tar.zst* "$run/"
rm -rf "$work/demo" "$work/large"
defs=$work/packages.json
python3 - "$top/packaging/packages.json" "$defs" <<'EOF'
import copy, json, sys
defs = json.load(open(sys.argv[1]))
e = copy.deepcopy(next(d for d in defs if d["Package"] == "amdrocm-base"))
e.update({"Package": "amdrocm-bigdata", "Description_Short": "Big generic data (bench)",
          "Description_Long": "One large generic artifact, for bench/packages_bench.sh.",
          "DEBDepends": ["libc6", "amdrocm-base"], "RPMRequires": ["amdrocm-base"],
          "Gfxarch": "False",
          "Artifactory": [{"Artifact": "bigdata", "Artifact_Subdir": [
              {"Name": "bigdata", "Components": ["lib"]}]}]})
defs.append(e)
json.dump(defs, open(sys.argv[2], "w"), indent=1)
EOF
echo "machine: $(nproc) CPUs, $(uname -r), $(free -g | awk '/^Mem:/ {print $2}') GiB;" \
	"dpkg $(dpkg-query -W -f '${Version}' dpkg), apt $(dpkg-query -W -f '${Version}' apt)," \
	"zstd $(zstd -V | grep -o 'v[0-9.]*'); run $RUN + bigdata $gib GiB; rounds $rounds"

drop() { sync; echo 3 >/proc/sys/vm/drop_caches; }
mount_fs() { # CACHE [OPTION...]
	local cache=$1
	shift
	"$build/fs/rockfs" "$work/store" "$mnt" -f -o cache="$cache" -o packages="$defs" "$@" 2>>"$work/daemon.log" &
	pid=$!
	for _ in $(seq 400); do mountpoint -q "$mnt" && return 0; sleep 0.025; done
	echo "rockfs did not mount" >&2
	cat "$work/daemon.log" >&2
	exit 1
}
umount_fs() { # sets hwm (MiB)
	hwm=$(awk '/^VmHWM/ { printf "%.0f", $2 / 1024 }' "/proc/$pid/status")
	fusermount3 -u "$mnt"
	wait "$pid" || true
	pid=
}
P=$mnt/$RUN/packages

. "$top/tests/apt_sandbox.sh"
apt_install() { # ROOT LOG
	sh "$1/apt.sh" update >"$2" 2>&1 && sh "$1/apt.sh" install -y $WANT >>"$2" 2>&1 ||
		{ cat "$2" >&2; echo "apt-get failed" >&2; exit 1; }
}
check_installed() { # ROOT WHAT
	local p
	for p in $WANT amdrocm-blas-host7.13; do
		dpkg --root="$1" -s "$p" 2>/dev/null | grep -qx 'Status: install ok installed' ||
			{ echo "$2: $p is not installed" >&2; exit 1; }
	done
	[ -d "$1/opt/rocm/core-7.13/lib/bigdata" ] || { echo "$2: no bigdata files" >&2; exit 1; }
}

# --- the baseline's plan, untimed: every package of the repository, its control members
# (from the mount) and the stage dirs it copies (build_package.py's rules for a kpack-split
# run: a device copies {artifact}_{component}_{target}, a host or non-gfx package
# {..}_generic; gfx means the run has a _gfx* artifact for it, never for a -devel;
# metapackages copy nothing)
echo "planning the baseline ..."
mount_fs "$work/cache-plan"
ls "$P/deb/pool/main" >"$work/pool.list"
mkdir -p "$work/control" "$work/paths"
while read -r f; do
	name=${f%%_*}
	dpkg-deb -e "$P/deb/pool/main/$f" "$work/control/$name"
	dpkg-deb -c "$P/deb/pool/main/$f" | awk '{ print $6 }' | sed 's,^\./,,; s,/$,,' |
		grep -v '^$' | LC_ALL=C sort >"$work/paths/$name"
done <"$work/pool.list"
umount_fs
rm -rf "$work/cache-plan"
for a in "$run"/*.tar.zst "$run"/*.tar.xz; do
	n=$(basename "$a"); n=${n%.tar.*}
	case $a in *.xz) [ -e "$run/$n.tar.zst" ] && continue ;; esac
	echo "$n"
	case $a in *.zst) zstd -dcq "$a" ;; *) xz -dc "$a" ;; esac | tar -xO artifact_manifest.txt |
		sed 's/^/  /'
done >"$work/manifests"
python3 - "$defs" "$work/manifests" "$work/pool.list" >"$work/plan" <<'EOF'
import json, re, sys
defs = {d["Package"]: d for d in json.load(open(sys.argv[1]))}
dirs, cur = {}, None
for line in open(sys.argv[2]):
    if line.startswith("  "):
        dirs[cur].append(line.strip())
    else:
        cur = line.strip()
        dirs[cur] = []
def true(v):
    return str(v).lower() == "true"
def matches(line, name):
    return re.search(re.escape(name.lower()) + "/", line.lower()) is not None
for f in open(sys.argv[3]):
    name = f.split("_")[0]
    srcs = []
    m = re.fullmatch(r"(.+?)(-host)?(\d+\.\d+)(?:-(.+))?", name)
    if m:
        base, host, target = m.group(1), m.group(2), m.group(4)
        d = defs.get(base) or defs.get(re.sub(r"-dev$", "-devel", base))
        if d and not true(d.get("Metapackage", "False")):
            # kpack: a package is gfx when the run has a {artifact}_{component}_gfx*
            # directory for it (its Gfxarch is ignored); a -devel never is
            gfx = not d["Package"].endswith("-devel") and any(
                x.startswith("%s_%s_gfx" % (it["Artifact"], c))
                for it in d.get("Artifactory", []) for sd in it["Artifact_Subdir"]
                for c in sd["Components"] for x in dirs)
            if not gfx or host or target:
                suffix = target or "generic"
                for it in d.get("Artifactory", []):
                    g = it.get("Artifact_Gfxarch")
                    if g is not None:
                        if true(g) and not target:
                            continue  # "{a}_{c}_gfx_host" / "{a}_{c}_": no such dir
                        if not true(g) and target:
                            continue  # a device skips generic-only items
                        suffix_i = target if true(g) else "generic"
                    else:
                        suffix_i = suffix
                    for sd in it["Artifact_Subdir"]:
                        for c in sd["Components"]:
                            b = "%s_%s_%s" % (it["Artifact"], c, suffix_i)
                            for dn in [b] + sorted(x for x in dirs if x.startswith(b + ":")):
                                for line in dirs.get(dn, []):
                                    if matches(line, sd["Name"]):
                                        srcs.append((dn, line))
    print(name + "".join("\t%s\t%s" % s for s in srcs))
EOF
npkgs=$(wc -l <"$work/plan")
echo "plan: $npkgs packages, $(awk -F'\t' '{ n += (NF - 1) / 2 } END { print n }' "$work/plan") stage dirs"

# --- install: the baseline (Z: dpkg-deb's compression option, "" for the default)
b=$work/base
base_install() { # Z; sets t_extract t_trees t_build t_index t_apt t_base
	local z=$1 t0 t1 t2 t3 t4 t5 name rest dn line a n
	rm -rf "$b"
	mkdir -p "$b/art" "$b/pkg" "$b/repo/pool/main" "$b/repo/dists/stable/main/binary-amd64"
	apt_root "$b/root" "$b/repo"
	drop
	t0=$(now)
	for a in "$run"/*.tar.zst "$run"/*.tar.xz; do
		n=$(basename "$a"); n=${n%.tar.*}
		case $a in *.xz) [ -e "$run/$n.tar.zst" ] && continue ;; esac
		mkdir -p "$b/art/$n"
		case $a in *.zst) zstd -dcq "$a" ;; *) xz -dc "$a" ;; esac | tar -x -C "$b/art/$n"
	done
	t1=$(now)
	while IFS=$'\t' read -r name rest; do
		mkdir -p "$b/pkg/$name/opt/rocm/core-7.13"
		cp -a "$work/control/$name" "$b/pkg/$name/DEBIAN"
		while [ -n "$rest" ]; do
			IFS=$'\t' read -r dn line rest <<<"$rest"
			[ -d "$b/art/$dn/$line" ] && cp -a "$b/art/$dn/$line/." "$b/pkg/$name/opt/rocm/core-7.13/"
		done
	done <"$work/plan"
	t2=$(now)
	for name in $(cut -f1 "$work/plan"); do
		dpkg-deb $z --build "$b/pkg/$name" "$b/repo/pool/main/" >/dev/null
	done
	t3=$(now)
	(cd "$b/repo" && dpkg-scanpackages -m pool/main /dev/null 2>/dev/null \
		>dists/stable/main/binary-amd64/Packages &&
		apt-ftparchive -o APT::FTPArchive::Release::Suite=stable \
			-o APT::FTPArchive::Release::Codename=stable \
			-o APT::FTPArchive::Release::Architectures=amd64 \
			-o APT::FTPArchive::Release::Components=main \
			release dists/stable >"$b/Release" && mv "$b/Release" dists/stable/Release)
	t4=$(now)
	apt_install "$b/root" "$b/apt.log"
	t5=$(now)
	t_extract=$(elapsed "$t0" "$t1") t_trees=$(elapsed "$t1" "$t2") t_build=$(elapsed "$t2" "$t3")
	t_index=$(elapsed "$t3" "$t4") t_apt=$(elapsed "$t4" "$t5") t_base=$(elapsed "$t0" "$t5")
	check_installed "$b/root" "baseline"
}
# --- install: rockfs
rock_install() { # sets t_rupdate t_rinstall t_rock hwm
	local t0 t1 t2 r=$work/rroot
	rm -rf "$work/cache" "$r"
	apt_root "$r" "$P/deb"
	drop
	t0=$(now)
	mount_fs "$work/cache"
	sh "$r/apt.sh" update >"$work/rapt.log" 2>&1 || { cat "$work/rapt.log" >&2; exit 1; }
	t1=$(now)
	sh "$r/apt.sh" install -y $WANT >>"$work/rapt.log" 2>&1 || { cat "$work/rapt.log" >&2; exit 1; }
	t2=$(now)
	t_rupdate=$(elapsed "$t0" "$t1") t_rinstall=$(elapsed "$t1" "$t2") t_rock=$(elapsed "$t0" "$t2")
	umount_fs
	check_installed "$r" "rockfs"
	rm -rf "$r"
}
min() { awk -v a="$1" -v b="$2" 'BEGIN { print (a == "" || b < a) ? b : a }'; }
best_xz= best_none= best_rock=
want install || rounds_install=0
for i in $(seq "${rounds_install:-$rounds}"); do
	echo "install, round $i of $rounds ..."
	base_install ""
	echo "  baseline (xz):    $t_base s  (extract $t_extract, cp -a $t_trees, dpkg-deb $t_build, index $t_index, apt $t_apt)"
	if [ -z "$best_xz" ] || [ "$(min "$best_xz" "$t_base")" = "$t_base" ]; then
		best_xz=$t_base bx="extract $t_extract, cp -a $t_trees, dpkg-deb $t_build, index $t_index, apt $t_apt"
	fi
	if [ "$i" = 1 ]; then # the baseline's packages hold what rockfs's hold
		ndiff=0
		while read -r name; do
			(cd "$b/pkg/$name" && find . -mindepth 1 ! -path './DEBIAN' ! -path './DEBIAN/*' |
				sed 's,^\./,,' | LC_ALL=C sort) >"$work/bpaths"
			cmp -s "$work/bpaths" "$work/paths/$name" || {
				echo "  baseline package $name holds other paths than rockfs's:" >&2
				diff "$work/bpaths" "$work/paths/$name" | head -5 >&2 || true
				ndiff=$((ndiff + 1))
			}
		done < <(cut -f1 "$work/plan")
		echo "  baseline packages with rockfs's paths: $((npkgs - ndiff)) of $npkgs"
	fi
	base_install -Znone
	echo "  baseline (-Znone): $t_base s  (extract $t_extract, cp -a $t_trees, dpkg-deb $t_build, index $t_index, apt $t_apt)"
	if [ -z "$best_none" ] || [ "$(min "$best_none" "$t_base")" = "$t_base" ]; then
		best_none=$t_base bn="extract $t_extract, cp -a $t_trees, dpkg-deb $t_build, index $t_index, apt $t_apt"
	fi
	rm -rf "$b"
	rock_install
	echo "  rockfs:           $t_rock s  (mount + update $t_rupdate, install $t_rinstall; VmHWM $hwm MiB)"
	if [ -z "$best_rock" ] || [ "$(min "$best_rock" "$t_rock")" = "$t_rock" ]; then
		best_rock=$t_rock br="mount + update $t_rupdate, install $t_rinstall" hwm_install=$hwm
	fi
done

# --- listing and compressed (issue 28 items 6 and 7)
selected=() sel_bytes=0
for a in "$run"/*.tar.zst "$run"/*.tar.xz; do
	n=$(basename "$a"); n=${n%.tar.*}
	case $a in *.xz) [ -e "$run/$n.tar.zst" ] && continue ;; esac
	selected+=("$a")
done
if want listing || want compressed; then
	mount_fs "$work/cache-sel"
	sed -n '/^Artifacts of the run that no definition selects/,$p' "$P/deb/README" | tail -n +2 |
		awk '$1 != "none" {print $1}' >"$work/unread"
	umount_fs
	rm -rf "$work/cache-sel"
	sel=()
	for a in "${selected[@]}"; do
		n=$(basename "$a"); n=${n%.tar.*}
		grep -qx "$n" "$work/unread" || { sel+=("$a"); sel_bytes=$((sel_bytes + $(stat -c %s "$a"))); }
	done
	selected=("${sel[@]}")
	nunread=$(wc -l <"$work/unread")
fi
untar_selected() {
	local a
	rm -rf "$work/untar" && mkdir -p "$work/untar"
	for a in "${selected[@]}"; do
		case $a in *.zst) tar -I zstd -xf "$a" -C "$work/untar" ;; *) tar -xJf "$a" -C "$work/untar" ;; esac
	done
}
# list_cold WHAT [OPTION...]: best of $rounds of `ls -l` of WHAT (deb/pool/main,
# rpm/x86_64) on an empty cache, page cache dropped; sets t_list. keep=1: the cache stays
ls_l() { ls -l "$@" >/dev/null; }
best_of() { # VAR SECONDS
	if [ -z "${!1}" ] || [ "$(min "${!1}" "$2")" = "$2" ]; then printf -v "$1" %s "$2"; fi
}
list_cold() {
	local what=$1 i t
	shift
	t_list=
	for i in $(seq "$rounds"); do
		rm -rf "$work/cache-l"
		drop
		mount_fs "$work/cache-l" "$@"
		t=$(timeit ls_l "$P/$what")
		best_of t_list "$t"
		[ "$i" = "$rounds" ] && [ "${keep:-0}" = 1 ] || { umount_fs; }
	done
}
sum_sizes() { # KIND: the bytes of every .deb or .rpm, as listed
	local d=$P/deb/pool/main
	[ "$1" = rpm ] && d=$P/rpm/x86_64
	find "$d" -maxdepth 1 -type f -name "*.$1" -printf '%s\n' | awk '{s += $1} END {print s}'
}
if want listing; then
	echo "listing ..."
	t_untar=
	for i in $(seq "$rounds"); do
		drop
		best_of t_untar "$(timeit untar_selected)"
	done
	untar_bytes=$(du -sb "$work/untar" | cut -f1)
	rm -rf "$work/untar"
	list_cold deb/pool/main
	t_list_deb=$t_list
	list_cold rpm/x86_64
	t_list_rpm=$t_list
fi
if want compressed; then
	echo "compressed ..."
	mount_fs "$work/cache-plain"
	ls -l "$P/deb/pool/main" "$P/rpm/x86_64" >/dev/null
	plain_deb=$(sum_sizes deb) plain_rpm=$(sum_sizes rpm)
	umount_fs
	rm -rf "$work/cache-plain"
	for how in zstd xz; do
		keep=1 list_cold deb/pool/main -o packages_compress=$how
		printf -v "t_z_deb_$how" %s "$t_list"
		printf -v "t_z_rpm_$how" %s "$(timeit ls_l "$P/rpm/x86_64")"
		printf -v "z_deb_$how" %s "$(sum_sizes deb)"
		printf -v "z_rpm_$how" %s "$(sum_sizes rpm)"
		umount_fs
		printf -v "hwm_z_$how" %s "$hwm"
		drop
		mount_fs "$work/cache-l" -o packages_compress=$how
		printf -v "t_z_again_$how" %s "$(timeit ls_l "$P/deb/pool/main" "$P/rpm/x86_64")"
		umount_fs
		rm -rf "$work/cache-l"
	done
fi

# --- list+hash
listhash() { ls -lR "$P/deb" "$P/rpm/x86_64" >/dev/null && find "$P/deb" "$P/rpm/x86_64" -type f -print0 | xargs -0 sha256sum >/dev/null; }
if want listhash; then
echo "list+hash ..."
rm -rf "$work/cache"
drop
mount_fs "$work/cache"
t_lh_cold=$(timeit listhash)
umount_fs
hwm_lh_cold=$hwm
drop
mount_fs "$work/cache"
t_lh_warm=$(timeit listhash)
mkdir -p "$work/copy/packages"
cp -a "$P/deb" "$work/copy/packages/deb"
mkdir -p "$work/copy/packages/rpm" && cp -a "$P/rpm/x86_64" "$work/copy/packages/rpm/x86_64"
umount_fs
hwm_lh_warm=$hwm
repo_bytes=$(du -sb "$work/copy" | cut -f1)
nfiles=$(find "$work/copy" -type f | wc -l)
drop
P_saved=$P
P=$work/copy/packages
t_lh_disk=$(timeit listhash)
P=$P_saved
rm -rf "$work/copy"
fi

# --- second arch
if want arch; then
echo "second arch ..."
rm -rf "$work/cache"
drop
mount_fs "$work/cache"
first=$(timeit sh -c "cat '$P'/deb/pool/main/*-gfx1100_*.deb '$P'/rpm/x86_64/*-gfx1100-*.rpm >/dev/null")
second=$(timeit sh -c "cat '$P'/deb/pool/main/*-gfx1101_*.deb '$P'/rpm/x86_64/*-gfx1101-*.rpm >/dev/null")
ndev=$(ls "$P"/deb/pool/main/*-gfx1101_*.deb "$P"/rpm/x86_64/*-gfx1101-*.rpm | wc -l)
umount_fs
hwm_arch=$hwm
fi

echo
echo "machine load when done: $(cut -d' ' -f1-3 /proc/loadavg)"
if want listing; then
echo "== listing, cold (page cache dropped, empty rockfs cache; best of $rounds)"
printf '%-58s %8s s\n' "tar -xf of the ${#selected[@]} selected archives ($((sel_bytes / 1048576)) MiB -> $((untar_bytes / 1048576)) MiB)" "$t_untar"
printf '%-58s %8s s   %sx tar -xf\n' "rockfs: ls -l deb/pool/main" "$t_list_deb" "$(ratio "$t_list_deb" "$t_untar")"
printf '%-58s %8s s   %sx tar -xf\n' "rockfs: ls -l rpm/x86_64" "$t_list_rpm" "$(ratio "$t_list_rpm" "$t_untar")"
echo "    ($nunread archives of the run not selected, not read)"
fi
if want compressed; then
echo "== compressed packages (-o packages_compress), cold listing (best of $rounds)"
printf '%-58s %8s MiB\n' "the selected artifacts" "$((sel_bytes / 1048576))" \
	"the .debs uncompressed" "$((plain_deb / 1048576))" "the .rpms uncompressed" "$((plain_rpm / 1048576))"
for how in zstd xz; do
	zd=z_deb_$how zr=z_rpm_$how td=t_z_deb_$how tr=t_z_rpm_$how ta=t_z_again_$how hz=hwm_z_$how
	printf '%-58s %8s MiB   %sx the artifacts, %sx uncompressed\n' "$how: the .debs" \
		"$((${!zd} / 1048576))" "$(ratio "${!zd}" "$sel_bytes")" "$(ratio "${!zd}" "$plain_deb")" \
		"$how: the .rpms" "$((${!zr} / 1048576))" "$(ratio "${!zr}" "$sel_bytes")" "$(ratio "${!zr}" "$plain_rpm")"
	printf '%-58s %8s s\n' "$how: ls -l deb/pool/main (compresses every .deb)" "${!td}" \
		"$how: then ls -l rpm/x86_64 (its own payload pieces)" "${!tr}" \
		"$how: remount, both listings (every piece in the cache)" "${!ta}"
	printf '%-58s %8s MiB\n' "$how: daemon VmHWM" "${!hz}"
done
fi
if want install; then
echo "== apt-get update && apt-get install $WANT, cold (best of $rounds)"
printf '%-58s %8s s\n' "baseline: extract, cp -a, dpkg-deb (xz), index, apt-get" "$best_xz"
echo "    ($bx)"
printf '%-58s %8s s\n' "baseline: the same with dpkg-deb -Znone" "$best_none"
echo "    ($bn)"
printf '%-58s %8s s   %sx xz, %sx -Znone\n' "rockfs: mount, apt-get update, apt-get install" "$best_rock" \
	"$(ratio "$best_rock" "$best_xz")" "$(ratio "$best_rock" "$best_none")"
echo "    ($br)"
fi
if want listhash; then
echo "== ls -lR + sha256sum of packages/deb and packages/rpm/x86_64 ($nfiles files, $((repo_bytes / 1048576)) MiB)"
printf '%-58s %8s s\n' "the same files on local disk (page cache dropped)" "$t_lh_disk"
printf '%-58s %8s s   %sx local disk\n' "rockfs, fresh cache (ingest, layout, hash, rpm payloads)" "$t_lh_cold" "$(ratio "$t_lh_cold" "$t_lh_disk")"
printf '%-58s %8s s   %sx local disk, %sx cold\n' "rockfs, remount (warm cache, page cache dropped)" "$t_lh_warm" \
	"$(ratio "$t_lh_warm" "$t_lh_disk")" "$(ratio "$t_lh_warm" "$t_lh_cold")"
fi
if want arch; then
echo "== device packages (deb + rpm, $ndev files per target), fresh cache, one mount"
printf '%-58s %8s s\n' "cat of every gfx1100 one (first target)" "$first"
printf '%-58s %8s s   %sx the first\n' "cat of every gfx1101 one (second target)" "$second" "$(ratio "$second" "$first")"
fi
echo "== daemon VmHWM"
printf '%-58s %8s MiB\n' "install (best round)" "${hwm_install:--}" "list+hash, fresh cache" "${hwm_lh_cold:--}" \
	"list+hash, remount" "${hwm_lh_warm:--}" "second arch" "${hwm_arch:--}"
