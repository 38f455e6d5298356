#!/usr/bin/env bash
# packages_contents: every served package holds exactly the files of the artifacts its
# definition selects, by an independent oracle (pkg_oracle.py, written from upstream's
# packaging_utils.py / build_package.py rules, not from rockfs's code).
#  - every artifact of each run is extracted into its own directory by stem, as TheRock's
#    fetch lays them out; the mode is the manifest's KPACK_SPLIT_ARTIFACTS (kpack: one
#    oracle run; single-arch: one per family, with only generic + that family's artifacts);
#  - for every .deb (dpkg-deb --fsys-tarfile | tar -x) and .rpm (rpm2cpio | cpio -idm), the
#    files below /opt/rocm/core-M.m equal the oracle's: the same paths, symlink targets and
#    bytes (the oracle applies runpath_to_rpath.py's DT_RUNPATH -> DT_RPATH tag change to
#    ELF files before hashing), and nothing lies outside the prefix; a DEB's own
#    share/doc/<name>/changelog.Debian.gz is not an artifact's file and is left aside;
#  - the package names served equal the variants upstream builds: non-empty ones, meta and
#    non-versioned ones, and (RPM, kpack) the empty ones; none of the variants upstream
#    skips (DEB, kpack) or never reaches (single-arch, nothing to copy: sys.exit), but
#    for those the view leaves out because they need a package it does not serve
#    (README: "needs X, left out", X itself listed and not served).
. "$(dirname "$0")/lib.sh"
it_init "$@"
for tool in dpkg-deb rpm2cpio cpio; do
	command -v $tool >/dev/null || skip "$tool is not installed"
done
HERE=$(cd "$(dirname "$0")" && pwd)
DEFS=$HERE/../../packaging/packages.json
ORACLE=$HERE/pkg_oracle.py
CHECK=$HERE/pkg_tree_check.py
[ -f "$DEFS" ] || die "no built-in definitions at $DEFS"

M=$T/mnt
it_mount fs "$STORE" "$M" "$T/cache"

# split_oracle FILE DIR: the oracle's output as DIR/<name>.list, and "name status" lines
split_oracle() {
	mkdir -p "$2"
	awk -v d="$2" '/^package / { if (f) close(f); f = d "/" $2 ".list"; printf "" > f; print $2, $3; next }
		{ print > f }' "$1"
}

NPKG=0 NFILES=0 MODES=
for run in $(ls "$STORE"); do
	man=$STORE/$run/manifests/therock_manifest.json
	[ -f "$man" ] && [ -d "$M/$run/packages" ] || continue
	# the mode, and the version (X.Y.Z of rocm_package_version, as upstream's CI derives it)
	read -r mode ver < <(python3 - "$man" <<'EOF'
import json, re, sys
m = json.load(open(sys.argv[1]))
v = re.match(r"\d+\.\d+\.\d+", m.get("rocm_package_version") or m["rocm_version"]).group()
print("kpack" if m.get("flags", {}).get("KPACK_SPLIT_ARTIFACTS") else "single", v)
EOF
)
	MODES="$MODES $mode"
	prefix=opt/rocm/core-$(cut -d. -f1-2 <<<"$ver")
	A=$T/art/$run
	it_extract_run "$STORE/$run" "$A"
	families=
	[ "$mode" = single ] && families=$(ls "$A" | sed -E 's/^.*_//; s/:.*//' | { grep -vx generic || true; } | sort -u)
	it_say "$run: $mode, version $ver, families: $(echo ${families:-(all)})"
	for type in deb rpm; do
		E=$T/exp/$run/$type
		mkdir -p "$E"
		: >"$E.status"
		# the oracle: once (kpack) or once per family, merged; a name two families both
		# build (a non-gfx package) must get the same files from each
		for fam in ${families:-all}; do
			args=()
			[ "$fam" = all ] || args=(--family "$fam")
			python3 "$ORACLE" "$DEFS" "$A" "$mode" --version "$ver" --type $type "${args[@]}" \
				>"$E.$fam.out" 2>>"$T/oracle.log" || die "$run: pkg_oracle.py failed ($type $fam)"
			split_oracle "$E.$fam.out" "$E/$fam" >"$E.$fam.status"
			while read -r name status; do
				if [ -f "$E/$name.list" ]; then
					cmp -s "$E/$fam/$name.list" "$E/$name.list" ||
						fail "$run/$type: oracle: families give $name different files"
					grep -qx "$name $status" "$E.status" ||
						fail "$run/$type: oracle: families give $name different statuses"
					continue
				fi
				cp "$E/$fam/$name.list" "$E/$name.list"
				echo "$name $status" >>"$E.status"
			done <"$E.$fam.status"
		done
		# what rockfs serves
		G=$T/got/$run/$type
		mkdir -p "$G"
		: >"$G.names"
		if [ $type = deb ]; then
			pool=$M/$run/packages/deb/pool/main
			files=$(ls "$pool")
		else
			pool=$M/$run/packages/rpm/x86_64
			files=$(ls "$pool" | grep '\.rpm$')
		fi
		[ -n "$files" ] || fail "$run/$type: no packages served"
		for f in $files; do
			if [ $type = deb ]; then
				name=$(dpkg-deb --field "$pool/$f" Package) || { fail "$run/$f: dpkg-deb --field"; continue; }
				mkdir -p "$G/$name"
				dpkg-deb --fsys-tarfile "$pool/$f" | tar -x -C "$G/$name" ||
					fail "$run/$f: dpkg-deb --fsys-tarfile | tar -x"
			else
				name=${f%-*-*} # {name}-{version}-{release}.x86_64.rpm
				mkdir -p "$G/$name"
				(cd "$G/$name" && rpm2cpio "$pool/$f" | cpio -idm --quiet) ||
					fail "$run/$f: rpm2cpio | cpio -idm"
			fi
			echo "$name" >>"$G.names"
			NPKG=$((NPKG + 1))
		done
		# each package: nothing outside the install prefix, only files and symlinks, and
		# below the prefix exactly the oracle's files (one python for all of them)
		python3 "$CHECK" "$run/$type" $type "$prefix" "$G" "$E" $(cat "$G.names") >"$T/check.out" ||
			die "$run/$type: pkg_tree_check.py failed"
		while IFS= read -r line; do
			case $line in
			"FAIL "*) fail "${line#FAIL }" ;;
			"files "*) NFILES=$((NFILES + ${line#files })) ;;
			*) fail "$run/$type: pkg_tree_check.py said: $line" ;;
			esac
		done <"$T/check.out"
		# the package names: exactly the variants upstream builds
		sort -o "$G.names" "$G.names"
		[ -z "$(uniq -d "$G.names")" ] || fail "$run/$type: served twice: $(uniq -d "$G.names" | tr '\n' ' ')"
		awk '$2 == "files" || $2 == "empty" || $2 == "emptybuilt" { print $1 }' "$E.status" | sort >"$E.names"
		# a package needing one left out is left out too (the repository never names a
		# package it does not serve; the oracle models no dependencies): the README
		# names it and what it needs, which must be one upstream does not build either
		readme=$M/$run/packages/deb/README
		[ $type = rpm ] && readme=$M/$run/packages/rpm/x86_64/README
		sed -n 's/^  \([^ :]*\): needs \([^ ,]*\), left out$/\1 \2/p' "$readme" >"$G.needs"
		while read -r name need; do
			grep -qx "$need" "$G.names" && fail "$run/$type: README: $name left out for $need, which is served"
			grep -q "^  $need: " "$readme" || fail "$run/$type: README: $name needs $need, which it does not list"
		done <"$G.needs"
		while read -r name; do
			grep -q "^$name " "$G.needs" && continue
			fail "$run/$type: $name is not served; upstream builds it ($(awk -v n="$name" '$1 == n { print $2 }' "$E.status"))"
		done < <(comm -23 "$E.names" "$G.names")
		while read -r name; do
			status=$(awk -v n="$name" '$1 == n { print $2 }' "$E.status")
			case $status in
			abort)
				# single-arch, its definition selects nothing: upstream's versioned variant
				# exits before either variant exists (docs/packages.md: "we leave that
				# package out")
				bug "$run/$type: $name is served, but upstream never builds it: its definition" \
					"selects no content here, so the versioned variant is left out and this one" \
					"Depends on a package that is not in the repository" ;;
			skipped) fail "$run/$type: $name is served; upstream skips it (DEB, kpack: nothing to copy)" ;;
			'') fail "$run/$type: $name is served; upstream builds no variant of that name" ;;
			*) fail "$run/$type: $name is served; upstream: $status" ;;
			esac
		done < <(comm -13 "$E.names" "$G.names")
	done
done
grep -h '^pkg_oracle:' "$T/oracle.log" | sort | uniq -c | while read -r line; do it_say "$line"; done
grep -q '[1-9][0-9]* RUNPATH tags patched' "$T/oracle.log" ||
	fail "the oracle patched no DT_RUNPATH: the demo should have ELF files with one"
[[ $MODES == *kpack* && $MODES == *single* ]] || fail "expected a kpack and a single-arch run, got:$MODES"
[ "$NPKG" -gt 0 ] && [ "$NFILES" -gt 0 ] || fail "nothing compared ($NPKG packages, $NFILES files)"
it_say "compared $NPKG packages, $NFILES files"
it_finish
