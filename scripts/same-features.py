#!/usr/bin/env python3
"""Fails when building switchboard-cli after the app would recompile crates the app already built.

Cargo reuses a compiled crate only when the whole unit is the same: its features, profile,
platform and, recursively, those of its dependencies. This compares Cargo's unit graphs of the two
builds (`--unit-graph`, computed without compiling anything; RUSTC_BOOTSTRAP lets a stable Cargo
print it) and lists each dependency the CLI would build differently, with the features that differ
(the CLI's Cargo.toml gives such crates the app's features).
"""
import json
import os
import subprocess
import sys


def unit_graph(package):
    out = subprocess.run(
        ["cargo", "build", "--locked", "-Z", "unstable-options", "--unit-graph", "-p", package],
        capture_output=True, text=True,
        env={**os.environ, "RUSTC_BOOTSTRAP": "1"},
    )
    if out.returncode != 0:
        sys.exit(f"cargo could not plan the build of {package}:\n{out.stderr}")
    return json.loads(out.stdout)["units"]


def identities(units):
    """Each unit's identity: what Cargo hashes into its artifact's name, dependencies included."""
    memo = {}

    def ident(i):
        if i not in memo:
            u = units[i]
            deps = tuple(sorted(ident(d["index"]) for d in u["dependencies"]))
            memo[i] = (own(u), deps)
        return memo[i]

    return [ident(i) for i in range(len(units))]


def slot(u):
    """What a unit is built from and for: the same slot in both builds can share one artifact."""
    return (u["pkg_id"], u["target"]["name"], tuple(u["target"]["kind"]), u["mode"],
            u["platform"], json.dumps(u["profile"], sort_keys=True))


def own(u):
    """A unit apart from its dependencies."""
    return slot(u) + (tuple(u["features"]),)


def external(u):
    return not u["pkg_id"].startswith("path+")


def main():
    app_units, cli_units = unit_graph("switchboard"), unit_graph("switchboard-cli")
    app = set(identities(app_units))
    app_own = {own(u) for u in app_units}
    app_features = {}
    for u in app_units:
        app_features.setdefault(slot(u), []).append(u["features"])
    # Units the app also builds (same crate, target, mode, platform, profile), but differently.
    shared = [(u, i) for u, i in zip(cli_units, identities(cli_units))
              if external(u) and slot(u) in app_features]
    rebuilt = [u for u, i in shared if i not in app]
    # The root causes: units that differ in themselves, not only through a dependency.
    for u in (u for u in rebuilt if own(u) not in app_own):
        print(f"{u['pkg_id'].split('#')[-1]} ({u['mode']}): the CLI asks for {u['features']}, "
              f"the app builds it with {app_features[slot(u)]}", file=sys.stderr)
    if rebuilt:
        print(f"{len(rebuilt)} of the app's compiled dependencies would be compiled again for the "
              "CLI; give the crates above the app's features in src-tauri/cli/Cargo.toml",
              file=sys.stderr)
        sys.exit(1)
    print(f"the CLI reuses all {len(shared)} dependency units it shares with the app")


main()
