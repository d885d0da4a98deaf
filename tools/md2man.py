#!/usr/bin/env python3
"""md2man.py NAME SECTION VERSION SUMMARY FILE.md "Heading[=MAN HEADING]"... [FILE.md ...]...

Writes a man page (roff, man macros) to stdout, made of the named sections
of Markdown files (README.md, docs/*.md), so the manual and the pages have
one source.  Each FILE.md argument names the file the section arguments
after it come from.  A section is a "## Heading" and everything up to the
next "## "; "###" inside it becomes a subsection.  "(intro)" is the text
before the first "## "; "(all)" is the whole file but its "# " title, its
"## " headings becoming subsections and its "### " headings bold
paragraph titles.  Links keep their text (and an http address in angle
brackets), images and HTML lines (anchors, comments) are left out.

The Markdown handled is what README.md uses: paragraphs, "- " lists with
indented continuation lines, ``` code blocks, | tables | (each row becomes
a tagged paragraph: the first cell is the tag, the others follow with
their column headings), `code` (bold), **strong** (bold) and *emphasis*
(italic).
"""
import re, sys


def esc(text):
    """roff-escape plain text (no font changes yet)."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return text


def links(text):
    """Markdown images dropped, links to their text (web links keep the address)."""
    text = re.sub(r"!\[[^\]]*\]\([^)]*\)", "", text)
    return re.sub(r"\[([^\]]+)\]\(([^)]+)\)",
                  lambda m: m.group(1) + (" <%s>" % m.group(2) if m.group(2).startswith("http") else ""),
                  text)


def inline(text):
    """Markdown inline markup to roff fonts."""
    text = links(text).replace("\\|", "|")
    out, pos = [], 0
    for m in re.finditer(r"`([^`]*)`|\*\*([^*]+)\*\*|(?<![\w*])\*([^*\s][^*]*)\*(?![\w*])", text):
        out.append(esc(text[pos:m.start()]))
        if m.group(3) is not None:
            out.append("\\fI" + esc(m.group(3)) + "\\fR")
        else:
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
    cells = [[c.strip() for c in re.split(r"(?<!\\)\|", r.strip().strip("|"))] for r in rows]
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


def convert(lines, whole=False):
    out, i, n = [], 0, len(lines)
    while i < n:
        line = lines[i]
        if not line.strip() or line.lstrip().startswith("<"):
            i += 1
            continue
        if whole and line.startswith("## "):
            out.append(".SS " + inline(line[3:].strip()))
            i += 1
        elif whole and line.startswith("### "):
            out += [".PP", "\\fB" + inline(line[4:].strip()).replace("\\fR", "\\fB") + "\\fR"]
            i += 1
        elif line.startswith("### "):
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
                                                                            "### ", "## ", "<"))):
                para.append(lines[i].strip())
                i += 1
            out += [".PP", line_safe(inline(" ".join(para)))]
    return out


def main():
    if len(sys.argv) < 7:
        sys.exit(__doc__.splitlines()[0])
    name, section, version, summary = sys.argv[1:5]
    out = ['.TH %s %s "" "weft %s" "weft"' % (name.upper(), section, version),
           ".SH NAME", "%s \\- %s" % (name, esc(summary))]
    path, secs, text = None, {}, ""
    for spec in sys.argv[5:]:
        if spec.endswith(".md"):
            path = spec
            text = open(path, encoding="utf-8").read()
            secs = sections(text)
            continue
        src, _, title = spec.partition("=")
        if src == "(all)":
            body = [l for l in text.splitlines() if not l.startswith("# ")]
            out.append(".SH " + (title or path).upper())
            out += convert(body, whole=True)
            continue
        if src not in secs:
            sys.exit("md2man: %s has no section %r" % (path, src))
        out.append(".SH " + (title or src).upper())
        out += convert(secs[src])
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
