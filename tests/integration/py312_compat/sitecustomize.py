"""Python 3.12 standard library features for Python 3.11 (Debian 12), for the upstream
tools the tests run as oracles: TheRock's build_python_packages.py
(tests/integration/upstream_therock/) and rocm-kpack's split_artifacts.py
(tests/integration/upstream_kpack/).

Loaded through PYTHONPATH by the tests that run them. Adds only what that code uses, with
the meaning Python 3.12 gives it:
  PurePath.relative_to(other, walk_up=True)   may step up with '..' entries;
  Path.exists(follow_symlinks=False)           is os.path.lexists;
  tempfile.TemporaryDirectory(delete=False)    is not removed on exit.
On Python 3.12 or later this does nothing.
"""
import os
import pathlib
import sys
import tempfile

if sys.version_info < (3, 12):
    _relative_to = pathlib.PurePath.relative_to
    _exists = pathlib.Path.exists
    _TemporaryDirectory = tempfile.TemporaryDirectory

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

    class TemporaryDirectory(_TemporaryDirectory):
        def __init__(self, suffix=None, prefix=None, dir=None,
                     ignore_cleanup_errors=False, *, delete=True):
            super().__init__(suffix, prefix, dir, ignore_cleanup_errors)
            self._delete = delete
            if not delete:
                self._finalizer.detach()

        def __exit__(self, exc, value, tb):
            if self._delete:
                self.cleanup()

    pathlib.PurePath.relative_to = relative_to
    pathlib.Path.exists = exists
    tempfile.TemporaryDirectory = TemporaryDirectory
