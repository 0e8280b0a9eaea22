#!/usr/bin/env python3
"""Measures grounded (and optionally tsc --checkJs) on real scripts of a module-based or
union-heavy API, with recall by receiver kind.

Usage:
  measure_kinds.py --grounded BIN --corpus DIR --scripts DIR [--ext .js] [--per-kind 2]
                   [--sites-corpus DIR] [--tsc TSC_JS [--types-dir DIR --types-name k6] [--dts a.d.ts,b.d.ts]
                    [--tsc-lib es2020]] [--findings FILE] [--out report.json]

Reports
  (a) findings on the unmodified scripts (grounded by code, each one listed in --findings
      with its line of code to be read and judged; tsc's error count), and
  (b) recall on invented members (`member` -> `memberQx`), one per copy of a script, by the
      kind of receiver, which the script itself says (its bindings) and the corpus types:
      - module object: `import http from "m"` / `import * as http from "m"`, `http.get`;
      - named import: `import { check } from "m"` -> `import { checkQx as check } from "m"`;
      - destructured require: `const { a } = require("m")`, `a.b`;
      - call: `const res = http.get(...)`, `res.status` (a variable from a call whose
        documented result is one interface);
      - new: `const c = new Counter(...)`, `c.add`;
      - await: `const page = await browser.newPage()`, `page.goto`;
      - global: a documented global and its sub-objects, `figma.currentPage.selection`;
      - union: a variable whose documented type is a union of interfaces
        (`const node = figma.getNodeById(id)`, `figma.currentPage.selection[0]`);
      - narrowed: such a variable inside `if (node.type === "TEXT") { ... }`;
      - loop: `for (const n of xs)`; callback: `xs.forEach(n => ...)`, `findAll(n => ...)`;
      - destructured: `const { currentPage } = figma`, `currentPage.selection`.
  A catch is a finding on the injected line that names the invented member (so a finding
  the unmodified line already had is none). A site counts only where the corpus documents the original member on that receiver's
  type (one of a union's interfaces), so each injection is an invented member on a receiver
  whose type the docs make certain. Caught: a grounded finding of code `member` or
  `object` on the injected line naming the invented member (tsc: an error there naming it).
The scripts folder is never modified; copies are written in a temp folder.
"""
import argparse, collections, json, os, re, shutil, subprocess, sys, tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from measure import strip_comments_and_strings, line_of, scripts_of  # noqa: E402

IDENT = r"[A-Za-z_$][A-Za-z0-9_$]*"
CALLBACK_METHODS = ("forEach", "map", "filter", "find", "some", "every", "flatMap", "findIndex",
                    "findAll", "findOne", "findChildren", "findChild", "findAllWithCriteria")


class Corpus:
    """What the corpus says, read from its corpus.jsonl: enough to type a member chain."""

    def __init__(self, folder):
        self.members = collections.defaultdict(dict)  # iface -> member -> signature line
        self.parents = collections.defaultdict(list)
        self.globals = {}  # global name -> iface
        self.modules = {}  # spec -> iface
        self.default = {}  # iface -> default export iface
        self.ctors = {}  # name after new -> iface
        self.index = {}  # iface -> element type text
        for root, _, files in os.walk(folder):
            for f in files:
                if f.endswith(".jsonl"):
                    for l in open(os.path.join(root, f), encoding="utf-8"):
                        c = json.loads(l)
                        self.chunk(c["title"], c["text"])

    def chunk(self, title, text):
        m = re.fullmatch("(" + IDENT + ")-(" + IDENT + ")", title)
        if m:
            for line in text.splitlines():
                s = line.strip()
                if s.startswith("readonly "):
                    s = s[len("readonly "):]
                if s.startswith(m.group(2) + "(") or s.startswith(m.group(2) + ":"):
                    self.members[m.group(1)].setdefault(m.group(2), s)
                    break
            else:
                self.members[m.group(1)].setdefault(m.group(2), "")
            return
        if not re.fullmatch(IDENT, title):
            return
        self.members.setdefault(title, {})
        for line in text.splitlines():
            g = re.search(r'accessed using the global property "(' + IDENT + ')"', line)
            if g:
                self.globals[g.group(1)] = title
            g = re.match(r'Module: "([^"]+)"', line)
            if g:
                self.modules[g.group(1)] = title
            g = re.match(r"Default export: (" + IDENT + ")", line)
            if g:
                self.default[title] = g.group(1)
            g = re.match(r"Parent interface: (" + IDENT + ")", line)
            if g:
                self.parents[title].append(g.group(1))
            g = re.match(r"Constructor: new (" + IDENT + r")\(", line)
            if g:
                self.ctors.setdefault(g.group(1), title)
            g = re.match(r"Index: \[index: number\]: (.+)$", line)
            if g:
                self.index[title] = g.group(1).strip()

    def member(self, iface, name, seen=None):
        seen = seen or set()
        if iface in seen:
            return None
        seen.add(iface)
        if name in self.members.get(iface, {}):
            return self.members[iface][name]
        for p in self.parents.get(iface, []):
            r = self.member(p, name, seen)
            if r is not None:
                return r
        return None


def split_top(s, sep):
    out, depth, cur, i = [], 0, "", 0
    while i < len(s):
        c = s[i]
        if s.startswith("=>", i):
            cur += "=>"
            i += 2
            continue
        if c in "([{<":
            depth += 1
        elif c in ")]}>":
            depth -= 1
        if c == sep and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += c
        i += 1
    out.append(cur)
    return [x.strip() for x in out]


def parse_type(t):
    """A type text of the corpus to ('iface', [names]) | ('array', elem) | ('promise', inner) | None."""
    t = t.strip()
    parts = [p for p in split_top(t, "|") if p]
    if len(parts) > 1:
        names = []
        for p in parts:
            r = parse_type(p)
            if not r or r[0] != "iface":
                return None  # a union with a primitive or array: unjudged
            names.extend(r[1])
        return ("iface", names)
    if t.startswith("(") and t.endswith(")") and "=>" not in t:
        return parse_type(t[1:-1])
    if t.endswith("[]"):
        return ("array", t[:-2])
    m = re.fullmatch(r"Promise<(.+)>", t)
    if m:
        return ("promise", m.group(1))
    if re.fullmatch(IDENT, t) and t not in ("string", "number", "boolean", "any", "object", "void",
                                            "Function", "Date", "RegExp", "Error", "Object", "Array"):
        return ("iface", [t])
    return None


def sig_result(sig, called):
    """The type text a member gives: a method's return when called, a property's type."""
    if not sig:
        return None
    m = re.match(IDENT + r"\s*:\s*(.+)$", sig)
    if m and not called:
        return m.group(1)
    if called and re.match(IDENT + r"\(", sig):
        depth = 0
        for i, c in enumerate(sig):
            if c == "(":
                depth += 1
            elif c == ")":
                depth -= 1
                if depth == 0:
                    rest = sig[i + 1:].strip()
                    return rest[1:].strip() if rest.startswith(":") else None
    return None


def balanced(code, i, open_, close):
    depth = 0
    while i < len(code):
        if code[i] == open_:
            depth += 1
        elif code[i] == close:
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


class Script:
    def __init__(self, text, corpus):
        self.text = text
        self.code = strip_comments_and_strings(text)
        self.c = corpus
        self.bindings = collections.defaultdict(list)
        self.read_bindings()

    def read_bindings(self):
        """name -> list of (offset, kind, type) for imports, declarations, loops, params."""
        code, text, b = self.code, self.text, self.bindings
        # The script's own function parameters are bindings of no certain type: without
        # them a parameter (`function serialize(v) { v.id }`) took the type of an
        # unrelated earlier `v` and was counted a site, though the contract leaves it
        # unjudged. A callback passed to a known method is typed below instead.
        cb_start = r"\.(?:" + "|".join(CALLBACK_METHODS) + r")\s*\(\s*(?:async\s+)?$"
        for p in (r"\bfunction\b\s*\*?\s*(?:" + IDENT + r")?\s*\(([^()]*)\)",
                  r"\(([^()]*)\)\s*=>", r"(?<![\w$.])(" + IDENT + r")\s*=>"):
            for m in re.finditer(p, code):
                if re.search(cb_start, code[max(0, m.start() - 60):m.start()]):
                    continue
                for name in re.findall(r"(?<![\w$.:])(" + IDENT + r")\s*(?==|,|\}|\]|$)", m.group(1) + ","):
                    b[name].append((m.start(), "param", None))
        for m in re.finditer(r"\bimport\s+([^;]*?)\s+from\s*(['\"])", code):
            q = m.end()
            end = text.find(m.group(2), q)
            spec = text[q:end]
            iface = self.c.modules.get(spec)
            clause = m.group(1)
            if not iface:
                continue
            d = re.match(r"\s*(" + IDENT + r")\s*(,|$)", clause)
            if d:
                b[d.group(1)].append((m.start(), "module object", ("iface", [self.c.default.get(iface, iface)])))
            ns = re.search(r"\*\s*as\s+(" + IDENT + ")", clause)
            if ns:
                b[ns.group(1)].append((m.start(), "module object", ("iface", [iface])))
            named = re.search(r"\{([^}]*)\}", clause)
            if named:
                for part in named.group(1).split(","):
                    pm = re.fullmatch(r"\s*(" + IDENT + r")(?:\s+as\s+(" + IDENT + r"))?\s*", part)
                    if pm:
                        sig = self.c.member(iface, pm.group(1))
                        t = sig_result(sig, False)
                        b[pm.group(2) or pm.group(1)].append(
                            (m.start(), "named", parse_type(t) if t else ("fn", sig)))
        for m in re.finditer(r"\b(?:const|let|var)\s+\{([^}]*)\}\s*=\s*", code):
            src = self.eval_at(m.end())
            req = re.match(r"require\s*\(\s*(['\"])", code[m.end():])
            kind = "destructured"
            if req:
                q = m.end() + req.end()
                spec = text[q:text.find(req.group(1), q)]
                src = self.eval_at(m.end())  # `require("m")` and `require("m").a.b`
                kind = "destructured require"
            for part in m.group(1).split(","):
                pm = re.fullmatch(r"\s*(" + IDENT + r")(?:\s*:\s*(" + IDENT + r"))?\s*", part)
                if not pm:
                    continue
                t = None
                if src and src[0] == "iface" and len(src[1]) == 1:
                    t = sig_result(self.c.member(src[1][0], pm.group(1)), False)
                b[pm.group(2) or pm.group(1)].append((m.start(), kind, parse_type(t) if t else None))
        for m in re.finditer(r"\b(?:const|let|var)\s+(" + IDENT + r")\s*=\s*", code):
            rest = code[m.end():]
            kind = "call"
            rq = re.match(r"require\s*\(\s*(['\"])[^'\"]*\1\s*\)\s*(\??\.)?", rest)
            if rq:
                # CommonJS: `const ps = require("m")` is
                # the module object; `const app = require("m").app` a member of it.
                kind = "require member" if rq.group(2) else "module object"
            elif rest.startswith("await "):
                kind = "await"
            elif rest.startswith("new "):
                kind = "new"
            b[m.group(1)].append((m.start(), kind, self.eval_at(m.end())))
        for m in re.finditer(r"\bfor\s*\(\s*(?:const|let|var)\s+(" + IDENT + r")\s+of\s+", code):
            t = self.eval_at(m.end())
            b[m.group(1)].append((m.start(), "loop", self.element(t)))
        pat = r"\.(" + "|".join(CALLBACK_METHODS) + r")\s*\(\s*(?:\(\s*(" + IDENT + r")[^)]*\)|(" + IDENT + r"))\s*=>"
        pat2 = r"\.(" + "|".join(CALLBACK_METHODS) + r")\s*\(\s*function\s*\(\s*(" + IDENT + r")"
        for p in (pat, pat2):
            for m in re.finditer(p, code):
                name = m.group(2) or (m.group(3) if m.lastindex >= 3 else None)
                recv = self.eval_before(m.start())
                if m.group(1).startswith("find") and recv and recv[0] == "iface":
                    t = ("iface", self.find_param(recv[1], m.group(1)))
                else:
                    t = self.element(recv)
                b[name].append((m.start(), "callback", t))
        return b

    def find_param(self, ifaces, method):
        for i in ifaces:
            sig = self.c.member(i, method)
            m = re.search(r"\(\s*" + IDENT + r"\s*:\s*(" + IDENT + r"(?:\s*\|\s*" + IDENT + r")*)\s*\)\s*=>", sig or "")
            if m:
                r = parse_type(m.group(1))
                if r and r[0] == "iface":
                    return r[1]
        return []

    def element(self, t):
        if not t:
            return None
        if t[0] == "array":
            return parse_type(t[1])
        if t[0] == "iface" and len(t[1]) == 1 and t[1][0] in self.c.index:
            return parse_type(self.c.index[t[1][0]])
        return None

    def eval_before(self, end):
        """The type of the chain that ends just before `end` (`xs` of `xs.forEach(`)."""
        code = self.code
        i = end
        while i > 0 and (code[i - 1].isalnum() or code[i - 1] in "_$.]"):
            if code[i - 1] == "]":
                depth = 0
                while i > 0:
                    i -= 1
                    if code[i] == "]":
                        depth += 1
                    elif code[i] == "[":
                        depth -= 1
                        if depth == 0:
                            break
                continue
            i -= 1
        return self.eval_at(i, stop=end)

    def eval_at(self, start, stop=None):
        """The type of the expression at `start`: `[await] [new] head(.m | (..) | [..])*`."""
        code = self.code
        stop = stop if stop is not None else len(code)
        i = start
        awaited = newed = False
        m = re.match(r"\s*await\s+", code[i:stop])
        if m:
            awaited, i = True, i + m.end()
        m = re.match(r"\s*new\s+", code[i:stop])
        if m:
            newed, i = True, i + m.end()
        m = re.match(r"\s*(" + IDENT + ")", code[i:stop])
        if not m:
            return None
        head = m.group(1)
        i += m.end()
        rq = re.match(r"\s*\(\s*(['\"])", code[i:stop]) if head == "require" and not newed else None
        if rq:
            q = i + rq.end()
            e = self.text.find(rq.group(1), q)
            spec = self.text[q:e]
            close = re.match(r"\s*\)", code[e + 1:stop])
            if e < 0 or not close or spec not in self.c.modules:
                return None
            t = ("iface", [self.c.modules[spec]])
            i = e + 1 + close.end()
        elif newed:
            t = ("iface", [self.c.ctors[head]]) if head in self.c.ctors else None
            m2 = re.match(r"\s*\(", code[i:stop])
            if m2:
                j = balanced(code, i + m2.end() - 1, "(", ")")
                i = j or stop
        elif head in self.c.globals:
            t = ("iface", [self.c.globals[head]])
        else:
            prior = [x for x in self.bindings_of(head) if x[0] < start]
            t = prior[-1][2] if prior else None
            if t and t[0] == "fn":
                m2 = re.match(r"\s*\(", code[i:stop])
                if not m2:
                    return None
                j = balanced(code, i + m2.end() - 1, "(", ")")
                i = j or stop
                r = sig_result(t[1], True)
                t = parse_type(r) if r else None
        while t is not None and i < stop:
            m = re.match(r"\s*(\??\.)\s*(" + IDENT + r")", code[i:stop])
            if m:
                name = m.group(2)
                i += m.end()
                call = re.match(r"\s*\(", code[i:stop])
                if t[0] != "iface":
                    return None
                sigs = [self.c.member(x, name) for x in t[1]]
                if call:
                    j = balanced(code, i + call.end() - 1, "(", ")")
                    if j is None:
                        return None
                    i = j
                rs = [sig_result(s, bool(call)) for s in sigs if s]
                if not rs or len(set(rs)) != 1 or rs[0] is None:
                    return None
                t = parse_type(rs[0])
                continue
            m = re.match(r"\s*\[", code[i:stop])
            if m:
                j = balanced(code, i + m.end() - 1, "[", "]")
                if j is None:
                    return None
                i = j
                t = self.element(t)
                continue
            break
        if t and t[0] == "promise":
            t = parse_type(t[1]) if awaited else None
        return t

    def bindings_of(self, name):
        # In file order: the nearest binding before a use is the last of those before it.
        return sorted(self.bindings.get(name, []), key=lambda x: x[0])

    def narrowed(self, name, off):
        """Whether `off` lies inside `if (name.type === "...") { ... }`."""
        best = None
        for m in re.finditer(r"\bif\s*\(\s*" + re.escape(name) + r"\.type\s*===?\s*", self.code[:off]):
            best = m
        if not best:
            return False
        close = balanced(self.code, best.start() + self.code[best.start():].index("("), "(", ")")
        if close is None or close > off:
            return False
        after = self.code[close:off]
        if not after.lstrip().startswith("{"):
            return "\n" not in after.strip()
        depth = 0
        for ch in after:
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if depth == 0:
                    return False
        return depth > 0

    def sites(self):
        """(kind, offset of the member, member) of each injection site, in file order."""
        out = []
        code = self.code
        for m in re.finditer(r"(?<![\w$.])(" + IDENT + r")\s*(\??\.)\s*(" + IDENT + r")", code):
            name, member = m.group(1), m.group(3)
            prior = [x for x in self.bindings_of(name) if x[0] < m.start()]
            if name in self.c.globals and not prior:
                t, kind = ("iface", [self.c.globals[name]]), "global"
            elif prior:
                # The nearest binding before the use (scripts declare `node` again in
                # each function; the nearest is the one in scope in straight code).
                at, kind, t = prior[-1]
                # A parameter of the same name between them shadows it: `check(res, {
                # "ok": (res) => res.status === 200 })` reads the callback's `res`.
                between = code[at:m.start()]
                n_ = re.escape(name)
                if kind != "callback" and (
                        re.search(r"\([^()]*(?<![\w$.])" + n_ + r"\b[^()]*\)\s*=>|(?<![\w$.])" + n_ + r"\s*=>"
                                  r"|function\s*[\w$]*\s*\([^)]*(?<![\w$.])" + n_ + r"\b", between[1:])):
                    continue
                if kind == "callback":
                    # A callback's parameter lives inside the call that passes it
                    # (`xs.map(v => v.id)`); a `v` after that call is another value.
                    open_ = code.index("(", at)
                    close = balanced(code, open_, "(", ")")
                    if close is None or m.start() >= close:
                        continue
                    # After its own parameter, a nested function naming it again
                    # shadows it.
                    own = re.search(r"(?<![\w$.])" + n_ + r"\b", code[open_:m.start()])
                    inner = code[open_ + own.end():m.start()] if own else ""
                    if re.search(r"\([^()]*(?<![\w$.])" + n_ + r"\b[^()]*\)\s*=>|(?<![\w$.])" + n_ + r"\s*=>"
                                 r"|function\s*[\w$]*\s*\([^)]*(?<![\w$.])" + n_ + r"\b", inner):
                        continue
                if kind == "named":
                    kind = "named import object"
                if kind in ("call", "new", "await") and len(re.findall(
                        r"(?<![\w$.=!<>])" + re.escape(name) + r"\s*=[^=>]", code[prior[-1][0]:])) > 1:
                    continue  # assigned again: not one type
            else:
                continue
            if not t or t[0] != "iface" or not t[1]:
                continue
            if not any(self.c.member(x, member) is not None for x in t[1]):
                continue
            if len(t[1]) > 1 and kind in ("call", "global", "await", "new"):
                kind = "narrowed" if self.narrowed(name, m.start()) else "union"
            elif len(t[1]) > 1 and kind in ("loop", "callback", "destructured"):
                pass
            out.append((kind, m.start(3), member))
        # Named imports: the imported name itself.
        for m in re.finditer(r"\bimport\s*\{([^}]*)\}\s*from\s*(['\"])", code):
            q = m.end()
            spec = self.text[q:self.text.find(m.group(2), q)]
            iface = self.c.modules.get(spec)
            if not iface:
                continue
            base = m.start(1)
            for pm in re.finditer(r"(" + IDENT + r")(\s+as\s+" + IDENT + r")?", m.group(1)):
                if pm.group(1) in ("as", "type"):
                    continue
                if self.c.member(iface, pm.group(1)) is not None:
                    out.append(("named import", base + pm.start(1), pm.group(1), pm.group(2) is None))
                    break
        return out


def run_grounded(grounded, corpus, folder):
    out = subprocess.run([grounded, "check", "--docs", corpus, "--format", "json", "."],
                         capture_output=True, text=True, cwd=folder)
    try:
        return json.loads(out.stdout or "[]")
    except json.JSONDecodeError:
        sys.exit("grounded check printed no JSON: " + out.stderr[:500])


TSC_LINE = re.compile(r"^(.*?)\((\d+),(\d+)\): error (TS\d+): (.*)$")


def run_tsc(a, folder, files):
    args = ["node", a.tsc, "--noEmit", "--allowJs", "--checkJs", "--pretty", "false",
            "--skipLibCheck", "--types", "", "--target", "es2020", "--strict", "false",
            "--module", "preserve", "--moduleResolution", "bundler", "--lib", a.tsc_lib]
    args += [os.path.abspath(d) for d in a.dts.split(",") if d] + files
    out = subprocess.run(args, capture_output=True, text=True, cwd=folder)
    errs = []
    for l in out.stdout.splitlines():
        m = TSC_LINE.match(l)
        if m:
            errs.append((os.path.normpath(os.path.join(folder, m.group(1))), int(m.group(2)), m.group(4), m.group(5)))
    return errs


def tsc_all(a, groups):
    from concurrent.futures import ThreadPoolExecutor
    out = []
    with ThreadPoolExecutor(max_workers=2) as ex:
        for e in ex.map(lambda g: run_tsc(a, g[0], g[1]), groups):
            out.extend(e)
    return out


KINDS = ("module object", "require member", "named import", "named import object", "destructured require", "call", "new", "await",
         "global", "union", "narrowed", "loop", "callback", "destructured")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--grounded", required=True)
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--scripts", required=True)
    ap.add_argument("--ext", default=".js")
    ap.add_argument("--per-kind", type=int, default=2)
    ap.add_argument("--tsc")
    ap.add_argument("--types-dir", help="a package folder tsc resolves imports to (node_modules/@types/NAME)")
    ap.add_argument("--types-name")
    ap.add_argument("--dts", default="")
    ap.add_argument("--tsc-lib", default="es2020")
    ap.add_argument("--sites-corpus", help="the corpus that types receivers to find sites (default --corpus): "
                    "the same injections for a before and an after corpus")
    ap.add_argument("--findings")
    ap.add_argument("--out")
    a = ap.parse_args()
    grounded, corpus = os.path.abspath(a.grounded), os.path.abspath(a.corpus)
    c = Corpus(os.path.abspath(a.sites_corpus) if a.sites_corpus else corpus)
    exts = [e if e.startswith(".") else "." + e for e in a.ext.split(",")]
    scripts = scripts_of(a.scripts, exts)
    if not scripts:
        sys.exit("no script under " + a.scripts)
    work = tempfile.mkdtemp(prefix="measure-kinds-")
    report = {"scripts": len(scripts), "corpus": corpus, "grounded": grounded}
    try:
        if a.types_dir:
            os.makedirs(os.path.join(work, "node_modules", "@types"), exist_ok=True)
            os.symlink(os.path.abspath(a.types_dir), os.path.join(work, "node_modules", "@types", a.types_name))
        plain = os.path.join(work, "plain")
        texts = {}
        for s in scripts:
            rel = os.path.relpath(s, a.scripts)
            dst = os.path.join(plain, rel)
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copyfile(s, dst)
            texts[rel] = open(s, encoding="utf-8", errors="replace").read()
        fs = run_grounded(grounded, corpus, plain)
        report["grounded_findings"] = len(fs)
        report["grounded_by_code"] = dict(collections.Counter(f["code"] for f in fs))
        report["grounded_scripts_with_findings"] = len({f["path"] for f in fs})
        if a.findings:
            with open(a.findings, "w") as out:
                for f in sorted(fs, key=lambda f: (f["path"], f["line"])):
                    rel = os.path.relpath(os.path.join(plain, f["path"]), plain) if not os.path.isabs(f["path"]) else os.path.relpath(f["path"], plain)
                    src = texts.get(rel, "").splitlines()
                    code_line = src[f["line"] - 1].strip() if 0 < f["line"] <= len(src) else ""
                    out.write("%s:%d [%s] %s\n    | %s\n" % (rel, f["line"], f["code"], f.get("message", ""), code_line[:160]))
        if a.tsc:
            groups = []
            for n, rel in enumerate(sorted(texts)):
                d = os.path.join(work, "plain_js", str(n))
                os.makedirs(d, exist_ok=True)
                with open(os.path.join(d, os.path.basename(rel)), "w") as f:
                    f.write(texts[rel] + "\nexport {};\n")
                groups.append((d, [os.path.basename(rel)]))
            errs = tsc_all(a, groups)
            report["tsc_findings"] = len(errs)
            report["tsc_by_code"] = dict(collections.Counter(e[2] for e in errs).most_common(8))
        inj = os.path.join(work, "inj")
        cases = []
        for rel, text in sorted(texts.items()):
            per = collections.Counter()
            try:
                sites = Script(text, c).sites()
            except RecursionError:
                continue
            for site in sites:
                kind, off, member = site[0], site[1], site[2]
                if per[kind] >= a.per_kind:
                    continue
                per[kind] += 1
                invented = member + "Qx"
                if kind == "named import":
                    repl = invented + (" as " + member if site[3] else "")
                else:
                    repl = invented
                new = text[:off] + repl + text[off + len(member):]
                n = len(cases)
                name = "%s.inj%d%s" % (os.path.splitext(rel)[0].replace(os.sep, "__"), n, os.path.splitext(rel)[1])
                d = os.path.join(inj, str(n))
                os.makedirs(d, exist_ok=True)
                with open(os.path.join(d, name), "w") as f:
                    f.write(new)
                cases.append({"kind": kind, "file": name, "line": line_of(text, off), "invented": invented, "script": rel})
        from concurrent.futures import ThreadPoolExecutor

        def one(n):
            fs = run_grounded(grounded, corpus, os.path.join(inj, str(n)))
            # Only a finding that names the invented member: a finding the unmodified
            # line already had (an import binding read as unknown) is no catch.
            inv = cases[n]["invented"]
            return {(os.path.basename(f["path"]), f["line"]) for f in fs
                    if f["code"] in ("member", "object") and inv in f.get("message", "")}
        hit = set()
        with ThreadPoolExecutor(max_workers=2) as ex:
            for h in ex.map(one, range(len(cases))):
                hit |= h
        tsc_hit = set()
        if a.tsc and cases:
            # The copies of one script in one tsc run, each a module of its own.
            by_script = collections.OrderedDict()
            for n, cs in enumerate(cases):
                by_script.setdefault(cs["script"], []).append((n, cs))
            groups = []
            for k, (script, lst) in enumerate(by_script.items()):
                d = os.path.join(work, "inj_js", str(k))
                os.makedirs(d, exist_ok=True)
                for n, cs in lst:
                    with open(os.path.join(inj, str(n), cs["file"])) as f:
                        t = f.read()
                    with open(os.path.join(d, cs["file"]), "w") as f:
                        f.write(t + "\nexport {};\n")
                groups.append((d, [cs["file"] for _, cs in lst]))
            for (p, line, code, msg) in tsc_all(a, groups):
                if "Qx" in msg:
                    tsc_hit.add((os.path.basename(p), line))
        table = {}
        for kind in KINDS:
            ks = [x for x in cases if x["kind"] == kind]
            if not ks:
                continue
            caught = [x for x in ks if (x["file"], x["line"]) in hit]
            r = {"injected": len(ks), "caught": len(caught),
                 "missed": ["%s:%d %s" % (x["script"], x["line"], x["invented"]) for x in ks if x not in caught][:100]}
            if a.tsc:
                r["tsc_caught"] = len([x for x in ks if (x["file"], x["line"]) in tsc_hit])
                # Which sites tsc misses: a miss of both is no gap of grounded's.
                r["tsc_missed"] = ["%s:%d %s" % (x["script"], x["line"], x["invented"])
                                   for x in ks if (x["file"], x["line"]) not in tsc_hit][:100]
            table[kind] = r
        report["by_kind"] = table
        report["injected"] = len(cases)
        report["caught"] = sum(r["caught"] for r in table.values())
        if a.tsc:
            report["tsc_caught"] = sum(r["tsc_caught"] for r in table.values())
    finally:
        shutil.rmtree(work, ignore_errors=True)
    text = json.dumps(report, indent=2)
    print(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")


if __name__ == "__main__":
    main()
