#!/usr/bin/env bash
# wheel_deflate: -o wheel_compression=deflate (python/ synthesized wheels with deflated
# members) against the default (stored members), on both demo runs:
#  - each synthesized wheel is smaller than its stored twin, its size at stat is the bytes a
#    read gives, every member but the empty ones is deflated (zipinfo), zipfile -t and
#    unzip -t pass, and its members are byte for byte the stored wheel's;
#  - the index checks out (#sha256= of the deflated bytes, RECORD, metadata);
#  - pip installs from the mount (with --require-hashes from the index's hashes);
#  - a remount with the same cache serves the same bytes and compresses nothing; cache
#    verify passes, cache gc evicts pieces and a mount after it serves the same bytes;
#    rockpack wheels --compress (another cache) writes the same bytes;
#  - a member shared by several wheels is deflated once: the cache holds one piece per
#    distinct member content, fewer than the wheels' members, and the log's counts agree.
. "$(dirname "$0")/lib.sh"
it_init "$@"
CHECK=$(dirname "$(realpath "$0")")/pyindex_check.py
PY=/usr/bin/python3
[ -x "$PY" ] || skip "Debian's python3 is not installed"
it_need_venv "$PY"
for tool in unzip zipinfo; do
	command -v $tool >/dev/null || skip "'$tool' is not installed"
done
SPLIT=24205988455-linux
LEGACY=24205988454-linux
PIP_OPTS=(--no-cache-dir --disable-pip-version-check --no-input)
for v in $(env | sed -n 's/^\(PIP_[A-Z_]*\)=.*/\1/p'); do unset "$v"; done
export PIP_CONFIG_FILE=/dev/null

it_mount stored "$STORE" "$T/s" "$T/cache-s"
it_mount fs "$STORE" "$T/m" "$T/cache" -o wheel_compression=deflate

# the synthesized wheels a run serves (PROVENANCE: "FILE<tab>synthesized from ..." or
# "FILE<tab>kpack-split ...")
synth() { sed -n 's/^\([^\t]*\.whl\)\t\(synthesized from\|kpack-split\) .*/\1/p' "$1/PROVENANCE"; }
# where PROVENANCE's name is below python/: files/NAME, or FAMILY/NAME as given
loc() { case $1 in */*) echo "$1" ;; *) echo "files/$1" ;; esac; }

for run in $SPLIT $LEGACY; do
	S=$T/s/$run/python
	P=$T/m/$run/python
	n=0
	for w in $(synth "$P"); do
		n=$((n + 1))
		f=$P/$(loc "$w")
		sz=$(stat -c %s "$f")
		[ "$sz" = "$(wc -c <"$f")" ] || fail "$run: $w: stat says $sz, a read gives $(wc -c <"$f")"
		[ "$sz" -lt "$(stat -c %s "$S/$(loc "$w")")" ] ||
			fail "$run: $w: $sz bytes deflated, not fewer than stored ($(stat -c %s "$S/$(loc "$w")"))"
		python3 -m zipfile -t "$f" >/dev/null || fail "$run: zipfile -t $w"
		unzip -tq "$f" >/dev/null || fail "$run: unzip -t $w"
		# every non-empty member deflated ("defN"), empty ones stored
		zipinfo "$f" | awk 'NF >= 9 && $1 ~ /^-/ && (($4 > 0) != ($6 ~ /^def/)) { bad = 1 }
			END { exit bad }' || fail "$run: $w: a member neither deflated nor empty"
		rm -rf "$T/x1" "$T/x2"
		unzip -q "$f" -d "$T/x1" && unzip -q "$S/$(loc "$w")" -d "$T/x2" ||
			fail "$run: unzip $w"
		diff -r "$T/x1" "$T/x2" >/dev/null || fail "$run: $w: members differ from the stored wheel's"
	done
	[ "$n" -ge 7 ] || fail "$run: only $n synthesized wheels"
	# shellcheck disable=SC2046
	python3 "$CHECK" "$P" $(ls "$P/simple" | grep -v '\.html$') ||
		fail "$run: the index does not check out"
done

# pip: the whole set from the index, and with the index's hashes
IDX=file://$T/m/$SPLIT/python/simple/
V=$T/venv
it_venv "$PY" "$V" || die "venv"
"$V/bin/pip" install "${PIP_OPTS[@]}" --index-url "$IDX" rocm-sdk-device-gfx1100 rocm-sdk-devel \
	>"$T/pip.log" 2>&1 || { fail "pip install from the deflate mount"; tail -n 20 "$T/pip.log" >&2; }
"$V/bin/python" -c 'import rocm_sdk_core, rocm_sdk_libraries, rocm_sdk_devel' ||
	fail "installed packages do not import"
python3 - "$T/m/$SPLIT/python/simple" >"$T/req.txt" <<'EOF'
import re, sys, urllib.parse
root = sys.argv[1]
for proj in ("rocm-sdk-core", "rocm-sdk-libraries", "rocm-sdk-device-gfx1100"):
    page = open("%s/%s/index.html" % (root, proj)).read()
    href = re.search(r'href="([^"]+\.whl)#sha256=([0-9a-f]{64})"', page)
    ver = urllib.parse.unquote(href.group(1)).split("/")[-1].split("-")[1]
    print("%s==%s --hash=sha256:%s" % (proj, ver, href.group(2)))
EOF
"$V/bin/pip" install "${PIP_OPTS[@]}" --index-url "$IDX" --target "$T/hashed" --require-hashes \
	-r "$T/req.txt" >"$T/pip.log" 2>&1 || { fail "pip install --require-hashes"; tail -n 20 "$T/pip.log" >&2; }

# compressed once: one piece per distinct member content (every demo member is under the
# 4 MiB piece size), and fewer pieces than the members of all wheels
pieces=$(find "$T/cache/pieces" -type f | wc -l)
for run in $SPLIT $LEGACY; do
	for w in $(synth "$T/m/$run/python"); do
		python3 - "$T/m/$run/python/$(loc "$w")" <<'EOF'
import hashlib, sys, zipfile
for i in zipfile.ZipFile(sys.argv[1]).infolist():
    if i.file_size:
        print(hashlib.sha256(zipfile.ZipFile(sys.argv[1]).read(i)).hexdigest())
EOF
	done
done >"$T/members"
total=$(wc -l <"$T/members")
distinct=$(sort -u "$T/members" | wc -l)
[ "$pieces" = "$distinct" ] ||
	fail "$pieces pieces in the cache for $distinct distinct members ($total in all)"
[ "$distinct" -lt "$total" ] || fail "no member shared by two wheels ($total members)"
compressed=$(sed -n 's/.*deflated: [0-9]* pieces, \([0-9]*\) compressed.*/\1/p' "${IT_LOG[fs]}" |
	awk '{ s += $1 } END { print s + 0 }')
[ "$compressed" = "$pieces" ] || fail "the log says $compressed pieces compressed, the cache has $pieces"

for run in $SPLIT $LEGACY; do
	mkdir -p "$T/before/$run"
	for w in $(synth "$T/m/$run/python"); do
		mkdir -p "$(dirname "$T/before/$run/$(loc "$w")")"
		cp "$T/m/$run/python/$(loc "$w")" "$T/before/$run/$(loc "$w")"
	done
done
it_quiet_log fs
it_quiet_log stored
it_umount fs
it_umount stored

# a remount with the same cache: the same bytes, nothing compressed again
it_mount again "$STORE" "$T/m" "$T/cache" -o wheel_compression=deflate
for run in $SPLIT $LEGACY; do
	for w in $(cd "$T/before/$run" && find . -name '*.whl' | sed 's,^\./,,'); do
		cmp -s "$T/before/$run/$w" "$T/m/$run/python/$w" || fail "remount: $run: $w differs"
	done
done
cat "$T/m/$SPLIT/python/simple"/*/index.html >/dev/null
! grep -E 'deflated: .*, [1-9][0-9]* compressed' "${IT_LOG[again]}" >&2 ||
	fail "remount: pieces compressed again"
[ "$(find "$T/cache/pieces" -type f | wc -l)" = "$pieces" ] || fail "remount: the pieces changed"
it_quiet_log again
it_umount again

# the pieces are cache records as any: verify checks them, gc evicts them, and a mount
# after gc serves the same bytes (its pieces deflated again)
"$ROCKPACK" -q --cache "$T/cache" cache verify >"$T/verify" 2>&1 ||
	fail "cache verify: $(cat "$T/verify")"
"$ROCKPACK" -q --cache "$T/cache" --cache-size 1 cache gc >/dev/null 2>&1 || fail "cache gc"
[ "$(find "$T/cache/pieces" -type f | wc -l)" -lt "$pieces" ] || fail "cache gc: no piece evicted"
it_mount gc "$STORE" "$T/m" "$T/cache" -o wheel_compression=deflate
for f in "$T/before/$SPLIT"/files/*.whl; do
	cmp -s "$f" "$T/m/$SPLIT/python/files/$(basename "$f")" ||
		fail "after gc: $(basename "$f") differs"
done
it_quiet_log gc
it_umount gc

# rockpack wheels --compress, with a cache of its own: the same bytes
for run in $SPLIT $LEGACY; do
	"$ROCKPACK" -q --cache "$T/cache-rp" wheels "$STORE" $run -o "$T/rp-$run" --compress ||
		fail "$run: rockpack wheels --compress"
	for f in "$T/before/$run"/files/*.whl; do
		cmp -s "$f" "$T/rp-$run/$(basename "$f")" ||
			fail "rockpack wheels --compress: $run: $(basename "$f") differs from the mount's"
	done
done
# and the default: stored, as before
"$ROCKPACK" -q --cache "$T/cache-rp" wheels "$STORE" $SPLIT -o "$T/rp-stored" ||
	fail "rockpack wheels"
w=$(ls "$T/before/$SPLIT/files" | head -n 1)
zipinfo "$T/rp-stored/$w" >"$T/zipinfo" || fail "zipinfo $w"
grep -q ' stor ' "$T/zipinfo" || fail "rockpack wheels without --compress: $w not stored"

it_finish
