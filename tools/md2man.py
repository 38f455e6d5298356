#!/usr/bin/env python3
"""md2man.py: docs/man/*.md to man(7) pages, for `cmake --install` (tools/CMakeLists.txt).

    md2man.py IN.md OUT.N VERSION

Knows only what our pages use: `# name(N)` (the title), `## SECTION`, paragraphs,
definition lists (a `` `term` `` line, then `: text` with indented continuation lines),
`* ` bullets, fenced code blocks and inline `code` (bold); a line `<!-- ... -->` is a
comment. Anything else is text.
Python's standard library only, so the install depends on nothing new."""
import re
import sys


def inline(text):
    """Escape for roff, then `code` in bold."""
    text = text.replace("\\", "\\e")
    text = text.replace("-", "\\-")
    # code in bold, and long paths may break after a '/' (\\: a break point)
    return re.sub(r"`([^`]*)`", lambda m: "\\fB" + m.group(1).replace("/", "/\\:") + "\\fR",
                  text, flags=re.S)


def block_out(lines):
    """Text lines, as one block: a `code` span may go on over a line break. roff takes a
    leading . or ' as a request."""
    text = inline("\n".join(l.strip() for l in lines))
    return "\n".join("\\&" + l if l.startswith((".", "'")) else l for l in text.split("\n"))


def line_out(text):
    return block_out([text])


def convert(lines, version):
    out = []
    section = None
    in_code = False
    i = 0
    while i < len(lines):
        raw = lines[i].rstrip("\n")
        i += 1
        if raw.startswith("```"):
            out.append(".fi" if in_code else ".PP\n.nf")
            if in_code:
                out.append(".PP")
            in_code = not in_code
            continue
        if in_code:
            out.append("\\&" + raw.replace("\\", "\\e"))
            continue
        if raw.startswith("<!--") and raw.rstrip().endswith("-->"):
            continue  # a comment (the markers of a generated section)
        m = re.match(r"^# (\S+)\((\d)\)\s*$", raw)
        if m:
            out.append('.TH %s %s "" "rockfs %s"' % (m.group(1).upper(), m.group(2), version))
            # left-aligned, no hyphenation: option and path names stay whole
            out.append(".ad l\n.nh")
            continue
        if raw.startswith("## "):
            section = raw[3:].strip()
            out.append(".SH " + inline(section.upper()))
            continue
        if not raw.strip():
            if out and out[-1] not in (".PP",) and not out[-1].startswith((".SH", ".TH")):
                out.append(".PP")
            continue
        if raw.startswith("* "):
            out.append(".IP \\(bu 2")
            body = [raw[2:]]
            while i < len(lines) and lines[i].startswith("  ") and lines[i].strip():
                body.append(lines[i])
                i += 1
            out.append(block_out(body))
            continue
        # a definition: term line(s), then ': text'
        if i < len(lines) and lines[i].startswith(": "):
            out.append(".TP")
            out.append(line_out(raw))
            body = [lines[i][2:]]
            i += 1
            while i < len(lines) and lines[i].startswith("  ") and lines[i].strip():
                body.append(lines[i])
                i += 1
            out.append(block_out(body))
            continue
        if section == "SYNOPSIS" and raw.startswith("`"):
            out.append(line_out(raw))
            out.append(".br")
            continue
        # a paragraph: up to a blank line or another construct
        body = [raw]
        while (i < len(lines) and lines[i].strip() and not lines[i].startswith(("#", "* ", "```"))
               and not (i + 1 < len(lines) and lines[i + 1].startswith(": "))):
            body.append(lines[i])
            i += 1
        out.append(block_out(body))
    while out and out[-1] in (".PP", ".br"):
        out.pop()
    # no paragraph break right after a heading
    clean = []
    for l in out:
        if l == ".PP" and clean and clean[-1].startswith((".SH", ".TH", ".PP", ".nh")):
            continue
        clean.append(l)
    return "\n".join(clean) + "\n"


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: md2man.py IN.md OUT.N VERSION")
    with open(sys.argv[1], encoding="utf-8") as f:
        text = convert(f.readlines(), sys.argv[3])
    with open(sys.argv[2], "w", encoding="utf-8") as f:
        f.write(text)


if __name__ == "__main__":
    main()
