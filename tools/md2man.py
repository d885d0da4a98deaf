#!/usr/bin/env python3
"""md2man.py NAME SECTION VERSION SUMMARY README "Heading[=MAN HEADING]"...

Writes a man page (roff, man macros) to stdout, made of the named sections
of README.md, so the manual and the README have one source.  A README
section is a "## Heading" and everything up to the next "## "; "###"
inside it becomes a subsection.  The first section may be "(intro)": the
text before the first "## ".

The Markdown handled is what README.md uses: paragraphs, "- " lists with
indented continuation lines, ``` code blocks, | tables | (each row becomes
a tagged paragraph: the first cell is the tag, the others follow with
their column headings), `code` (bold) and **strong** (bold).
"""
import re, sys


def esc(text):
    """roff-escape plain text (no font changes yet)."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return text


def inline(text):
    """Markdown inline markup to roff fonts."""
    out, pos = [], 0
    for m in re.finditer(r"`([^`]*)`|\*\*([^*]+)\*\*", text):
        out.append(esc(text[pos:m.start()]))
        out.append("\\fB" + esc(m.group(1) if m.group(1) is not None else m.group(2)) + "\\fR")
        pos = m.end()
    out.append(esc(text[pos:]))
    s = "".join(out)
    return s


def line_safe(s):
    """A roff text line must not start with a control character."""
    return "\\&" + s if s[:1] in (".", "'") else s


def sections(md):
    """{heading: [lines]} of the README's "## " sections, and "(intro)"."""
    res, cur = {"(intro)": []}, "(intro)"
    for line in md.splitlines():
        if line.startswith("## "):
            cur = line[3:].strip()
            res[cur] = []
        elif line.startswith("# ") and cur == "(intro)":
            continue
        else:
            res[cur].append(line)
    return res


def table(rows):
    cells = [[c.strip() for c in r.strip().strip("|").split("|")] for r in rows]
    head, body = cells[0], [c for c in cells[2:]]
    out = []
    for r in body:
        out.append(".TP")
        out.append(line_safe(inline(r[0])))
        parts = []
        for h, c in zip(head[1:], r[1:]):
            parts.append(line_safe(inline(("%s: " % h if h else "") + c)))
        out.append("\n.br\n".join(parts))
    return out


def convert(lines):
    out, i, n = [], 0, len(lines)
    while i < n:
        line = lines[i]
        if not line.strip():
            i += 1
            continue
        if line.startswith("### "):
            out.append(".SS " + inline(line[4:].strip()))
            i += 1
        elif line.startswith("```"):
            i += 1
            out += [".PP", ".RS 4", ".nf"]
            while i < n and not lines[i].startswith("```"):
                out.append(line_safe(esc(lines[i])))
                i += 1
            out += [".fi", ".RE"]
            i += 1
        elif line.startswith("|"):
            rows = []
            while i < n and lines[i].startswith("|"):
                rows.append(lines[i])
                i += 1
            out += table(rows)
        elif line.startswith("- "):
            item = [line[2:].strip()]
            i += 1
            while i < n and lines[i].startswith("  ") and lines[i].strip():
                item.append(lines[i].strip())
                i += 1
            out += [".IP \\(bu 2", line_safe(inline(" ".join(item)))]
        else:
            para = []
            while (i < n and lines[i].strip() and not lines[i].startswith(("- ", "```", "|",
                                                                            "### "))):
                para.append(lines[i].strip())
                i += 1
            out += [".PP", line_safe(inline(" ".join(para)))]
    return out


def main():
    if len(sys.argv) < 7:
        sys.exit(__doc__.splitlines()[0])
    name, section, version, summary, readme = sys.argv[1:6]
    secs = sections(open(readme).read())
    out = ['.TH %s %s "" "weft %s" "weft"' % (name.upper(), section, version),
           ".SH NAME", "%s \\- %s" % (name, esc(summary))]
    for spec in sys.argv[6:]:
        src, _, title = spec.partition("=")
        if src not in secs:
            sys.exit("md2man: README has no section %r" % src)
        out.append(".SH " + (title or src).upper())
        out += convert(secs[src])
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
