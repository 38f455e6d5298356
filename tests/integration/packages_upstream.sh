#!/usr/bin/env bash
# packages_upstream: TheRock's own build_package.py (89553ce, vendored in
# tests/integration/upstream_therock/build_tools/packaging/linux/ with its package.json
# and templates) is the oracle for RUN/packages/. It runs offline here with Debian's
# debhelper, dpkg-dev, rpm (rpmbuild), patchelf and python3-jinja2, over a copy of the
# demo's kpack-split run's browse/ (the layout its fetch step extracts; it converts
# DT_RUNPATH in place, so not the read-only mount), with --enable-kpack and the run id as
# --version-suffix, as TheRock's CI calls it, once for DEB and once for RPM. The mount,
# with its built-in definitions (the facts of that package.json:
# unit.pkg_defs.upstream_facts), must serve the same packages
# (pkg_upstream_cmp.py): the same names; for a DEB the same control fields, data files
# (paths, modes after dh_fixperms, link targets, bytes) and maintainer scripts present;
# for an RPM the same tags, dependencies, file list (modes, owners, digests) and bytes;
# but for the differences docs/packages.md lists.
# Upstream's side comes from upstream_oracle/ when its record's key is that of these
# inputs, else from build_package.py run here (upstream_oracle/README.md).
. "$(dirname "$0")/lib.sh"
it_init "$@"
PY=/usr/bin/python3
HERE=$(cd "$(dirname "$0")" && pwd)
UP=$HERE/upstream_therock/build_tools
for tool in dpkg-buildpackage dh rpmbuild patchelf dpkg-deb rpm rpm2cpio cpio; do
	command -v $tool >/dev/null || skip "$tool is not installed"
done
"$PY" -c 'import jinja2' 2>/dev/null || skip "build_package.py needs python3-jinja2"
SPLIT=24205988455-linux

M=$T/mnt
it_mount fs "$STORE" "$M" "$T/cache"
cp -a "$M/$SPLIT/browse" "$T/artifacts" && chmod -R u+w "$T/artifacts" || die "copy browse/"
run_id=${SPLIT%%-*}
# the version TheRock's CI passes is compute_rocm_package_version.py's for the type; the
# demo's is a dev build, whose day is the run's (docs/packages.md, "Versions"): ours
f=$(find "$M/$SPLIT/packages/deb/pool" -name '*.deb' -print -quit)
ver_deb=$(dpkg-deb --field "$f" Version) || die "dpkg-deb --field $f"
f=$(find "$M/$SPLIT/packages/rpm" -name '*.rpm' -print -quit)
ver_rpm=$(rpm -qp --qf '%{VERSION}' "$f" 2>/dev/null) || die "rpm -qp $f"
# Upstream's build of these inputs is recorded in upstream_oracle/ (what its packages hold,
# with the SHA-256 of every input: README.md there): the same key compares with the record;
# another (the demo, the vendored scripts or Debian's tools changed), or RK_UPSTREAM_LIVE=1,
# runs build_package.py (20 minutes on one core); RK_UPSTREAM_RECORD=1 writes its record.
REC=$HERE/upstream_oracle
declare -A ver=([deb]=${ver_deb%-*} [rpm]=$ver_rpm) key
# both keys before either build: build_package.py rewrites the artifacts' RUNPATHs
for type in deb rpm; do
	key[$type]=$("$PY" "$HERE/pkg_upstream_cmp.py" key $type "$T/artifacts" "${ver[$type]}" "$run_id") ||
		die "the key of upstream's $type build"
done
live=${RK_UPSTREAM_LIVE:-}${RK_UPSTREAM_RECORD:-}
for type in deb rpm; do
	ours=$M/$SPLIT/packages/deb/pool
	[ $type = rpm ] && ours=$M/$SPLIT/packages/rpm
	oracle=$REC/$type.json.gz
	recorded=
	[ -f "$oracle" ] && recorded=$(gzip -dc "$oracle" | "$PY" -c 'import json, sys; print(json.load(sys.stdin)["key"])')
	if [ -n "$live" ] || [ "$recorded" != "${key[$type]}" ]; then
		[ -n "$live" ] || it_say "no record of upstream's $type build of these inputs (${key[$type]}): building"
		(cd "$UP/packaging/linux" &&
			PYTHONPATH=$UP:$HERE/py312_compat "$PY" build_package.py --artifacts-dir "$T/artifacts" \
				--dest-dir "$T/up-$type" --pkg-type $type --rocm-version "${ver[$type]}" \
				--version-suffix "$run_id" --enable-kpack) >"$T/up-$type.log" 2>&1 ||
			{ fail "upstream's build_package.py --pkg-type $type"; tail -n 20 "$T/up-$type.log" >&2; continue; }
		oracle=$T/$type.json.gz
		"$PY" "$HERE/pkg_upstream_cmp.py" facts $type "$T/up-$type" "${key[$type]}" "$oracle" ||
			die "the record of upstream's $type build"
		if [ -n "${RK_UPSTREAM_RECORD:-}" ]; then
			cp "$oracle" "$REC/$type.json.gz" && it_say "recorded upstream's $type build in $REC"
		fi
	fi
	"$PY" "$HERE/pkg_upstream_cmp.py" $type "$oracle" "$ours" >"$T/cmp-$type.log" 2>&1 ||
		{ fail "$type: what packages/ serves differs from upstream's build"; grep -v '^compared' "$T/cmp-$type.log" | head -n 20 >&2; }
	it_say "$(head -n 1 "$T/cmp-$type.log")"
done
it_quiet_log fs
it_finish
