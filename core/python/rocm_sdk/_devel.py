"""The development tree of rocm-sdk-devel, expanded on first use.

The rocm-sdk-devel wheel cannot hold symlinks, so it ships its tree as
rocm_sdk_devel/_devel.tar (docs/therock-formats.md 6.4): every member is under
"_rocm_sdk_devel/", and files a runtime wheel already installed are relative
symlinks to them ("../../_rocm_sdk_core/lib/libamdhip64.so.7"). On first use
(`rocm-sdk init`, `rocm-sdk path`) we expand it into site-packages, as TheRock
does:

* symlinks to files become hardlinks to their targets (tools that locate
  themselves through /proc/self/exe then see the devel tree), symlinks to
  directories stay symlinks; dangling symlinks stay symlinks;
* the new paths are appended to rocm-sdk-devel's RECORD ("path,,"), so that
  `pip uninstall rocm-sdk-devel` removes them;
* the tarball is deleted last: while it exists, the tree is not (completely)
  expanded.

Differences from upstream (docs/python-sdk.md): we refuse hostile members (an
absolute or ".." name, a member outside "_rocm_sdk_devel/", a link leaving
site-packages, devices and fifos) and then remove what was written; we write
files ourselves instead of tarfile.extract; a failed expansion leaves RECORD
untouched; upstream's exception that keeps bin/amdclang* as symlinks is not
needed (our tarballs have no such symlinks, the clang driver is a file).

Concurrency: expansion holds an exclusive flock on the RECORD file, and
checks again for the tarball once it has the lock; a process that finds the
tarball gone knows another one finished. A tree left by an interrupted
expansion (the tarball is still there) is removed and expanded again.

Device wheels (kpack builds) ship _rocm_sdk_libraries/.devel_links/<target>.json;
after expansion each listed device file is hardlinked into the devel tree and
recorded in that device wheel's RECORD, on every call, so that a device wheel
installed later is picked up by the next `rocm-sdk init`. Unlike upstream we
record them in rocm-sdk-devel's RECORD too: pip removes a directory whole only
when its distribution owns every file under it, so with the links in the device
wheels' RECORDs alone, `pip uninstall rocm-sdk-devel rocm-sdk-device-...` (in
that order) left the devel tree's directories behind, empty. Owned by both, the
tree goes whole with rocm-sdk-devel, and a device wheel uninstalled first takes
its links (pip skips RECORD rows whose file is gone).
"""

import errno
import json
import os
import shutil
import stat
import sys
import tarfile

from . import _dist_info as di
from . import _locate

TARBALL_NAMES = ("_devel.tar", "_devel.tar.xz", "_devel.tar.gz")


class DevelError(RuntimeError):
    """The devel tree cannot be expanded (hostile or damaged tarball, no RECORD)."""


def _devel_pure_dir():
    name = di.ALL_PACKAGES["devel"].pure_py_package_name
    d = _locate.pure_package_dir(name)
    if d is None:
        raise _locate.PackageNotInstalled(
            "The ROCm SDK development package (rocm-sdk-devel, Python package %s) is "
            "not installed; install it with `pip install rocm[devel]` (version %s)"
            % (name, di.__version__))
    return d


def _find_tarball(pure_dir):
    for name in TARBALL_NAMES:
        p = pure_dir / name
        if p.is_file():
            return p
    return None


def _dist_record(site, dist_name):
    """RECORD of an installed dist in site, or None. Wheel installers name the
    directory <normalized name with '_'>-<version>.dist-info."""
    want = dist_name.replace("-", "_").lower()
    for entry in sorted(os.listdir(str(site))):
        if not entry.endswith(".dist-info"):
            continue
        if entry[:-len(".dist-info")].rsplit("-", 1)[0].replace(".", "_").lower() != want:
            continue
        record = site / entry / "RECORD"
        if record.is_file():
            return record
    return None


def is_expanded():
    """True when rocm-sdk-devel is installed and its tree is expanded."""
    pure = _devel_pure_dir()
    root = pure.parent / di.ALL_PACKAGES["devel"].get_py_package_name()
    return _find_tarball(pure) is None and root.is_dir()


def get_devel_root():
    """The devel tree (site-packages/_rocm_sdk_devel), expanded first if needed.

    Raises ModuleNotFoundError (PackageNotInstalled) when rocm-sdk-devel is not
    installed, DevelError when it cannot be expanded.
    """
    pure = _devel_pure_dir()
    site = pure.parent
    root = site / di.ALL_PACKAGES["devel"].get_py_package_name()
    tarball = _find_tarball(pure)
    if tarball is not None:
        _expand(site, tarball, root)
    if not root.is_dir():
        raise DevelError("rocm-sdk-devel is installed but neither its tarball nor its "
                         "tree %s exists; reinstall rocm[devel]" % root)
    record = _dist_record(site, "rocm-sdk-devel")
    if record is None:
        reconcile_device_links(site, root)
    else:
        # one process at a time links device files into the tree (the same lock as
        # the expansion; reconcile_device_links takes the device wheels' own locks)
        with _Locked(record) as lock:
            reconcile_device_links(site, root, lock)
    return root


# --- Locking and RECORD --------------------------------------------------------


class _Locked:
    """An exclusive flock on a file opened for appending (its RECORD)."""

    def __init__(self, path):
        self.path = path
        self.fd = -1

    def __enter__(self):
        import fcntl

        self.fd = os.open(str(self.path), os.O_WRONLY | os.O_APPEND)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc):
        os.close(self.fd)  # releases the lock
        return False


def _append_record(lock, names):
    """Appends "name,," for each name RECORD does not list yet (a retry after a
    crash between this and deleting the tarball must not duplicate rows)."""
    with open(str(lock.path), "r", encoding="utf-8", newline="") as f:
        have = set(line.split(",", 1)[0] for line in f.read().splitlines())
    new = [n for n in names if n not in have]
    if not new:
        return
    data = "".join("%s,,\n" % n for n in new)
    with open(str(lock.path), "rb") as f:  # RECORD may lack a final newline
        f.seek(0, os.SEEK_END)
        if f.tell() > 0:
            f.seek(-1, os.SEEK_END)
            if f.read(1) != b"\n":
                data = "\n" + data
    os.write(lock.fd, data.encode("utf-8"))
    os.fsync(lock.fd)


# --- Expansion -------------------------------------------------------------------


def _expand(site, tarball, root):
    record = _dist_record(site, "rocm-sdk-devel")
    if record is None:
        raise DevelError(
            "Cannot expand rocm-sdk-devel: no RECORD for it in %s (was it installed by "
            "a system package manager?). Install rocm[devel] with pip into a virtual "
            "environment." % site)
    with _Locked(record) as lock:
        if not tarball.exists():
            return  # another process expanded it while we waited
        if os.path.lexists(str(root)):
            # Left by an interrupted expansion: start again.
            if os.path.islink(str(root)) or not os.path.isdir(str(root)):
                os.unlink(str(root))
            else:
                shutil.rmtree(str(root))
        try:
            names = _extract(tarball, site, root.name)
        except BaseException:
            if os.path.lexists(str(root)) and not os.path.islink(str(root)):
                shutil.rmtree(str(root), ignore_errors=True)
            raise
        _append_record(lock, names)
        tarball.unlink()


def _refuse(member, why):
    raise DevelError("refusing member %r of the rocm-sdk-devel tarball: %s" % (member, why))


def _within(path, top):
    return path == top or path.startswith(top + os.sep)


def _check_name(name, prefix):
    """Validates a member name; returns it without a trailing '/'."""
    clean = name.rstrip("/")
    if not clean or clean.startswith("/") or "\\" in clean or "\0" in clean:
        _refuse(name, "not a relative path")
    parts = clean.split("/")
    if any(p in ("", ".", "..") for p in parts):
        _refuse(name, "empty, '.' or '..' path component")
    if parts[0] != prefix:
        _refuse(name, "not under %s/" % prefix)
    return clean


def _check_parent(real_site, rel):
    """The directory a member goes into must be a real directory of ours: no
    symlink (made earlier from the tarball) on the way."""
    parent = os.path.dirname(rel)
    if os.path.realpath(os.path.join(real_site, parent)) != os.path.join(real_site, parent):
        _refuse(rel, "its directory goes through a symlink")


def _extract(tarball, site, prefix):
    """Extracts the tarball into site; returns the site-relative names of the
    files and links made (for RECORD). Raises DevelError on a hostile member."""
    real_site = os.path.realpath(str(site))
    made = []
    with tarfile.open(str(tarball), "r:*") as tf:
        members = tf.getmembers()
        seen = set()
        dirs, files, hardlinks, symlinks = [], [], [], []
        for m in members:
            name = _check_name(m.name, prefix)
            if name in seen:
                _refuse(m.name, "duplicate member")
            seen.add(name)
            if name == prefix and not m.isdir():
                _refuse(m.name, "the top directory is not a directory")
            if m.isdir():
                dirs.append((name, m))
            elif m.isreg():
                files.append((name, m))
            elif m.islnk():
                hardlinks.append((name, m))
            elif m.issym():
                symlinks.append((name, m))
            else:
                _refuse(m.name, "not a file, directory or link")

        # Directories: those listed, and the parents of every member. Nothing
        # from the tarball is a symlink yet, so mkdir cannot leave site.
        os.mkdir(os.path.join(real_site, prefix), 0o755)
        listed_dirs = set(n for n, _ in dirs)
        needed = set(listed_dirs)
        for name in seen:
            d = os.path.dirname(name)
            while d and d != prefix:
                needed.add(d)
                d = os.path.dirname(d)
        for d in sorted(needed, key=lambda x: x.count("/")):
            if d in seen and d not in listed_dirs:
                _refuse(d, "used both as a directory and as a file or link")
            path = os.path.join(real_site, d)
            if not os.path.isdir(path):
                os.mkdir(path, 0o755)

        # Regular files, written by us (no tarfile.extract): mode without
        # set-id bits, O_EXCL and O_NOFOLLOW so nothing is written through a link.
        for name, m in files:
            _check_parent(real_site, name)
            path = os.path.join(real_site, name)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW,
                         0o600)
            with os.fdopen(fd, "wb") as out:
                shutil.copyfileobj(tf.extractfile(m), out, 1 << 20)
            os.chmod(path, (m.mode & 0o755) | stat.S_IRUSR | stat.S_IWUSR)
            os.utime(path, (m.mtime, m.mtime))
            made.append(name)

        # Hard links inside the tarball: to a regular file member.
        regular = set(n for n, _ in files)
        for name, m in hardlinks:
            target = m.linkname.rstrip("/")
            if target not in regular:
                _refuse(m.name, "hard link to %r, not a file of the tarball" % m.linkname)
            _check_parent(real_site, name)
            os.link(os.path.join(real_site, target), os.path.join(real_site, name))
            made.append(name)

    # Symlinks. A symlink to a file becomes a hard link to it; to a directory
    # stays a symlink. A target may be another symlink of the tarball, so we go
    # round until nothing changes; what is left dangles and stays a symlink.
    pending = []
    for name, m in symlinks:
        link = m.linkname
        if not link or os.path.isabs(link) or "\0" in link:
            _refuse(m.name, "symlink target %r is not relative" % link)
        lexical = os.path.normpath(os.path.join(os.path.dirname(name), link))
        if lexical == ".." or lexical.startswith("../"):
            _refuse(m.name, "symlink target %r leaves site-packages" % link)
        pending.append((name, link))
    made_symlinks = []
    while pending:
        left = []
        for name, link in pending:
            _check_parent(real_site, name)
            dest = os.path.join(real_site, name)
            target = os.path.realpath(os.path.join(os.path.dirname(dest), link))
            if not _within(target, real_site):
                _refuse(name, "symlink target %r resolves outside site-packages" % link)
            if os.path.isfile(target):
                _hardlink_or_copy(target, dest)
                made.append(name)
            elif os.path.isdir(target):
                os.symlink(link, dest)
                made.append(name)
                made_symlinks.append(name)
            else:
                left.append((name, link))
        if len(left) == len(pending):
            for name, link in left:  # dangling: kept as a symlink
                os.symlink(link, os.path.join(real_site, name))
                made.append(name)
                made_symlinks.append(name)
            break
        pending = left

    # The tree is a regular package, as upstream's (whose tarball has the
    # __init__.py): importlib finds it, and `pip uninstall` sees the root as a
    # directory of recorded files and removes it as a whole.
    init = os.path.join(real_site, prefix, "__init__.py")
    if not os.path.lexists(init):
        with open(init, "x", encoding="utf-8") as f:
            f.write('"""ROCm SDK development tree, expanded from rocm_sdk_devel/_devel.tar."""\n')
        made.append(prefix + "/__init__.py")

    # Symlinks made later can change where earlier ones lead ("a -> b/..",
    # then "b -> .."): check them all again now that the tree is complete.
    for name in made_symlinks:
        dest = os.path.join(real_site, name)
        if not _within(os.path.realpath(dest), real_site):
            _refuse(name, "symlink resolves outside site-packages")
    return made


def _hardlink_or_copy(target, dest):
    try:
        os.link(target, dest)
    except OSError as e:
        # Another file system, or a kernel that forbids the link
        # (fs.protected_hardlinks): a copy is the best we can do.
        if e.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK):
            raise
        shutil.copy2(target, dest)


# --- Device files (kpack builds) ------------------------------------------------


def reconcile_device_links(site, root, devel_lock=None):
    """Hardlinks the device files listed in each installed device wheel's
    .devel_links/<target>.json into the devel tree, recording them in that
    wheel's RECORD and, given devel_lock (rocm-sdk-devel's RECORD, locked), in
    that one too. Idempotent; returns how many links were made. Manifests of
    another version, or entries that would leave the tree, are skipped with a
    warning on stderr."""
    libraries = di.ALL_PACKAGES["libraries"]
    if libraries.is_target_specific:
        return 0  # legacy builds have no device wheels
    links_dir = site / libraries.get_py_package_name() / ".devel_links"
    if not links_dir.is_dir():
        return 0
    real_site = os.path.realpath(str(site))
    real_root = os.path.realpath(str(root))
    made = 0
    every_name = []
    for manifest in sorted(links_dir.glob("*.json")):
        target_name = manifest.stem
        try:
            data = json.loads(manifest.read_text(encoding="utf-8"))
            links = data.get("links", [])
            version = data.get("version")
        except (OSError, ValueError, AttributeError) as e:
            _warn("ignoring %s: %s" % (manifest, e))
            continue
        if version != di.__version__:
            _warn("ignoring %s: version %s is not rocm-sdk %s"
                  % (manifest, version, di.__version__))
            continue
        record = _dist_record(site, "rocm-sdk-device-" + target_name)
        names = []
        for link in links:
            try:
                relpath, target = link["relpath"], link["target"]
            except (TypeError, KeyError):
                _warn("ignoring a malformed entry of %s" % manifest)
                continue
            lexical = os.path.normpath(relpath) if isinstance(relpath, str) else ""
            if (not lexical or os.path.isabs(lexical) or lexical == ".."
                    or lexical.startswith("../") or not isinstance(target, str)
                    or os.path.isabs(target)):
                _warn("ignoring entry %r of %s" % (relpath, manifest))
                continue
            dest = os.path.join(real_root, lexical)
            parent = os.path.dirname(dest)
            if not _make_real_dirs(real_root, os.path.dirname(lexical)):
                _warn("ignoring %s of %s: its directory is a symlink or a file"
                      % (relpath, manifest))
                continue
            src = os.path.realpath(os.path.join(parent, target))
            if not _within(src, real_site) or not os.path.isfile(src):
                _warn("ignoring %s of %s: target %s is not a file in site-packages"
                      % (relpath, manifest, target))
                continue
            names.append(os.path.relpath(dest, real_site).replace(os.sep, "/"))
            if os.path.isfile(dest) and not os.path.islink(dest) and os.path.samefile(dest, src):
                continue
            if os.path.lexists(dest):
                if os.path.isdir(dest) and not os.path.islink(dest):
                    _warn("ignoring %s of %s: a directory is in the way" % (relpath, manifest))
                    names.pop()
                    continue
                os.unlink(dest)
            _hardlink_or_copy(src, dest)
            made += 1
        if names and record is not None:
            with _Locked(record) as lock:
                _append_record(lock, names)
        every_name += names
    if every_name and devel_lock is not None:
        _append_record(devel_lock, every_name)
    return made


def _make_real_dirs(top, rel):
    """Makes the directories of rel under top, refusing to go through a
    symlink (the devel tree's directory symlinks lead into other packages)."""
    path = top
    for part in rel.split(os.sep) if rel else []:
        path = os.path.join(path, part)
        if os.path.islink(path):
            return False
        if not os.path.isdir(path):
            if os.path.lexists(path):
                return False
            try:
                os.mkdir(path, 0o755)
            except FileExistsError:
                # another process linking the same device files made it first
                if os.path.islink(path) or not os.path.isdir(path):
                    return False
    return True


def _warn(message):
    print("rocm-sdk: warning: %s" % message, file=sys.stderr)
