// The generic fake engine. Evaluated once per run; returns a function that receives
// the global object, the corpus description (describe.rs) and the host functions, and
// installs every documented global, constructor and global function.
//
// Nothing here names an engine: every name comes from the description D.
//
// Typed objects are Proxies: a documented member gives a stub of its documented type;
// an undocumented one is reported to the host (with the script's stack, so the finding
// points at the script) and gives a permissive stub, so the run goes on and finds the
// next one. Language-level probes (toString, valueOf, hasOwnProperty, Symbol keys,
// then, toJSON, ...) are never reported: the language makes them, not the script's
// author, and a false accusation costs more than a miss.
(function (G, D, H) {
    "use strict";
    // The language's own objects as they are now: a script that later replaces
    // `Error`, `Proxy` or `Object.create` (ES3 polyfills do) must not break the engine.
    var Proxy = G.Proxy, Reflect = G.Reflect, Error = G.Error, Symbol = G.Symbol,
        String = G.String, RegExp = G.RegExp, Date = G.Date;
    var create = G.Object.create, defineProperty = G.Object.defineProperty,
        keysOf = G.Object.keys, objectProto = G.Object.prototype;
    var hasOwn = objectProto.hasOwnProperty;
    var IFACES = D.i;
    var protos = create(null);
    var methodCache = create(null);
    var inCallback = 0;

    // Names the language itself reads on any object (conversions, promise
    // resolution, JSON, array-likes): never a script's invention.
    var PROBES = create(null);
    [
        "toString", "toLocaleString", "valueOf", "constructor", "hasOwnProperty",
        "isPrototypeOf", "propertyIsEnumerable", "__proto__", "__defineGetter__",
        "__defineSetter__", "__lookupGetter__", "__lookupSetter__", "then", "toJSON",
        "length"
    ].forEach(function (k) { PROBES[k] = true; });

    function where() {
        return new Error().stack;
    }

    function toPrim(hint) {
        return hint === "number" ? 0 : "";
    }

    // A value that accepts everything: any member, any call, any `new`, any write.
    function permissive() {
        var store = create(null);
        var fn = function () {};
        return new Proxy(fn, {
            get: function (t, k) {
                if (typeof k === "symbol") {
                    return k === Symbol.toPrimitive ? toPrim : undefined;
                }
                if (k in store) return store[k];
                if (k === "length") return 0;
                if (k === "toString" || k === "toLocaleString") return function () { return ""; };
                if (k === "valueOf") return function () { return 0; };
                if (k === "then" || k === "toJSON") return undefined;
                if (k === "prototype" || k === "call" || k === "apply" || k === "bind" ||
                    k === "constructor" || k === "hasOwnProperty") {
                    return Reflect.get(t, k);
                }
                var v = permissive();
                store[k] = v;
                return v;
            },
            set: function (t, k, v) {
                if (typeof k !== "symbol") store[k] = v;
                return true;
            },
            has: function () { return true; },
            apply: function () { return permissive(); },
            construct: function () { return permissive(); }
        });
    }

    function builtin(name) {
        switch (name) {
            case "Date": return new Date();
            case "RegExp": return new RegExp("(?:)");
            case "Error": return new Error("");
            case "String": return "";
            case "Number": return 0;
            case "Boolean": return false;
            case "Array": return arrayOf("a");
            case "Function": return function () { return permissive(); };
            default: return permissive();
        }
    }

    var INDEX = /^(?:0|[1-9][0-9]*)$/;

    // An empty array of a documented element type: `length` is 0 (loops over it run
    // zero times), but an element read by index (`layout.pages[0]`) is a value of the
    // element type, as the engine would give, not `undefined` that crashes the run.
    function arrayOf(t) {
        return new Proxy([], {
            get: function (a, k, r) {
                if (typeof k === "string" && !hasOwn.call(a, k) && INDEX.test(k)) return make(t);
                return Reflect.get(a, k, r);
            }
        });
    }

    // A value of a documented type.
    // Data the script got from a stub (an empty string, zero, an empty array): a crash
    // on `undefined` after that may be the stub's doing, not the script's (H.stubbed).
    function make(t) {
        switch (t) {
            case "v": return undefined;
            case "s": case "p": H.stubbed = true; return "";
            case "n": H.stubbed = true; return 0;
            case "b": H.stubbed = true; return false;
            case "f": return function () { return permissive(); };
            case "a": case "o": return permissive();
        }
        if (t.i !== undefined) return IFACES[t.i] ? typed(t.i) : permissive();
        if (t.r !== undefined) { H.stubbed = true; return arrayOf(t.r); }
        if (t.B !== undefined) return builtin(t.B);
        return permissive();
    }

    function protoOf(name) {
        var p = protos[name];
        if (p) return p;
        var I = IFACES[name];
        var parent = I && I.parent && IFACES[I.parent] ? protoOf(I.parent) : objectProto;
        p = create(parent);
        defineProperty(p, "toString", {
            value: function () { return "[object " + name + "]"; },
            writable: true, configurable: true
        });
        protos[name] = p;
        return p;
    }

    // The stub of a documented method: checks `path` arguments, runs callbacks once
    // (so their bodies are exercised), returns a value of the documented type.
    function method(owner, name, spec, loader) {
        var key = owner + "\u0000" + name;
        var f = methodCache[key];
        if (f) return f;
        var ty = spec[1], paths = spec[2], fns = spec[3];
        f = function () {
            var i, a;
            for (i = 0; i < paths.length; i++) {
                a = arguments[paths[i]];
                if (typeof a === "string") {
                    if (loader) H.load(a, where());
                    else H.path(a, where());
                }
            }
            if (inCallback === 0) {
                for (i = 0; i < fns.length; i++) {
                    a = arguments[fns[i]];
                    if (typeof a === "function") {
                        inCallback++;
                        try {
                            a.call(undefined, permissive(), permissive(), permissive());
                        } finally {
                            inCallback--;
                        }
                    }
                }
            }
            if (loader && ty !== "v") return globalView;
            return make(ty);
        };
        methodCache[key] = f;
        return f;
    }

    var handlers = create(null);

    // Own members and inherited ones (an own member hides a parent's), built on first
    // use of the interface.
    function membersOf(name) {
        var I = IFACES[name], M = create(null), chain = [name].concat(I.anc || []);
        for (var c = 0; c < chain.length; c++) {
            var A = IFACES[chain[c]];
            if (!A) continue;
            for (var k in A.m) {
                if (hasOwn.call(A.m, k) && M[k] === undefined) M[k] = A.m[k];
            }
        }
        return M;
    }

    // `Loose member names: yes`: a name equal to a member once lowercased with
    // underscores removed is that member (the documented spelling); only the members
    // of loose interfaces of the chain (all of them when the interface itself is).
    function fold(k) {
        return String(k).replace(/_/g, "").toLowerCase();
    }
    function looseOf(name) {
        var I = IFACES[name], L = null, chain = [name].concat(I.anc || []);
        for (var c = 0; c < chain.length; c++) {
            var A = IFACES[chain[c]];
            if (!A || !(I.l === true || A.l === true)) continue;
            if (L === null) L = create(null);
            for (var k in A.m) {
                if (hasOwn.call(A.m, k) && L[fold(k)] === undefined) L[fold(k)] = k;
            }
        }
        return L;
    }

    function handlerOf(name) {
        var h = handlers[name];
        if (h) return h;
        var M = membersOf(name), I = IFACES[name], L = looseOf(name), S = create(null);
        // Own members of documented sub-interfaces (describe.rs "ds"): the object may
        // be one of them.
        (I.ds || []).forEach(function (d) {
            var A = IFACES[d];
            if (!A) return;
            for (var k in A.m) {
                if (hasOwn.call(A.m, k)) S[k] = true;
            }
        });
        function spelled(k) {
            if (L === null || typeof k !== "string" || (M[k] !== undefined && hasOwn.call(M, k))) return k;
            var real = L[fold(k)];
            return real === undefined ? k : real;
        }
        // Open objects (the docs' `Index:` and `Extensible:`): a key of the index, or
        // a property the script set, is no invention.
        function indexed(k) {
            if (I.n !== undefined && INDEX.test(k)) return I.n;
            return I.k;
        }
        h = {
            get: function (t, k, r) {
                if (typeof k === "symbol" || hasOwn.call(t, k)) return Reflect.get(t, k, r);
                k = spelled(k);
                if (hasOwn.call(t, k)) return Reflect.get(t, k, r);
                var spec = M[k];
                if (spec !== undefined && hasOwn.call(M, k)) {
                    if (spec[0] === "m") return method(name, k, spec, false);
                    var v = spec[0] === "p" ? make(spec[1]) : permissive();
                    if (v !== null && (typeof v === "object" || typeof v === "function")) {
                        defineProperty(t, k, {
                            value: v, writable: true, enumerable: true, configurable: true
                        });
                    }
                    return v;
                }
                // `k in t`: what the script itself added to Object.prototype (ES3
                // polyfills) is on every object of the engine too.
                if (PROBES[k] === true || k in t) return Reflect.get(t, k, r);
                var it = indexed(k);
                if (it !== undefined) return make(it);
                if (S[k] === true) return permissive();
                H.report(name, String(k), where());
                return permissive();
            },
            set: function (t, k, v) {
                if (typeof k !== "symbol") k = spelled(k);
                if (typeof k === "symbol" || hasOwn.call(t, k) || S[k] === true ||
                    (M[k] !== undefined && hasOwn.call(M, k)) || PROBES[k] === true || k in t ||
                    I.x === true || indexed(k) !== undefined) {
                    defineProperty(t, k, {
                        value: v, writable: true, enumerable: true, configurable: true
                    });
                    return true;
                }
                H.report(name, String(k), where());
                // The write is the mistake, reported here; later reads of the same
                // member are the same one (said once, at the write).
                defineProperty(t, k, {
                    value: v, writable: true, enumerable: true, configurable: true
                });
                return true;
            },
            has: function (t, k) {
                if (typeof k !== "symbol") k = spelled(k);
                if (typeof k !== "symbol" && M[k] !== undefined && hasOwn.call(M, k)) return true;
                return Reflect.has(t, k);
            }
        };
        handlers[name] = h;
        return h;
    }

    // An object of a documented interface.
    function typed(name) {
        return new Proxy(create(protoOf(name)), handlerOf(name));
    }

    // What a non-void loader returns: the files it ran share the global scope here, so
    // their top-level names are reachable through it; anything else is permissive.
    var globalView = new Proxy(create(null), {
        get: function (t, k) {
            if (typeof k === "symbol") return undefined;
            if (k in G) return G[k];
            return permissive();
        },
        has: function () { return true; }
    });

    var name, keys, i;
    keys = keysOf(D.c);
    for (i = 0; i < keys.length; i++) {
        name = keys[i];
        if (name in G) continue;
        (function (ctorName, iface) {
            var ctor = function () { return typed(iface); };
            var proto = protoOf(iface);
            defineProperty(ctor, "name", { value: ctorName });
            ctor.prototype = proto;
            defineProperty(proto, "constructor", {
                value: ctor, writable: true, configurable: true
            });
            G[ctorName] = ctor;
        })(name, D.c[name]);
    }
    keys = keysOf(D.g);
    for (i = 0; i < keys.length; i++) {
        name = keys[i];
        if (name in G) continue;
        G[name] = IFACES[D.g[name]] ? typed(D.g[name]) : permissive();
    }
    keys = keysOf(D.f);
    for (i = 0; i < keys.length; i++) {
        name = keys[i];
        var spec = D.f[name], loader = spec[4] === true;
        if (name in G && !loader) continue;
        if (spec[0] === "m") G[name] = method("", name, spec, loader);
        else if (spec[0] === "p") G[name] = make(spec[1]);
        else G[name] = permissive();
    }
    // The project's own globals (grounded.toml): defined, of no known interface.
    for (i = 0; i < D.pg.length; i++) {
        if (!(D.pg[i] in G)) G[D.pg[i]] = permissive();
    }
    for (i = 0; i < D.xg.length; i++) {
        if (!(D.xg[i] in G)) G[D.xg[i]] = permissive();
    }
    for (i = 0; i < D.xf.length; i++) {
        if (!(D.xf[i] in G)) G[D.xf[i]] = function () { return permissive(); };
    }
    // Modules (modules.rs rewrites a script that imports or exports into a call of
    // `__grounded_module__`): each file's module record by its path, made before its
    // body runs so that a circular import finds it (its exports not yet filled).
    var MODS = create(null), FAKE = create(null);
    // `cjs`: a `require` (it may start above the script's folder, see source.rs).
    function record(spec, from, cjs) {
        var M = D.md[spec];
        if (M !== undefined) {
            var r = FAKE[spec];
            if (r) return r;
            var ns = IFACES[M[0]] ? typed(M[0]) : permissive();
            r = { ns: ns, d: M[1] && IFACES[M[1]] ? typed(M[1]) : ns };
            FAKE[spec] = r;
            return r;
        }
        var rel = (spec.charAt(0) === "." || spec.charAt(0) === "/") ? H.module(spec, from, cjs === true) : "";
        if (rel) {
            if (!(rel in MODS)) H.load(rel, where());
            var m = MODS[rel];
            if (m) {
                var ex = m.exports;
                var d = (ex !== null && typeof ex === "object" && "default" in ex) ? ex["default"] : ex;
                return { ns: ex, d: d };
            }
        }
        // Bundled, remote or undocumented: the checker judges the specifier; the run
        // goes on with a value that accepts everything.
        var p = permissive();
        return { ns: p, d: p };
    }
    defineProperty(G, "__grounded_import__", { value: record, enumerable: false });
    defineProperty(G, "__grounded_module__", {
        value: function (rel, body) {
            var module = { exports: {} };
            MODS[rel] = module;
            var req = D.cj ? function (spec) {
                if (typeof spec !== "string") return permissive();
                var r = record(spec, rel, true);
                return D.md[spec] !== undefined ? r.ns : r.ns;
            } : undefined;
            body(module, module.exports, req, module.exports);
            return module;
        },
        enumerable: false
    });
    // The engine's `Entry exports:`, called in order after the entry's top level.
    defineProperty(G, "__grounded_entry__", {
        value: function (rel) {
            var m = MODS[rel];
            if (!m) return;
            for (var e = 0; e < D.ee.length; e++) {
                var ex = m.exports, f;
                if (D.ee[e] === "default") {
                    f = (ex !== null && typeof ex === "object" && "default" in ex) ? ex["default"] : ex;
                } else {
                    f = ex !== null && (typeof ex === "object" || typeof ex === "function") ? ex[D.ee[e]] : undefined;
                }
                if (typeof f === "function") f();
            }
        },
        enumerable: false
    });
    // `#include "x"` lines become calls of this (see source.rs).
    defineProperty(G, "__grounded_include__", {
        value: function (p) { H.load(p, where()); },
        enumerable: false
    });
})
