#!/usr/bin/env bash
# kpack_damaged: a damaged family artifact of a legacy (fat) run never changes what another
# artifact's view serves (issue 26, item 4). blas_lib_gfx110X-all is cut (its archive ends
# early). Before the fix kpack/blas_lib_generic was silently the gfx94X family's (its
# TensileManifest listed gfx942 only), the gfx110x arch outputs vanished without an error,
# and `rockpack split` and `rockpack export dist/gfx1100` exited 0 with files missing.
# Now:
#   kpack/: the outputs the damaged artifact gives (blas_lib_generic) are listed and fail
#     with EIO, kpack/.damaged names it and the cause, the listing ends in EIO (its arch
#     outputs are unknown); every other output reads as on a healthy mount;
#   rockpack split of the run and export of dist/gfx1100 exit non-zero with one line naming
#     the artifact and the cause; split of another group and export of a tree without it
#     give exactly what a healthy store gives;
#   packages/: the packages made of it are left out (as before), and so are the packages
#     that depend on them (before, amdrocm-core-gfx110x depended on a package the
#     repository did not hold).
. "$(dirname "$0")/lib.sh"
it_init "$@"

RUN=24205988454-linux
BAD=blas_lib_gfx110X-all
S=$T/store
mkdir -p "$S"
cp -r "$STORE/$RUN" "$S/$RUN"
f=$S/$RUN/$BAD.tar.zst
[ -f "$f" ] || die "premise: $BAD missing"
head -c $(($(stat -c %s "$f") * 6 / 10)) "$f" >"$T/cut" && mv "$T/cut" "$f"
(cd "$S/$RUN" && sha256sum "$BAD.tar.zst" >"$BAD.tar.zst.sha256sum") # only the cut is wrong

it_mount clean "$STORE" "$T/clean" "$T/cache-clean"
it_mount bad "$S" "$T/mnt" "$T/cache"
CK=$T/clean/$RUN/kpack
K=$T/mnt/$RUN/kpack

# 1. kpack/: lists what it has, then EIO
if err=$(ls "$K" 2>&1 >"$T/ls.out"); then
	fail "kpack/: ls succeeded without the damaged artifact's outputs"
else
	grep -q 'Input/output error' <<<"$err" || fail "kpack/: ls: '$err', expected EIO"
fi
grep -qx blas_lib_generic "$T/ls.out" || fail "kpack/: blas_lib_generic is not listed"
if err=$(ls "$K/blas_lib_generic" 2>&1); then
	fail "kpack/blas_lib_generic (the damaged family's) was listed: $err"
else
	grep -q 'Input/output error' <<<"$err" || fail "kpack/blas_lib_generic: '$err', expected EIO"
fi
grep -q "^$BAD.tar.zst	.*Truncated" "$K/.damaged" ||
	fail "kpack/.damaged does not name $BAD and its cause: '$(cat "$K/.damaged" 2>&1)'"
[ ! -e "$CK/.damaged" ] || fail "the healthy mount has kpack/.damaged"
# every other output as on the healthy mount
n=0
for o in $(ls "$CK"); do
	case $o in blas_lib_generic | blas_lib_gfx110*) continue ;; esac
	grep -qx "$o" "$T/ls.out" || {
		fail "kpack/$o (healthy) is not listed"
		continue
	}
	it_sums "$CK/$o" >"$T/want.sum"
	it_sums "$K/$o" >"$T/got.sum" || fail "kpack/$o: read failed"
	it_same "kpack/$o" "$T/want.sum" "$T/got.sum"
	n=$((n + 1))
done
[ "$n" -ge 8 ] || fail "only $n healthy kpack outputs compared"
it_say "kpack/: $n healthy outputs equal the healthy mount's"

# 2. rockpack split of the run: fails, naming the artifact
rc=0
"$ROCKPACK" split "$S" "$RUN" -o "$T/split" >"$T/split.out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "rockpack split exited 0 with $BAD damaged"
grep -q "$BAD.tar.zst.*Truncated" "$T/split.out" ||
	fail "rockpack split does not name $BAD and the cause: $(cat "$T/split.out")"
[ ! -e "$T/split" ] || fail "rockpack split left a partial output"
# a group without the damaged artifact splits as from the healthy store
"$ROCKPACK" split "$S" "$RUN" rand_lib -o "$T/split-rand" >/dev/null 2>&1 ||
	fail "rockpack split rand_lib failed"
"$ROCKPACK" split "$STORE" "$RUN" rand_lib -o "$T/split-rand-want" >/dev/null 2>&1 ||
	fail "rockpack split rand_lib (healthy store) failed"
it_sums "$T/split-rand-want" >"$T/want.sum"
it_sums "$T/split-rand" >"$T/got.sum"
it_same "rockpack split rand_lib" "$T/want.sum" "$T/got.sum"

# 3. rockpack export of the tree holding it fails, naming it; another tree is whole
rc=0
"$ROCKPACK" export "$S" "$RUN" dist/gfx1100 -o "$T/exp" >"$T/exp.out" 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "rockpack export dist/gfx1100 exited 0 with $BAD damaged"
grep -q "$BAD.tar.zst.*Truncated" "$T/exp.out" ||
	fail "rockpack export does not name $BAD and the cause: $(cat "$T/exp.out")"
[ "$(grep -c . "$T/exp.out")" -le 2 ] || fail "rockpack export: more than one error line: $(cat "$T/exp.out")"
"$ROCKPACK" export "$S" "$RUN" dist/gfx942 -o "$T/exp942" >/dev/null 2>&1 ||
	fail "rockpack export dist/gfx942 failed"
it_sums "$T/clean/$RUN/dist/gfx942" >"$T/want.sum"
it_sums "$T/exp942" >"$T/got.sum"
it_same "rockpack export dist/gfx942" "$T/want.sum" "$T/got.sum"
# the mount's dist/gfx94X-dcgpu, a tree without it, reads as healthy
it_sums "$T/clean/$RUN/dist/gfx94X-dcgpu" >"$T/want.sum"
it_sums "$T/mnt/$RUN/dist/gfx94X-dcgpu" >"$T/got.sum" || fail "dist/gfx94X-dcgpu: read failed"
it_same "dist/gfx94X-dcgpu" "$T/want.sum" "$T/got.sum"

# 4. packages/: no package the repository holds depends on one it left out for the damage
# (the dependents of a left-out package are left out too, each with a log line)
missing_deps() { # missing_deps POOL: "package -> relation" naming no package in POOL
	python3 - "$1" <<'EOP'
import os, subprocess, sys
pool = sys.argv[1]
deps = {}
for f in sorted(os.listdir(pool)):
    out = subprocess.run(["dpkg-deb", "-f", os.path.join(pool, f), "Package", "Depends"],
                         check=True, capture_output=True, text=True).stdout
    fields = dict(l.split(": ", 1) for l in out.splitlines() if ": " in l)
    deps[fields["Package"]] = fields.get("Depends", "")
for p, d in sorted(deps.items()):
    for item in filter(None, (x.strip() for x in d.split(","))):
        alts = [a.strip().split(" ")[0] for a in item.split("|")]
        if not any(a in deps or not a.startswith("amdrocm") for a in alts):
            print(p, "->", item)
EOP
}
if command -v dpkg-deb >/dev/null; then
	missing_deps "$T/clean/$RUN/packages/deb/pool/main" >"$T/deps.want"
	missing_deps "$T/mnt/$RUN/packages/deb/pool/main" >"$T/deps.got" || fail "packages: reading the pool failed"
	if grep -vxFf "$T/deps.want" "$T/deps.got" >"$T/deps.new"; then
		fail "packages: packages depend on packages the damage left out: $(head -3 "$T/deps.new")"
	fi
	grep -q "packages: amdrocm-core7.13-gfx110x left out: it depends on" "${IT_LOG[bad]}" ||
		fail "packages: no line says amdrocm-core7.13-gfx110x is left out for its dependency"
else
	it_say "dpkg-deb is not installed: packages not checked"
fi
it_finish
