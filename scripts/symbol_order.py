"""Writes lld's symbol ordering file for switchboard-cli: the functions a profiled run used.

    symbol_order.py BINARY ORDER_FILE CALLGRIND_OUT...

The functions are those the callgrind profiles ran in BINARY, and those of the paths callgrind
cannot follow (a server's start: the vfork child, the pidfd, the sandbox, which valgrind cannot
run). Names still in the binary from the ORDER_FILE already there are kept. Sorted, so the file
is a set. ORDER_FILE is rewritten only when names in it are gone from the binary, or when the
run used more than 1% of its functions that the file lacks: threads take turns differently from run to run, and a few functions on rare paths
cost a block or two of memory where a new link costs minutes. Prints what it holds on stderr.
"""

import re
import subprocess
import sys

# Demangled-name parts of the paths that run where callgrind cannot see them.
UNSEEN_PATHS = (
    "switchboard_sandbox::",
    "switchboard_protocol::process::",
    "landlock::",
    "tokio::process::",
    "tokio::io::async_fd",
    "tokio::runtime::io::",
)


def text_symbols(binary):
    """(mangled, demangled, size) of every function, in the symbol table's own order."""
    def read(*flags):
        out = subprocess.run(["nm", "-p", "-S", "--defined-only", *flags, binary],
                             capture_output=True, text=True, check=True).stdout
        return [line.split(None, 3) for line in out.splitlines()]
    rows = []
    for raw, shown in zip(read(), read("-C")):
        if len(raw) == 4 and raw[2] in "tTwW":
            rows.append((raw[3], shown[3], int(raw[1], 16)))
    return rows


def profiled(binary, paths):
    """Names of the functions of BINARY that the callgrind profiles ran."""
    own = binary.rsplit("/", 1)[-1]
    names = set()
    for path in paths:
        in_binary = False
        with open(path, encoding="utf-8", errors="replace") as profile:
            for line in profile:
                if line.startswith("ob="):
                    in_binary = line[3:].strip().endswith(own)
                elif in_binary and line.startswith("fn="):
                    # callgrind marks recursion levels with 'N.
                    names.add(re.sub(r"'\d+$", "", line[3:].strip()))
    return names


def main():
    binary, order_path, profiles = sys.argv[1], sys.argv[2], sys.argv[3:]
    symbols = text_symbols(binary)
    known = {name for name, _, _ in symbols}
    try:
        with open(order_path, encoding="utf-8") as old:
            before = old.read()
    except FileNotFoundError:
        before = ""
    kept = set(before.split()) & known
    used = profiled(binary, profiles)
    used |= {name for name, shown, _ in symbols if any(p in shown for p in UNSEEN_PATHS)}
    used &= known
    hot = kept | used
    if len(used - kept) * 100 <= len(used):
        hot = kept
    after = "".join(f"{name}\n" for name in sorted(hot))
    size = sum(size for name, _, size in symbols if name in hot)
    print(f"symbol order: {len(hot)} functions, {size // 1024} KiB", file=sys.stderr)
    if after != before:
        with open(order_path, "w", encoding="utf-8") as new:
            new.write(after)


if __name__ == "__main__":
    main()
