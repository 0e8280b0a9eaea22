#!/usr/bin/env python3
"""Measures grounded (and optionally tsc --checkJs) on real scripts with an imported corpus.

Usage:
  measure.py --grounded BIN --corpus DIR --scripts DIR [--ext .jsx,.js] [--per-script 3]
             [--tsc TSC_JS --dts a.d.ts,b.d.ts --tsc-lib es5] [--out report.json]

Reports
  (a) findings on the unmodified scripts (grounded by code; tsc errors if --tsc),
  (b) recall on invented members injected (one per copy of a script) into
      - VARIABLE receivers: `var doc = app.activeDocument; ... doc.pages` -> `doc.pagesQx`,
        where the variable (var, let or const) is declared once, assigned from an expression that starts with a
        documented global of the corpus (a global property or a global-members name), and
        used with `.member` after its declaration;
      - GLOBAL receivers: `app.activeDocument` -> `app.activeDocumentQx`.
  An injection is caught when the checker reports a finding on the injected line of that
  copy (grounded: code `member` or `object`; tsc: any error on that line).
Deterministic: the same scripts give the same injections (first N sites per script, in
file order). Only the injected copies are written, in a temp folder; the scripts folder is
never modified.
"""
import argparse, json, os, re, shutil, subprocess, sys, tempfile, time, collections

IDENT = r"[A-Za-z_$][A-Za-z0-9_$]*"


def corpus_globals(grounded, corpus):
    out = subprocess.run([grounded, "corpus", "--docs", corpus, "--format", "json"],
                         capture_output=True, text=True, check=True)
    v = json.loads(out.stdout)
    names = set(v.get("globals", {}).keys())
    # Members of `Global members: yes` interfaces are global names too.
    for iface in v.get("global_members", []) or []:
        doc = subprocess.run([grounded, "doc", "--docs", corpus, "--format", "json", iface],
                             capture_output=True, text=True)
        try:
            d = json.loads(doc.stdout)
            for m in d.get("members", []):
                names.add(m["name"])
        except Exception:
            pass
    return names, v


def documented_members(corpus):
    """Member names the corpus documents (titles `Interface-member`), from its .jsonl and .md."""
    names = set()
    for root, _, files in os.walk(corpus):
        for f in files:
            p = os.path.join(root, f)
            if f.endswith(".jsonl"):
                for l in open(p, encoding="utf-8", errors="replace"):
                    try:
                        t = json.loads(l).get("title", "")
                    except Exception:
                        continue
                    m = re.fullmatch(IDENT + "-(" + IDENT + ")", t)
                    if m: names.add(m.group(1))
            elif f.endswith(".md"):
                for l in open(p, encoding="utf-8", errors="replace"):
                    m = re.match(r"#{1,2} `?" + IDENT + "-(" + IDENT + ")`?\s*$", l)
                    if m: names.add(m.group(1))
    return names


def scripts_of(folder, exts):
    found = []
    for root, dirs, files in os.walk(folder):
        dirs[:] = sorted(d for d in dirs if d not in ("node_modules", ".git"))
        for f in sorted(files):
            if any(f.endswith(e) for e in exts):
                found.append(os.path.join(root, f))
    return found


def strip_comments_and_strings(text):
    """Same length, comments and string contents blanked: sites are found in code only."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j): out[k] = " "
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n": out[k] = " "
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            for k in range(i + 1, min(j, n)): out[k] = " "
            i = j + 1
        else:
            i += 1
    return "".join(out)


def line_of(text, off):
    return text.count("\n", 0, off) + 1


def sites(text, globals_, members):
    """(kind, offset of the member name, member) of injection sites, in file order."""
    code = strip_comments_and_strings(text)
    glob, var = [], []
    for m in re.finditer(r"(?<![\w$.])(" + IDENT + r")\s*\.\s*(" + IDENT + r")", code):
        if m.group(1) in globals_ and m.group(2) in members:
            glob.append(("global", m.start(2), m.group(2)))
    decls = collections.Counter(re.findall(r"\b(?:var|let|const)\s+(" + IDENT + r")\s*=", code))
    for m in re.finditer(r"\b(?:var|let|const)\s+(" + IDENT + r")\s*=\s*(" + IDENT + r")\s*[.(]", code):
        name, head = m.group(1), m.group(2)
        if head not in globals_ or decls[name] != 1:
            continue
        # Assigned again anywhere? then its type is not one thing.
        if re.search(r"(?<![\w$.])" + re.escape(name) + r"\s*=[^=]", code[m.end():]):
            continue
        for u in re.finditer(r"(?<![\w$.])" + re.escape(name) + r"\s*\.\s*(" + IDENT + r")", code[m.end():]):
            if u.group(1) in members:
                var.append(("variable", m.end() + u.start(1), u.group(1)))
                break
    return var, glob


def run_grounded(grounded, corpus, folder):
    out = subprocess.run([grounded, "check", "--docs", corpus, "--format", "json", "."],
                         capture_output=True, text=True, cwd=folder)
    try:
        return json.loads(out.stdout or "[]")
    except json.JSONDecodeError:
        sys.exit("grounded check printed no JSON: " + out.stderr[:500])


TSC_LINE = re.compile(r"^(.*?)\((\d+),(\d+)\): error (TS\d+): (.*)$")


def for_tsc(text, module=False):
    """The script as tsc can read it: engine directive lines (`#target`) commented out
    (same lines), and, for an injected copy, `export {}` appended so that each copy is a
    scope of its own (copies of one script would otherwise redeclare each other)."""
    out = re.sub(r"(?m)^(\s*)#", r"\1//#", text)
    return out + ("\nexport {};\n" if module else "")


def run_tsc(tsc, dts, lib, folder, files):
    args = ["node", tsc, "--noEmit", "--allowJs", "--checkJs", "--pretty", "false",
            "--skipLibCheck", "--types", "", "--target", "es2015", "--strict", "false"]
    # `none`: the declarations bring their own language library (types-for-adobe's
    # JavaScript.d.ts), as their README's tsconfig does with noLib.
    args += ["--noLib"] if lib == "none" else ["--lib", lib]
    args += dts + files
    out = subprocess.run(args, capture_output=True, text=True, cwd=folder)
    errs = []
    if out.returncode not in (0, 1, 2):
        sys.exit("tsc failed: " + out.stdout[-2000:] + out.stderr[-2000:])
    for l in out.stdout.splitlines():
        m = TSC_LINE.match(l)
        if m:
            path = os.path.normpath(os.path.join(folder, m.group(1)))
            errs.append((path, int(m.group(2)), m.group(4), m.group(5)))
    return errs


def tsc_groups(tsc, dts, lib, groups):
    """tsc on each (folder, files) group, two at a time; all errors."""
    from concurrent.futures import ThreadPoolExecutor
    out = []
    with ThreadPoolExecutor(max_workers=2) as ex:
        for errs in ex.map(lambda g: run_tsc(tsc, dts, lib, g[0], g[1]), groups):
            out.extend(errs)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--grounded", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--scripts", required=True)
    ap.add_argument("--ext", default=".jsx,.js")
    ap.add_argument("--per-script", type=int, default=3)
    ap.add_argument("--tsc")
    ap.add_argument("--dts", default="")
    ap.add_argument("--tsc-lib", default="es5")
    ap.add_argument("--out")
    a = ap.parse_args()
    grounded = os.path.abspath(a.grounded)
    corpus = os.path.abspath(a.corpus)
    exts = [e if e.startswith(".") else "." + e for e in a.ext.split(",")]
    globals_, cinfo = corpus_globals(grounded, corpus)
    members = documented_members(corpus)
    scripts = scripts_of(a.scripts, exts)
    if not scripts:
        sys.exit("no script with extensions %s under %s" % (exts, a.scripts))
    work = tempfile.mkdtemp(prefix="measure-")
    report = {"scripts": len(scripts), "corpus": corpus, "grounded": grounded}
    try:
        # (a) unmodified: the scripts copied as they are.
        plain = os.path.join(work, "plain")
        texts = {}
        for s in scripts:
            rel = os.path.relpath(s, a.scripts)
            dst = os.path.join(plain, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(s, dst)
            with open(s, encoding="utf-8", errors="replace") as f:
                texts[rel] = f.read()
        t0 = time.time()
        fs = run_grounded(grounded, corpus, plain)
        report["grounded_seconds"] = round(time.time() - t0, 2)
        report["grounded_findings"] = len(fs)
        report["grounded_by_code"] = dict(collections.Counter(f["code"] for f in fs))
        report["grounded_scripts_with_findings"] = len({f["path"] for f in fs})
        dts = [os.path.abspath(d) for d in a.dts.split(",") if d]
        if a.tsc:
            # One tsc run a script: tsc stops at the first syntax error of a program
            # and then reports no type error in any of its files, and scripts of one
            # folder declare the same global names (`main`) over and over.
            jsdir = os.path.join(work, "plain_js")
            groups = []
            for n, rel in enumerate(sorted(texts)):
                dst = os.path.join(jsdir, str(n), os.path.basename(os.path.splitext(rel)[0]) + ".js")
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                with open(dst, "w", encoding="utf-8") as f:
                    f.write(for_tsc(texts[rel]))
                groups.append((os.path.dirname(dst), [os.path.basename(dst)]))
            t0 = time.time()
            errs = tsc_groups(a.tsc, dts, a.tsc_lib, groups)
            report["tsc_seconds"] = round(time.time() - t0, 2)
            report["tsc_runs"] = len(groups)
            report["tsc_findings"] = len(errs)
            report["tsc_scripts_with_findings"] = len({e[0] for e in errs})
            report["tsc_by_code"] = dict(collections.Counter(e[2] for e in errs).most_common(10))
        # (b) injections: one per copy.
        inj = os.path.join(work, "inj")
        cases = []
        for rel, text in sorted(texts.items()):
            var, glob = sites(text, globals_, members)
            for kind, lst in (("variable", var), ("global", glob)):
                for (k, off, member) in lst[: a.per_script]:
                    invented = member + "Qx"
                    new = text[:off] + invented + text[off + len(member):]
                    n = len(cases)
                    base, ext = os.path.splitext(rel)
                    name = "%s.inj%d%s" % (base.replace(os.sep, "__"), n, ext)
                    dst = os.path.join(inj, str(len(cases)), name)
                    os.makedirs(os.path.dirname(dst), exist_ok=True)
                    with open(dst, "w", encoding="utf-8") as f:
                        f.write(new)
                    cases.append({"kind": kind, "file": name, "line": line_of(text, off),
                                  "member": member, "invented": invented, "script": rel})
        # Each copy is checked alone: copies in one project share one global scope, and
        # one copy's invented write would make the same name in another "the same
        # mistake", reported once.
        from concurrent.futures import ThreadPoolExecutor
        def one(n):
            fs = run_grounded(grounded, corpus, os.path.join(inj, str(n)))
            return {(os.path.basename(f["path"]), f["line"]) for f in fs if f["code"] in ("member", "object")}
        hit = set()
        with ThreadPoolExecutor(max_workers=2) as ex:
            for h in ex.map(one, range(len(cases))):
                hit |= h
        tsc_hit = set()
        if a.tsc and cases:
            # The copies of one script in one tsc run, each a module of its own.
            by_script = collections.OrderedDict()
            for n, c in enumerate(cases):
                by_script.setdefault(c["script"], []).append((n, c))
            groups = []
            for k, (script, cs) in enumerate(by_script.items()):
                d = os.path.join(work, "inj_js", str(k))
                os.makedirs(d, exist_ok=True)
                files = []
                for n, c in cs:
                    with open(os.path.join(inj, str(n), c["file"]), encoding="utf-8") as f:
                        t = f.read()
                    name = os.path.splitext(c["file"])[0] + ".js"
                    with open(os.path.join(d, name), "w", encoding="utf-8") as f:
                        f.write(for_tsc(t, module=True))
                    files.append(name)
                groups.append((d, files))
            for (p, line, code, msg) in tsc_groups(a.tsc, dts, a.tsc_lib, groups):
                tsc_hit.add((os.path.splitext(os.path.basename(p))[0], line))
        for kind in ("variable", "global"):
            ks = [c for c in cases if c["kind"] == kind]
            caught = [c for c in ks if (c["file"], c["line"]) in hit]
            r = {"injected": len(ks), "caught": len(caught),
                 "recall": round(len(caught) / len(ks), 3) if ks else None,
                 "missed": [("%s:%d %s" % (c["script"], c["line"], c["invented"])) for c in ks if c not in caught][:15]}
            if a.tsc:
                tc = [c for c in ks if (os.path.splitext(c["file"])[0], c["line"]) in tsc_hit]
                r["tsc_caught"] = len(tc)
                r["tsc_recall"] = round(len(tc) / len(ks), 3) if ks else None
            report["injected_" + kind] = r
    finally:
        shutil.rmtree(work, ignore_errors=True)
    text = json.dumps(report, indent=2)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
