#!/usr/bin/env python3
"""ops-fuzz report rendered in headless Chromium: a small hunt (and a random-order one to compare),
a timed run, their pages loaded from files as a user opens them. Checks: no console message, one
support-matrix row per op run, one findings row per finding, every SVG drawn (a polyline of two
points at least), no script and nothing fetched; screenshots are left in the output folder.

usage: browser_test.py OPS_FUZZ OUT_DIR   (exit 77: skipped, chromium is not installed)"""
import html.parser
import json
import os
import shutil
import subprocess
import sys


class Page(html.parser.HTMLParser):
    """What the checks count in the DOM Chromium dumps after rendering."""

    def __init__(self):
        super().__init__()
        self.rows = {"op-row": 0, "finding": 0}
        self.svgs = []  # per svg: the point counts of its polylines
        self.scripts = 0
        self.fetched = []  # src/href attributes pointing off the page

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        classes = (a.get("class") or "").split()
        for c in self.rows:
            if tag == "tr" and c in classes:
                self.rows[c] += 1
        if tag == "svg":
            self.svgs.append([])
        if tag == "polyline" and self.svgs:
            self.svgs[-1].append(len((a.get("points") or "").split()))
        if tag == "script":
            self.scripts += 1
        for key in ("src", "href"):
            if a.get(key) and not a[key].startswith("#"):
                self.fetched.append(a[key])


def run(args, ok=(0,)):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode not in ok:
        sys.exit(f"{' '.join(args)} exited {r.returncode}\n{r.stdout}\n{r.stderr}")
    return r


def render(chromium, page, screenshot, profile):
    """The DOM after rendering, the console messages, and a screenshot."""
    common = [chromium, "--headless", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
              "--enable-logging=stderr", "--v=0"]
    url = "file://" + os.path.abspath(page)
    dom = run(common + ["--dump-dom", url])
    shot = run(common + [f"--screenshot={screenshot}", "--window-size=1280,2400", url])
    console = [l for l in (dom.stderr + shot.stderr).splitlines() if ":CONSOLE" in l]
    return dom.stdout, console


def check(name, dom, console, ops, findings, screenshot, curves):
    failures = []
    p = Page()
    p.feed(dom)
    if console:
        failures.append(f"{name}: console messages: {console}")
    if p.rows["op-row"] != ops:
        failures.append(f"{name}: {p.rows['op-row']} matrix rows for {ops} ops run")
    if p.rows["finding"] != findings:
        failures.append(f"{name}: {p.rows['finding']} findings rows for {findings} findings")
    if not p.svgs or any(not s or min(s) < 2 for s in p.svgs):
        failures.append(f"{name}: an SVG is empty (polyline points per SVG: {p.svgs})")
    if sum(len(s) for s in p.svgs) != curves:
        failures.append(f"{name}: {sum(len(s) for s in p.svgs)} curves drawn, {curves} expected")
    if p.scripts or p.fetched:
        failures.append(f"{name}: scripts {p.scripts}, fetched {p.fetched}")
    if not os.path.exists(screenshot) or os.path.getsize(screenshot) < 10000:
        failures.append(f"{name}: no screenshot at {screenshot}")
    print(f"{name}: {p.rows['op-row']} matrix rows, {p.rows['finding']} findings rows, "
          f"{len(p.svgs)} SVGs ({p.svgs} polyline points), {len(console)} console messages; screenshot {screenshot}")
    return failures


def ops_and_findings(results, findings_file):
    ops = set()
    with open(results) as f:
        for line in f:
            j = json.loads(line)
            if j.get("type") == "item":
                ops.add(j["origin"]["spec"] if j.get("origin") else j["cases"][0]["op"])
    findings = 0
    if findings_file and os.path.exists(findings_file):
        with open(findings_file) as f:
            findings = sum(1 for line in f if line.strip())
    return len(ops), findings


def main():
    ops_fuzz, out = sys.argv[1], sys.argv[2]
    chromium = shutil.which("chromium")
    if not chromium:
        print("skipped: Debian's chromium is not installed (tools/bootstrap.sh --tests installs it)")
        return 77
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    hunt = ["hunt", "--ops", "masked_fill.Tensor,fmod.Tensor,atan2.default", "--configs", "default,extremes",
            "--max", "12", "--backends", "eager_cpu_grad;eager_cpu_noncontig;torchscript_cpu"]
    run([ops_fuzz] + hunt + ["--out", f"{out}/diversity"], ok=(0, 1))
    run([ops_fuzz] + hunt + ["--order", "random", "--out", f"{out}/random"], ok=(0, 1))
    run([ops_fuzz, "run", "--ops", "add.Tensor,mm.default", "--max", "6", "--mode", "2", "--repeats", "3",
         "--backends", "eager_cpu_noncontig;torchscript_cpu", "--baseline", "eager_cpu", "--out",
         f"{out}/timed.jsonl"])
    run([ops_fuzz, "report", f"{out}/diversity", "--compare", f"{out}/random", "--html", f"{out}/hunt.html",
         "--md", f"{out}/hunt.md"])
    timed = run([ops_fuzz, "report", f"{out}/timed.jsonl", "--html", f"{out}/timed.html"])

    failures = []
    ops, findings = ops_and_findings(f"{out}/diversity/results.jsonl", f"{out}/diversity/findings.jsonl")
    if findings == 0:
        failures.append("the hunt found nothing: the findings table is not exercised")
    dom, console = render(chromium, f"{out}/hunt.html", f"{out}/hunt.png", f"{out}/profile")
    failures += check("hunt.html", dom, console, ops, findings, f"{out}/hunt.png", curves=2)
    # a run keeps no findings file: the report replays them from its results, and says how many
    ops, _ = ops_and_findings(f"{out}/timed.jsonl", None)
    timed_findings = int(timed.stdout.split(" findings")[0].split()[-1])
    dom, console = render(chromium, f"{out}/timed.html", f"{out}/timed.png", f"{out}/profile")
    failures += check("timed.html", dom, console, ops, timed_findings, f"{out}/timed.png", curves=1 + 2)
    for f in failures:
        print("FAILED:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
