#!/usr/bin/env python3
"""Renders docs/guide/results.md, and README.md's headline tables, from bench/results/*.json.

Each file under bench/results/ is one run: when (date, time), on what (card, host, software), how
(commands), where the figures were first written (source), and the figures, either as porta-bench's
own `porta_summary` (`series` and `chart` rows: id, label, unit, higher_is_better, values, one value a
series; porta-bench --from-json draws its chart) or as `items`, tables and notes in the order they were measured. A run with "headline": true
also gives a table to README.md, between the markers below (its "readme_rows" only, where named),
and to the page's Headline section (every row).

    results_page.py                       print the page
    results_page.py --write               rewrite docs/guide/results.md and README.md's headline
    results_page.py --check               exit 1 when either differs from what the data gives
Python 3 standard library only.
"""
import argparse
import json
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
BEGIN = "<!-- headline results: made by bench/tools/results_page.py from bench/results/; edit the data, then run it with --write -->"
END = "<!-- end of headline results -->"


def load(results_dir):
    runs = []
    for path in sorted(results_dir.glob("*.json")):
        run = json.loads(path.read_text(encoding="utf-8"))
        run["file"] = path.name
        for key in ("title", "date", "card", "commands", "source"):
            if key not in run:
                raise SystemExit(f"{path}: no '{key}'")
        runs.append(run)
    # newest first; within a day, by the time written, then the file name
    runs.sort(key=lambda r: (r["date"], r.get("time", ""), r["file"]), reverse=True)
    return runs


def number(v):
    """A figure as a table shows it: as the data has it, except that a figure with more digits than
    a timing holds (porta-bench's JSON keeps them all) is shown whole from 100 up, else with four
    significant digits."""
    if v is None:
        return ""
    if isinstance(v, float) and v.is_integer() and abs(v) >= 100:
        return str(int(v))
    s = str(v)
    if isinstance(v, float) and len(s) > 7:
        s = str(round(v)) if abs(v) >= 100 else f"{v:.4g}"
    return s


def cell(text):
    # GitHub splits a table row at every bare |, inside code spans too; \| is a | in either.
    return str(text).replace("|", "\\|")


def table(columns, rows):
    def numeric(i):  # right-align a column whose filled cells mostly start with a figure
        filled = [str(r[i]) for r in rows if i < len(r) and str(r[i])]
        return i > 0 and filled and sum(c[:1].isdigit() for c in filled) * 2 >= len(filled)
    out = ["| " + " | ".join(cell(c) for c in columns) + " |",
           "|" + "".join("---:|" if numeric(i) else "---|" for i in range(len(columns)))]
    for r in rows:
        r = list(r) + [""] * (len(columns) - len(r))
        out.append("| " + " | ".join(cell(c) for c in r) + " |")
    return "\n".join(out)


def ratio_to_best_peer(row, series):
    """porta's first series against the best peer (a series that is not a porta device)."""
    values = row["values"]
    peers = [v for s, v in zip(series, values) if ":" not in s and v is not None]
    if values[0] is None or not peers:
        return ""
    best = max(peers) if row["higher_is_better"] else min(peers)
    r = values[0] / best if row["higher_is_better"] else best / values[0]
    return f"{r:.2f}x"


def summary_table(run, ratio=True, only=None):
    s = run["porta_summary"]
    series = s["series"]
    columns = ["work"] + [f"porta `{x}`" if ":" in x else x for x in series]
    if ratio:
        columns.append("first porta column / best peer")
    rows = []
    for row in s["chart"]:
        if only is not None and row["id"] not in only:
            continue
        r = [f"{row['label']}, {row['unit']}"] + [number(v) for v in row["values"]]
        if ratio:
            r.append(ratio_to_best_peer(row, series))
        rows.append(r)
    return table(columns, rows)


def headline(runs, readme=False):
    """The headline runs' tables; in the README only each run's readme_rows, where it names them."""
    parts = []
    for run in runs:
        if run.get("headline") and "porta_summary" in run:
            card = run["card"][:1].upper() + run["card"][1:]
            parts.append(f"**{card}, {run['date']}.** {run.get('headline_caption', run['title'])}:\n\n"
                         + summary_table(run, only=run.get("readme_rows") if readme else None))
    return "\n\n".join(parts) + "\n"


def page(runs):
    out = ["# Measured results", "",
           "Made by `bench/tools/results_page.py` from the runs under [`bench/results/`](../../bench/results), one",
           "JSON file a run; CTest's `docs.results_page` fails when this page differs from what the data",
           "gives. To add a run, add its file (porta-bench's `porta_summary` where porta-bench measured it)",
           "and run `python3 bench/tools/results_page.py --write`. `porta-bench --from-json=FILE --svg=chart.svg`",
           "draws the chart of a run that has a `porta_summary`.",
           "",
           "Bandwidths count bytes read plus bytes written once (saxpy and the fused expression: 12 bytes an",
           "element), medians of device-event times; ratios are from one run. Newest first. How porta-bench",
           "measures: [bench/README.md](../../bench/README.md).",
           "",
           "## Headline", "", headline(runs).rstrip("\n"), "",
           "## Runs", ""]
    for run in runs:
        out.append(f"### {run['date']}: {run['title']}")
        out.append("")
        meta = [("when", f"{run['date']} {run.get('time', '')}".strip()), ("card", run["card"]),
                ("host", run.get("host", "")), ("software", run.get("software", "")),
                ("commands", "; ".join(f"`{c}`" for c in run["commands"])), ("source", run["source"]),
                ("data", f"[`bench/results/{run['file']}`](../../bench/results/{run['file']})")]
        out += [f"- {k}: {v}" for k, v in meta if v]
        out.append("")
        if "porta_summary" in run:
            out += [summary_table(run), ""]
        for item in run.get("items", []):
            if "note" in item:
                out += [item["note"], ""]
            else:
                t = item["table"]
                if t.get("caption"):
                    out += [t["caption"], ""]
                out += [table(t["columns"], t["rows"]), ""]
    return "\n".join(out).rstrip("\n") + "\n"


def with_headline(readme_text, runs):
    if BEGIN not in readme_text or END not in readme_text:
        raise SystemExit(f"README.md has no headline markers ({BEGIN!r} ... {END!r})")
    a = readme_text.index(BEGIN) + len(BEGIN)
    b = readme_text.index(END)
    return readme_text[:a] + "\n" + headline(runs, readme=True) + readme_text[b:]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--results", type=pathlib.Path, default=ROOT / "bench" / "results")
    ap.add_argument("--page", type=pathlib.Path, default=ROOT / "docs" / "guide" / "results.md")
    ap.add_argument("--readme", type=pathlib.Path, default=ROOT / "README.md")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--check", action="store_true")
    args = ap.parse_args()
    runs = load(args.results)
    text = page(runs)
    if args.write or args.check:
        readme = args.readme.read_text(encoding="utf-8")
        new_readme = with_headline(readme, runs)
    if args.write:
        args.page.write_text(text, encoding="utf-8")
        args.readme.write_text(new_readme, encoding="utf-8")
    elif args.check:
        bad = []
        if not args.page.exists() or args.page.read_text(encoding="utf-8") != text:
            bad.append(str(args.page))
        if new_readme != readme:
            bad.append(f"{args.readme} (its headline results)")
        if bad:
            print("out of date with bench/results/: " + ", ".join(bad)
                  + "; run python3 bench/tools/results_page.py --write", file=sys.stderr)
            return 1
        print(f"{args.page.name} and the README's headline match the {len(runs)} runs of {args.results}")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
