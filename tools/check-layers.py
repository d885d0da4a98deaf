#!/usr/bin/env python3
"""check-layers.py — every quoted #include in sched/, shim/ and arch/ stays
inside the folders its own folder may depend on.

The table is the one in sched/README.md, between the lines
`<!-- layers -->` and `<!-- /layers -->`: a row `| folder | may include |`
per folder (a folder of sched/ by its name, or shim, arch).  A file may
always include a header of its own folder.  An include is found as the
compiler finds it (the including file's folder, then -Isched, then
-Iarch/<arch>), so what is checked is the header the build reads.  Also a
violation: a source or header of sched/ outside a folder of the table, an
include the build cannot find, an include of another folder written with
`../` (an include of another folder names it: "core/proc.h"), and a
header of sched/ reached from a file that is not in the table.

One line per violation, `file:line: message`; exit 1 if any.
Usage: check-layers.py [repository root]
"""
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else '.'
os.chdir(root)

BEGIN, END = '<!-- layers -->', '<!-- /layers -->'


def read_table():
    text = open('sched/README.md').read()
    if BEGIN not in text or END not in text:
        sys.exit(f'sched/README.md: no table between {BEGIN} and {END}')
    allowed = {}
    for line in text.split(BEGIN, 1)[1].split(END, 1)[0].splitlines():
        cells = [c.strip().strip('`') for c in line.strip().strip('|').split('|')]
        if len(cells) != 2 or not cells[0] or set(cells[0]) <= set('-: ') or cells[0] == 'folder':
            continue
        allowed[cells[0]] = {w.strip('`,') for w in cells[1].split()} | {cells[0]}
    return allowed


allowed = read_table()
arch_dirs = sorted(d for d in os.listdir('arch') if os.path.isdir(os.path.join('arch', d)))


def unit_of(path):
    """The table's name for the folder a file lies in, or None."""
    parts = path.split('/')
    if parts[0] == 'sched':
        return parts[1] if len(parts) > 2 else None
    if parts[0] in ('shim', 'arch'):
        return parts[0]
    return None


def resolve(src, inc):
    """The file the compiler reads for #include "inc" in src, or None."""
    here = os.path.dirname(src)
    cands = [os.path.join(here, inc), os.path.join('sched', inc)]
    if src.startswith('arch/'):
        cands.append(os.path.join('arch', src.split('/')[1], inc))
    else:
        cands += [os.path.join('arch', a, inc) for a in arch_dirs]
    for c in cands:
        if os.path.isfile(c):
            return os.path.normpath(c)
    return None


inc_re = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
bad = []
nincs = 0
files = []
for top in ('sched', 'shim', 'arch'):
    for d, _, names in os.walk(top):
        files += [os.path.join(d, n) for n in sorted(names) if n.endswith(('.c', '.h', '.S'))]

for src in sorted(files):
    unit = unit_of(src)
    if unit is None or unit not in allowed:
        bad.append(f'{src}:1: not in a folder of the layer table (sched/README.md)')
        continue
    for ln, line in enumerate(open(src, errors='replace'), 1):
        m = inc_re.match(line)
        if not m:
            continue
        inc = m.group(1)
        nincs += 1
        hdr = resolve(src, inc)
        if hdr is None:
            bad.append(f'{src}:{ln}: "{inc}" is not found as the build finds it')
            continue
        to = unit_of(hdr)
        if to is None:
            bad.append(f'{src}:{ln}: "{inc}" is {hdr}, outside the folders of the layer table')
            continue
        if to != unit and '..' in inc.split('/'):
            name = f'"{to}/{os.path.basename(hdr)}"' if hdr.startswith('sched/') else 'its name'
            bad.append(f'{src}:{ln}: "{inc}": a header of another folder is included as {name}, without ../')
        if to not in allowed[unit]:
            bad.append(f'{src}:{ln}: {unit} may not include {to}/ ("{inc}"): {unit} may include '
                       f'{" ".join(sorted(allowed[unit] - {unit}))} (sched/README.md)')

for b in bad:
    print(f'check-layers: {b}')
if not bad:
    print(f'check-layers: {len(files)} files, {nincs} includes, each as sched/README.md allows')
sys.exit(1 if bad else 0)
