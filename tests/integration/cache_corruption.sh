#!/usr/bin/env bash
# cache_corruption: a seeded sweep over every kind of cache record (issue 16). A clean
# mount reads every view of every run (sha256 of every file); then one random bit is flipped
# in one record of each kind (index/, pieces/, kpack/, pyhash/, pkghash/: what a local
# store makes; remote/ is covered by the unit tests of the framing), and a remount on the
# same cache must show every view byte for byte as the clean mount did, with one log line
# naming each damaged record. Then the same flips again, and `rockpack cache verify`
# reports each record, counts it under its kind and exits non-zero.
# SEED=<n> in the environment picks other records and bits (default 16).
. "$(dirname "$0")/lib.sh"
it_init "$@"


C=$T/cache
M=$T/mnt
SEED=${SEED:-16}
KINDS="index pieces kpack pyhash pkghash"

it_mount clean "$STORE" "$M" "$C"
it_sums "$M" >"$T/clean.sums" || fail "clean mount: unreadable"
it_quiet_log clean
it_umount clean
[ "$(wc -l <"$T/clean.sums")" -ge 100 ] || fail "clean mount: only $(wc -l <"$T/clean.sums") files"

# flip one seeded bit in one seeded record of each kind; print "KIND/NAME BYTE BIT"
flip() {
	python3 - "$C" "$1" $KINDS <<'EOF'
import os, random, sys
cache, seed, kinds = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
rng = random.Random(seed)
for kind in kinds:
    d = os.path.join(cache, kind)
    names = sorted(os.listdir(d)) if os.path.isdir(d) else []
    if not names:
        print(f"{kind}/ NONE")
        continue
    name = rng.choice(names)
    p = os.path.join(d, name)
    data = bytearray(open(p, "rb").read())
    byte, bit = rng.randrange(len(data)), rng.randrange(8)
    data[byte] ^= 1 << bit
    os.chmod(p, 0o600)
    open(p, "wb").write(data)
    print(f"{kind}/{name} {byte} {bit}")
EOF
}

flip "$SEED" >"$T/flipped"
it_say "flipped: $(tr '\n' ';' <"$T/flipped")"
grep -q NONE "$T/flipped" && fail "a kind of record was not made by the clean mount: $(grep NONE "$T/flipped")"

it_mount damaged "$STORE" "$M" "$C"
it_sums "$M" >"$T/damaged.sums" || fail "after the flips: unreadable"
it_same "every view after one bit flipped per record kind" "$T/clean.sums" "$T/damaged.sums"
it_umount damaged
while read -r rec _; do
	n=$(grep -c "record '$rec' failed its check" "${IT_LOG[damaged]}" || true)
	[ "$n" = 1 ] || fail "damaged record $rec: $n log lines naming it, want 1"
done <"$T/flipped"

# verify: the same flips (the records were made again), reported per kind
flip "$SEED" >"$T/flipped2"
rc=0
"$ROCKPACK" --cache "$C" cache verify >"$T/verify.out" 2>"$T/verify.err" || rc=$?
[ "$rc" != 0 ] || fail "cache verify exited 0 with damaged records: $(cat "$T/verify.out")"
for k in $KINDS; do
	grep -qE "^$k +[0-9]+ records, 1 bad$" "$T/verify.out" ||
		fail "cache verify: want 1 bad $k record: $(grep "^$k " "$T/verify.out")"
done
grep -q "^bad     5 " "$T/verify.out" || fail "cache verify: $(cat "$T/verify.out")"
while read -r rec _; do
	grep -q "record '$rec' failed its check" "$T/verify.err" || fail "cache verify did not name $rec"
done <"$T/flipped2"
"$ROCKPACK" --cache "$C" cache verify >"$T/verify2.out" 2>&1 || fail "second verify: $(cat "$T/verify2.out")"

it_finish
