#!/usr/bin/env bash
# readme_paths: what README.md's "Using it" examples name exists in a mount of the demo
# store, so that a README edit naming a path the demo lacks fails here:
#  - every /mnt/rock/... path of the example block (also as file:/ and file:/// URLs; a
#    trailing "/..." elided) exists in the mount, /mnt/rock being the mount;
#  - every run id ({11 digits}-linux) is a run of the demo store;
#  - `ls DIR   # a b ... c` comments list entries of DIR (<placeholder> matches any text,
#    {x,y} alternatives each match);
#  - the pip example's project is in that index's simple/;
#  - the README the mount serves at its root has no placeholder links (host-only URLs,
#    example.com/.org, TODO), and README.md's links to files of the tree resolve.
. "$(dirname "$0")/lib.sh"
it_init "$@"
SRC=$(cd "$(dirname "$0")/../.." && pwd)
[ -f "$SRC/README.md" ] || die "no README.md in $SRC"

M=$T/mnt
it_mount fs "$STORE" "$M" "$T/cache"

python3 - "$SRC/README.md" "$M" "$SRC" <<'EOF' || fail "README.md names what the demo store does not have"
import fnmatch, os, re, sys

readme, mnt, src = sys.argv[1:4]
text = open(readme).read()
bad = []

# the "Using it" section's indented example lines
sec = re.search(r"^## Using it\n(.*?)(?=^## )", text, re.S | re.M)
if not sec:
    sys.exit("README.md has no '## Using it' section")
block = "\n".join(l[4:] for l in sec.group(1).splitlines() if l.startswith("    "))
block = block.replace("\\\n", " ").splitlines()  # shell line continuations joined

def where(p):
    return mnt + p[len("/mnt/rock"):]

paths = runs = listings = projects = 0
for line in block:
    for m in re.finditer(r"(?:file:(?://)?)?(/mnt/rock(?:/[^\s'\"]*)?)", line):
        p = re.sub(r"/?\.\.\.$", "", m.group(1))
        paths += 1
        if not os.path.lexists(where(p)):
            bad.append("path %s (in: %s)" % (p, line.strip()))
    for r in re.findall(r"\b\d{11}-linux\b", line):
        runs += 1
        if not os.path.isdir(os.path.join(mnt, r)):
            bad.append("run %s is not in the demo store (in: %s)" % (r, line.strip()))
    m = re.match(r"\s*ls\s+(/mnt/rock\S*)\s+#\s*(.*)$", line)
    if m and ("..." in m.group(2) or "<" in m.group(2)):
        d = where(m.group(1))
        names = os.listdir(d) if os.path.isdir(d) else []
        for tok in m.group(2).split("(")[0].split():
            if tok == "...":
                continue
            alts = [tok]
            b = re.search(r"\{([^}]*)\}", tok)
            if b:
                alts = [tok[:b.start()] + a + tok[b.end():] for a in b.group(1).split(",")]
            for a in alts:
                listings += 1
                pat = re.sub(r"<[^>]*>", "*", a)
                if not fnmatch.filter(names, pat):
                    bad.append("%s lists no %s (README: ls %s  # %s)"
                               % (m.group(1), a, m.group(1), m.group(2)))
    m = re.search(r"--index-url file://(/mnt/rock\S*/simple)/.*?'([A-Za-z0-9._-]+)", line)
    if m:
        projects += 1
        name = re.sub(r"[-_.]+", "-", m.group(2)).lower()
        if not os.path.isfile(os.path.join(where(m.group(1)), name, "index.html")):
            bad.append("no project %s in %s" % (name, m.group(1)))

# the parser must have found the example block's contents, or the test proves nothing
if paths < 10 or runs < 10 or listings < 5 or projects < 1:
    bad.append("parsed only %d paths, %d run ids, %d listed names, %d pip projects:"
               " did the 'Using it' block change shape?" % (paths, runs, listings, projects))

# README.md's relative links resolve in the source tree
for l in re.findall(r"\]\(([^)#]+)\)", text):
    if not re.match(r"[a-z]+:", l) and not os.path.exists(os.path.join(src, l)):
        bad.append("README.md links to %s, which does not exist" % l)

# the mount's README: no placeholder links
root = open(os.path.join(mnt, "README")).read()
for u in re.findall(r"https?://[^\s)]*", root):
    host_only = re.fullmatch(r"https?://[^/]+/?", u.rstrip(".,;"))
    if host_only or re.search(r"example\.(com|org)|TODO|XXX", u):
        bad.append("the mount's README has a placeholder link: %s" % u)
if re.search(r"TODO|FIXME|XXX", root):
    bad.append("the mount's README has a TODO/FIXME/XXX")

for b in bad:
    print("FAIL: README: " + b, file=sys.stderr)
print("readme_paths: %d paths, %d run ids, %d listed names, %d pip projects checked"
      % (paths, runs, listings, projects), file=sys.stderr)
sys.exit(1 if bad else 0)
EOF

it_quiet_log fs
it_umount fs
it_finish
