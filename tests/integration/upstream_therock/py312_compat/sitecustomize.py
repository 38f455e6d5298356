"""Python 3.12 pathlib methods for Python 3.11 (Debian 12), for TheRock's packaging code.

Loaded through PYTHONPATH by tests/integration/python_upstream_build.sh. Adds only what
upstream's build_python_packages.py uses, with the meaning Python 3.12 gives it:
  PurePath.relative_to(other, walk_up=True)  may step up with '..' entries;
  Path.exists(follow_symlinks=False)          is os.path.lexists.
On Python 3.12 or later this does nothing.
"""
import os
import pathlib
import sys

if sys.version_info < (3, 12):
    _relative_to = pathlib.PurePath.relative_to
    _exists = pathlib.Path.exists

    def relative_to(self, other, *more, walk_up=False):
        if not walk_up:
            return _relative_to(self, other, *more)
        other = type(self)(other, *more)
        if self.anchor != other.anchor:
            raise ValueError("%r and %r have different anchors" % (str(self), str(other)))
        if ".." in other.parts:
            raise ValueError("'..' segment in %r cannot be walked" % str(other))
        return type(self)(os.path.relpath(str(self), str(other)))

    def exists(self, *, follow_symlinks=True):
        if follow_symlinks:
            return _exists(self)
        return os.path.lexists(self)

    pathlib.PurePath.relative_to = relative_to
    pathlib.Path.exists = exists
