#!/usr/bin/env python3
"""Independent flatten of TheRock artifact archives, for the dist tests.

    flatten.py OUT ARCHIVE...

Extracts each archive in the order given into OUT the way TheRock's
ArtifactPopulator(flatten=True) does (therock-formats.md section 2): the first
member is artifact_manifest.txt; every other member loses the first manifest
prefix it starts with; directories merge; an existing file or symlink at the
destination is unlinked first (last writer wins); regular files get
member mode & 0o755 (tar -x under umask 022); symlinks are recreated verbatim (one
that resolves above OUT is dropped, as rockfs confines every output); hardlinks are
linked to their flattened target. Written from the documented behaviour, with
Python's tarfile (what TheRock itself uses), not from rockfs's code.
"""
import os
import subprocess
import sys
import tarfile


def open_archive(path):
    if path.endswith(".tar.zst"):
        data = subprocess.run(["zstd", "-q", "-dc", path], check=True, capture_output=True).stdout
        import io
        return tarfile.open(fileobj=io.BytesIO(data), mode="r:")
    return tarfile.open(path, mode="r:*")


def flatten(out, archive):
    with open_archive(archive) as tf:
        members = tf.getmembers()
        if not members or members[0].name != "artifact_manifest.txt":
            sys.exit(f"{archive}: first member is not artifact_manifest.txt")
        text = tf.extractfile(members[0]).read().decode()
        prefixes = [line for line in text.split("\n") if line.strip()]
        for m in members[1:]:
            prefix = next((p for p in prefixes if m.name.startswith(p + "/")), None)
            if prefix is None:
                sys.exit(f"{archive}: '{m.name}' is not in the manifest")
            dest = os.path.join(out, m.name[len(prefix) + 1:])
            if m.isdir():
                os.makedirs(dest, exist_ok=True)
                continue
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            if os.path.islink(dest) or (os.path.exists(dest) and not os.path.isdir(dest)):
                os.unlink(dest)
            if m.issym():
                os.symlink(m.linkname, dest)
            elif m.islnk():
                target = next(p for p in prefixes if m.linkname.startswith(p + "/"))
                os.link(os.path.join(out, m.linkname[len(target) + 1:]), dest)
            elif m.isfile():
                with open(dest, "wb") as f:
                    f.write(tf.extractfile(m).read())
                os.chmod(dest, m.mode & 0o755)  # tar -x under umask 022
            else:
                sys.exit(f"{archive}: '{m.name}': unsupported member type")


def confine(out):
    """Drop every symlink that resolves above out, until none is left."""
    root = os.path.realpath(out)
    while True:
        dropped = 0
        for d, dirs, files in os.walk(root):
            for n in dirs + files:
                p = os.path.join(d, n)
                if os.path.islink(p):
                    r = os.path.realpath(p)
                    if os.path.isabs(os.readlink(p)) or not (r == root or r.startswith(root + "/")):
                        os.unlink(p)
                        dropped += 1
        if not dropped:
            return


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    os.umask(0o022)
    for archive in sys.argv[2:]:
        flatten(out, archive)
    confine(out)


if __name__ == "__main__":
    main()
