"""pyzstd, as much of it as TheRock's archive_util.py reads archives with (ZstdFile in "rb"
mode), over the zstd command: Debian 12 packages no pyzstd. For integration.install_upstream
only."""
import io
import subprocess


class ZstdFile(io.BytesIO):
    def __init__(self, path, mode="rb", **kwargs):
        if mode != "rb":
            raise NotImplementedError("this pyzstd shim only reads")
        out = subprocess.run(["zstd", "-dcq", str(path)], check=True, capture_output=True)
        super().__init__(out.stdout)
