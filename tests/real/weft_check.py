# weft_check.py — the Python scripts' weft_check_loaded() (tests/preload/
# weft_check.h): under the runner's weft pass (WEFT_EXPECT=1) the script
# stops with status 99 unless libweft.so is mapped into this very process.
# Natively (WEFT_EXPECT unset) it does nothing.
import os
import sys


def check_loaded():
    if os.environ.get("WEFT_EXPECT") == "1":
        with open("/proc/self/maps") as f:
            if "libweft.so" not in f.read():
                sys.stderr.write("test: WEFT_EXPECT=1 but libweft.so is not loaded\n")
                sys.exit(99)
