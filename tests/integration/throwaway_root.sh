# throwaway_root.sh: throwaway systems over the host's /, for tests that live on a
# repository as an administrator would (apt-get, dnf, the README's recipes as written).
# Sourced (bash), before lib.sh:
#
#   . "$(dirname "$0")/throwaway_root.sh"
#   tr_namespace "$@"       # re-runs the test in a private mount namespace (root)
#   . "$(dirname "$0")/lib.sh"; it_init "$@"
#   tr_roots SIZE           # a tmpfs at $NS ($T/ns) for the roots, unmounted on exit
#   tr_mkroot NAME MNT DIR  # an overlay of / at $NS/NAME/root ($R), MNT bound at DIR
#   in_root CMD...          # CMD chrooted into $R with a clean environment

# tr_namespace ARGS...: re-run "$0" ARGS in a private mount namespace, so the overlays,
# binds and chroots never show on the host. The namespace starts with copies of every
# mount, other tests' FUSE mounts among them: a copy holds its daemon after its own test
# unmounts it, so they are let go at once.
tr_namespace() {
	if [ -z "${RK_LIVE_NS:-}" ]; then
		[ "$(id -u)" = 0 ] || { echo "SKIP: needs root (mount namespace, chroot)" >&2; exit 77; }
		command -v unshare >/dev/null || { echo "SKIP: unshare is not installed" >&2; exit 77; }
		RK_LIVE_NS=1 exec unshare -m --propagation private bash "$0" "$@"
	fi
	awk '$3 ~ /^fuse/ {print $2}' /proc/self/mounts | while read -r m; do
		umount -l "$m" 2>/dev/null || true
	done
}

# tr_roots SIZE: the tmpfs (SIZE, e.g. 2g) the roots' upper layers live in, at NS=$T/ns;
# on exit it is unmounted, with every root, before it_cleanup removes $T.
tr_roots() {
	command -v chroot >/dev/null || skip "chroot is not installed"
	grep -qw overlay /proc/filesystems || skip "no overlay filesystem"
	NS=$T/ns
	trap tr_exit EXIT
	mkdir -p "$NS"
	mount -t tmpfs -o "size=$1" rockfs-roots "$NS" || skip "cannot mount a tmpfs"
}
tr_exit() {
	local rc=$?
	set +eE
	trap - ERR
	umount -R -l "$NS" 2>/dev/null
	(exit $rc)
	it_cleanup
}

# tr_mkroot NAME MNT DIR: a throwaway system over the host's / at $NS/NAME/root (R), with
# its own /proc and /dev/null, and MNT (a rockfs mount) bound at DIR in it.
tr_mkroot() {
	local d=$NS/$1
	mkdir -p "$d/upper" "$d/work" "$d/root"
	mount -t overlay overlay -o "lowerdir=/,upperdir=$d/upper,workdir=$d/work" "$d/root" ||
		die "cannot mount an overlay of /"
	mkdir -p "$d/root$3" "$d/root/proc"
	mount --bind "$2" "$d/root$3"
	mount -t proc proc "$d/root/proc"
	rm -f "$d/root/dev/null"
	mknod -m 666 "$d/root/dev/null" c 1 3
	R=$d/root
}

in_root() {
	chroot "$R" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C HOME=/root \
		DEBIAN_FRONTEND=noninteractive "$@"
}
