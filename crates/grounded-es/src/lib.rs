//! The ECMAScript language itself: which built-in globals, static methods and prototype
//! methods exist in which edition. One table, read by the checker's `engine`,
//! `constructor`, `function` and `object` families, by the corpus loader (built-in type
//! names) and by the dry run.
//!
//! Why a table: agents write ES2015+ out of habit (`Object.keys`, `arr.forEach`,
//! `str.trim()`), and an ES3 engine throws `undefined is not a function` at run time.
//! Editions are years: ES3 = 1999, ES5 = 2009, ES2015 = 2015, ...

#![warn(missing_docs)]

/// A built-in global of the language: its name, the edition that introduced it, and
/// whether it is a constructor (`new X()` is valid).
#[derive(Debug, Clone, Copy)]
pub struct Global {
    /// Name, e.g. `JSON`.
    pub name: &'static str,
    /// Edition year that introduced it.
    pub since: u16,
    /// Whether `new Name()` is meaningful.
    pub constructor: bool,
    /// Whether it is a function (callable without `new`).
    pub callable: bool,
}

const fn g(name: &'static str, since: u16, constructor: bool, callable: bool) -> Global {
    Global {
        name,
        since,
        constructor,
        callable,
    }
}

/// Every global of the language through ES2023.
pub const GLOBALS: &[Global] = &[
    // ES1–ES3
    g("Object", 1999, true, true),
    g("Function", 1999, true, true),
    g("Array", 1999, true, true),
    g("String", 1999, true, true),
    g("Boolean", 1999, true, true),
    g("Number", 1999, true, true),
    g("Math", 1999, false, false),
    g("Date", 1999, true, true),
    g("RegExp", 1999, true, true),
    g("Error", 1999, true, true),
    g("EvalError", 1999, true, true),
    g("RangeError", 1999, true, true),
    g("ReferenceError", 1999, true, true),
    g("SyntaxError", 1999, true, true),
    g("TypeError", 1999, true, true),
    g("URIError", 1999, true, true),
    g("NaN", 1999, false, false),
    g("Infinity", 1999, false, false),
    g("undefined", 1999, false, false),
    g("eval", 1999, false, true),
    g("parseInt", 1999, false, true),
    g("parseFloat", 1999, false, true),
    g("isNaN", 1999, false, true),
    g("isFinite", 1999, false, true),
    g("decodeURI", 1999, false, true),
    g("decodeURIComponent", 1999, false, true),
    g("encodeURI", 1999, false, true),
    g("encodeURIComponent", 1999, false, true),
    g("escape", 1999, false, true),
    g("unescape", 1999, false, true),
    g("arguments", 1999, false, false),
    // ES5
    g("JSON", 2009, false, false),
    // ES2015
    g("Map", 2015, true, false),
    g("Set", 2015, true, false),
    g("WeakMap", 2015, true, false),
    g("WeakSet", 2015, true, false),
    g("Promise", 2015, true, false),
    g("Symbol", 2015, false, true),
    g("Proxy", 2015, true, false),
    g("Reflect", 2015, false, false),
    g("ArrayBuffer", 2015, true, false),
    g("DataView", 2015, true, false),
    g("Int8Array", 2015, true, false),
    g("Uint8Array", 2015, true, false),
    g("Uint8ClampedArray", 2015, true, false),
    g("Int16Array", 2015, true, false),
    g("Uint16Array", 2015, true, false),
    g("Int32Array", 2015, true, false),
    g("Uint32Array", 2015, true, false),
    g("Float32Array", 2015, true, false),
    g("Float64Array", 2015, true, false),
    // later
    g("SharedArrayBuffer", 2017, true, false),
    g("Atomics", 2017, false, false),
    g("BigInt", 2020, false, true),
    g("BigInt64Array", 2020, true, false),
    g("BigUint64Array", 2020, true, false),
    g("globalThis", 2020, false, false),
    g("AggregateError", 2021, true, true),
    g("WeakRef", 2021, true, false),
    g("FinalizationRegistry", 2021, true, false),
];

/// Static members of built-in objects, with the edition that introduced them.
pub const STATICS: &[(&str, &str, u16)] = &[
    ("Object", "prototype", 1999),
    ("Object", "getPrototypeOf", 2009),
    ("Object", "getOwnPropertyDescriptor", 2009),
    ("Object", "getOwnPropertyNames", 2009),
    ("Object", "create", 2009),
    ("Object", "defineProperty", 2009),
    ("Object", "defineProperties", 2009),
    ("Object", "seal", 2009),
    ("Object", "freeze", 2009),
    ("Object", "preventExtensions", 2009),
    ("Object", "isSealed", 2009),
    ("Object", "isFrozen", 2009),
    ("Object", "isExtensible", 2009),
    ("Object", "keys", 2009),
    ("Object", "assign", 2015),
    ("Object", "is", 2015),
    ("Object", "setPrototypeOf", 2015),
    ("Object", "getOwnPropertySymbols", 2015),
    ("Object", "values", 2017),
    ("Object", "entries", 2017),
    ("Object", "getOwnPropertyDescriptors", 2017),
    ("Object", "fromEntries", 2019),
    ("Object", "hasOwn", 2022),
    ("Object", "groupBy", 2024),
    ("Array", "prototype", 1999),
    ("Array", "isArray", 2009),
    ("Array", "from", 2015),
    ("Array", "of", 2015),
    ("String", "prototype", 1999),
    ("String", "fromCharCode", 1999),
    ("String", "fromCodePoint", 2015),
    ("String", "raw", 2015),
    ("Number", "prototype", 1999),
    ("Number", "MAX_VALUE", 1999),
    ("Number", "MIN_VALUE", 1999),
    ("Number", "NaN", 1999),
    ("Number", "NEGATIVE_INFINITY", 1999),
    ("Number", "POSITIVE_INFINITY", 1999),
    ("Number", "isInteger", 2015),
    ("Number", "isFinite", 2015),
    ("Number", "isNaN", 2015),
    ("Number", "isSafeInteger", 2015),
    ("Number", "parseFloat", 2015),
    ("Number", "parseInt", 2015),
    ("Number", "EPSILON", 2015),
    ("Number", "MAX_SAFE_INTEGER", 2015),
    ("Number", "MIN_SAFE_INTEGER", 2015),
    ("Boolean", "prototype", 1999),
    ("Function", "prototype", 1999),
    ("Date", "prototype", 1999),
    ("Date", "parse", 1999),
    ("Date", "UTC", 1999),
    ("Date", "now", 2009),
    ("RegExp", "prototype", 1999),
    ("Error", "prototype", 1999),
    ("Math", "E", 1999),
    ("Math", "LN10", 1999),
    ("Math", "LN2", 1999),
    ("Math", "LOG2E", 1999),
    ("Math", "LOG10E", 1999),
    ("Math", "PI", 1999),
    ("Math", "SQRT1_2", 1999),
    ("Math", "SQRT2", 1999),
    ("Math", "abs", 1999),
    ("Math", "acos", 1999),
    ("Math", "asin", 1999),
    ("Math", "atan", 1999),
    ("Math", "atan2", 1999),
    ("Math", "ceil", 1999),
    ("Math", "cos", 1999),
    ("Math", "exp", 1999),
    ("Math", "floor", 1999),
    ("Math", "log", 1999),
    ("Math", "max", 1999),
    ("Math", "min", 1999),
    ("Math", "pow", 1999),
    ("Math", "random", 1999),
    ("Math", "round", 1999),
    ("Math", "sin", 1999),
    ("Math", "sqrt", 1999),
    ("Math", "tan", 1999),
    ("Math", "sign", 2015),
    ("Math", "trunc", 2015),
    ("Math", "cbrt", 2015),
    ("Math", "log10", 2015),
    ("Math", "log2", 2015),
    ("Math", "log1p", 2015),
    ("Math", "expm1", 2015),
    ("Math", "hypot", 2015),
    ("Math", "clz32", 2015),
    ("Math", "imul", 2015),
    ("Math", "fround", 2015),
    ("Math", "sinh", 2015),
    ("Math", "cosh", 2015),
    ("Math", "tanh", 2015),
    ("Math", "asinh", 2015),
    ("Math", "acosh", 2015),
    ("Math", "atanh", 2015),
    ("JSON", "parse", 2009),
    ("JSON", "stringify", 2009),
    ("Promise", "all", 2015),
    ("Promise", "race", 2015),
    ("Promise", "resolve", 2015),
    ("Promise", "reject", 2015),
    ("Promise", "allSettled", 2020),
    ("Promise", "any", 2021),
];

/// Which prototype a method lives on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Proto {
    /// `Array.prototype`
    Array,
    /// `String.prototype`
    String,
    /// `Function.prototype`
    Function,
    /// `Number.prototype`
    Number,
    /// `Date.prototype`
    Date,
    /// `Object.prototype` (every object has these)
    Object,
    /// `RegExp.prototype`
    RegExp,
}

/// Prototype methods by edition. Only receivers whose built-in type is certain (array
/// and string literals, `new Array()`, ...) are judged against this table.
pub const PROTO: &[(Proto, &str, u16)] = &[
    (Proto::Object, "constructor", 1999),
    (Proto::Object, "toString", 1999),
    (Proto::Object, "toLocaleString", 1999),
    (Proto::Object, "valueOf", 1999),
    (Proto::Object, "hasOwnProperty", 1999),
    (Proto::Object, "isPrototypeOf", 1999),
    (Proto::Object, "propertyIsEnumerable", 1999),
    // Annex B's legacy members: engines had them before any edition wrote them down.
    (Proto::Object, "__proto__", 1999),
    (Proto::Object, "__defineGetter__", 1999),
    (Proto::Object, "__defineSetter__", 1999),
    (Proto::Object, "__lookupGetter__", 1999),
    (Proto::Object, "__lookupSetter__", 1999),
    (Proto::Array, "length", 1999),
    (Proto::Array, "concat", 1999),
    (Proto::Array, "join", 1999),
    (Proto::Array, "pop", 1999),
    (Proto::Array, "push", 1999),
    (Proto::Array, "reverse", 1999),
    (Proto::Array, "shift", 1999),
    (Proto::Array, "slice", 1999),
    (Proto::Array, "sort", 1999),
    (Proto::Array, "splice", 1999),
    (Proto::Array, "unshift", 1999),
    (Proto::Array, "indexOf", 2009),
    (Proto::Array, "lastIndexOf", 2009),
    (Proto::Array, "every", 2009),
    (Proto::Array, "some", 2009),
    (Proto::Array, "forEach", 2009),
    (Proto::Array, "map", 2009),
    (Proto::Array, "filter", 2009),
    (Proto::Array, "reduce", 2009),
    (Proto::Array, "reduceRight", 2009),
    (Proto::Array, "find", 2015),
    (Proto::Array, "findIndex", 2015),
    (Proto::Array, "fill", 2015),
    (Proto::Array, "copyWithin", 2015),
    (Proto::Array, "entries", 2015),
    (Proto::Array, "keys", 2015),
    (Proto::Array, "values", 2015),
    (Proto::Array, "includes", 2016),
    (Proto::Array, "flat", 2019),
    (Proto::Array, "flatMap", 2019),
    (Proto::Array, "at", 2022),
    (Proto::Array, "findLast", 2023),
    (Proto::Array, "findLastIndex", 2023),
    (Proto::Array, "toSorted", 2023),
    (Proto::Array, "toReversed", 2023),
    (Proto::Array, "toSpliced", 2023),
    (Proto::Array, "with", 2023),
    (Proto::String, "length", 1999),
    (Proto::String, "charAt", 1999),
    (Proto::String, "charCodeAt", 1999),
    (Proto::String, "concat", 1999),
    (Proto::String, "indexOf", 1999),
    (Proto::String, "lastIndexOf", 1999),
    (Proto::String, "localeCompare", 1999),
    (Proto::String, "match", 1999),
    (Proto::String, "replace", 1999),
    (Proto::String, "search", 1999),
    (Proto::String, "slice", 1999),
    (Proto::String, "split", 1999),
    (Proto::String, "substring", 1999),
    (Proto::String, "substr", 1999),
    (Proto::String, "toLowerCase", 1999),
    (Proto::String, "toLocaleLowerCase", 1999),
    (Proto::String, "toUpperCase", 1999),
    (Proto::String, "toLocaleUpperCase", 1999),
    // Annex B's HTML methods, older than any edition that lists them.
    (Proto::String, "anchor", 1999),
    (Proto::String, "big", 1999),
    (Proto::String, "blink", 1999),
    (Proto::String, "bold", 1999),
    (Proto::String, "fixed", 1999),
    (Proto::String, "fontcolor", 1999),
    (Proto::String, "fontsize", 1999),
    (Proto::String, "italics", 1999),
    (Proto::String, "link", 1999),
    (Proto::String, "small", 1999),
    (Proto::String, "strike", 1999),
    (Proto::String, "sub", 1999),
    (Proto::String, "sup", 1999),
    (Proto::String, "trim", 2009),
    (Proto::String, "codePointAt", 2015),
    (Proto::String, "normalize", 2015),
    (Proto::String, "repeat", 2015),
    (Proto::String, "startsWith", 2015),
    (Proto::String, "endsWith", 2015),
    (Proto::String, "includes", 2015),
    (Proto::String, "padStart", 2017),
    (Proto::String, "padEnd", 2017),
    (Proto::String, "trimStart", 2019),
    (Proto::String, "trimEnd", 2019),
    (Proto::String, "trimLeft", 2019),
    (Proto::String, "trimRight", 2019),
    (Proto::String, "matchAll", 2020),
    (Proto::String, "replaceAll", 2021),
    (Proto::String, "at", 2022),
    (Proto::String, "isWellFormed", 2024),
    (Proto::String, "toWellFormed", 2024),
    (Proto::Function, "length", 1999),
    (Proto::Function, "prototype", 1999),
    (Proto::Function, "apply", 1999),
    (Proto::Function, "call", 1999),
    (Proto::Function, "bind", 2009),
    (Proto::Number, "toFixed", 1999),
    (Proto::Number, "toExponential", 1999),
    (Proto::Number, "toPrecision", 1999),
    (Proto::Date, "getTime", 1999),
    (Proto::Date, "getFullYear", 1999),
    (Proto::Date, "getMonth", 1999),
    (Proto::Date, "getDate", 1999),
    (Proto::Date, "getDay", 1999),
    (Proto::Date, "getHours", 1999),
    (Proto::Date, "getMinutes", 1999),
    (Proto::Date, "getSeconds", 1999),
    (Proto::Date, "toISOString", 2009),
    (Proto::Date, "toJSON", 2009),
    (Proto::RegExp, "exec", 1999),
    (Proto::RegExp, "test", 1999),
    (Proto::RegExp, "source", 1999),
    (Proto::RegExp, "global", 1999),
    (Proto::RegExp, "ignoreCase", 1999),
    (Proto::RegExp, "multiline", 1999),
    (Proto::RegExp, "lastIndex", 1999),
    (Proto::RegExp, "compile", 1999),
    (Proto::RegExp, "flags", 2015),
    (Proto::RegExp, "sticky", 2015),
    (Proto::RegExp, "unicode", 2015),
    (Proto::RegExp, "dotAll", 2018),
    (Proto::RegExp, "hasIndices", 2022),
    (Proto::RegExp, "unicodeSets", 2024),
];

/// The built-in global `name`, whatever its edition.
pub fn global(name: &str) -> Option<&'static Global> {
    GLOBALS.iter().find(|g| g.name == name)
}

/// The edition that introduced static member `obj.name`, if the language has it.
pub fn static_since(obj: &str, name: &str) -> Option<u16> {
    STATICS
        .iter()
        .find(|(o, n, _)| *o == obj && *n == name)
        .map(|(_, _, y)| *y)
}

/// Whether `obj` is a built-in object whose static members the table lists fully, so
/// that an unlisted member is really absent from the language.
pub fn statics_are_complete(obj: &str) -> bool {
    matches!(
        obj,
        "Object" | "Array" | "String" | "Number" | "Math" | "JSON" | "Date" | "Promise"
    )
}

/// The edition that introduced prototype method `name` on `proto`, if any. Methods of
/// `Object.prototype` count for every prototype.
pub fn proto_since(proto: Proto, name: &str) -> Option<u16> {
    PROTO
        .iter()
        .find(|(p, n, _)| (*p == proto || *p == Proto::Object) && *n == name)
        .map(|(_, _, y)| *y)
}

/// Whether [`PROTO`] lists every member of `proto`'s values, so that a name it lacks
/// is no member of the language at all: strings, numbers, arrays and regular
/// expressions. (Dates' and functions' rows are the ones the engine check needs; a
/// function also takes any property a script gives it.)
pub fn proto_is_complete(proto: Proto) -> bool {
    matches!(
        proto,
        Proto::String | Proto::Number | Proto::Array | Proto::RegExp
    )
}

/// The members a value of `proto` has in edition `level` (`Object.prototype`'s
/// included), in the table's order.
pub fn proto_members(proto: Proto, level: u16) -> impl Iterator<Item = &'static str> {
    PROTO
        .iter()
        .filter(move |(p, _, y)| (*p == proto || *p == Proto::Object) && *y <= level)
        .map(|(_, n, _)| *n)
}

/// Human name of an edition year: 1999 → `ES3`, 2009 → `ES5`, 2015 → `ES2015`.
pub fn edition_name(year: u16) -> String {
    match year {
        0..=1999 => "ES3".into(),
        2000..=2014 => "ES5".into(),
        y => format!("ES{y}"),
    }
}

/// Whether a type name in a signature is a built-in object of the language (any
/// edition): `Date`, `RegExp`, `Error`, ...
pub fn is_builtin_object(name: &str) -> bool {
    global(name).is_some_and(|g| g.constructor || g.name == "Math" || g.name == "JSON")
}

/// ES3's reserved words (keywords, future reserved words, and the `null`, `true` and
/// `false` literals), sorted. ES3 allows none of them as a property name after a dot
/// or as an object literal key (`a.class`, `{ default: 1 }`); ES5 allows all of them.
pub const ES3_RESERVED: &[&str] = &[
    "abstract",
    "boolean",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "continue",
    "debugger",
    "default",
    "delete",
    "do",
    "double",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "final",
    "finally",
    "float",
    "for",
    "function",
    "goto",
    "if",
    "implements",
    "import",
    "in",
    "instanceof",
    "int",
    "interface",
    "long",
    "native",
    "new",
    "null",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "short",
    "static",
    "super",
    "switch",
    "synchronized",
    "this",
    "throw",
    "throws",
    "transient",
    "true",
    "try",
    "typeof",
    "var",
    "void",
    "volatile",
    "while",
    "with",
];

/// Whether `name` is one of [`ES3_RESERVED`].
pub fn es3_reserved(name: &str) -> bool {
    // Property names are asked in the checker's walk: rule most out by shape first.
    (2..=12).contains(&name.len())
        && name.as_bytes()[0].is_ascii_lowercase()
        && ES3_RESERVED.binary_search(&name).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_words_are_sorted_for_the_search() {
        assert!(ES3_RESERVED.windows(2).all(|w| w[0] < w[1]));
        assert!(es3_reserved("class") && es3_reserved("default") && es3_reserved("null"));
        assert!(!es3_reserved("className") && !es3_reserved("Class") && !es3_reserved("x"));
    }

    #[test]
    fn editions() {
        assert_eq!(static_since("Object", "keys"), Some(2009));
        assert_eq!(proto_since(Proto::Array, "forEach"), Some(2009));
        assert_eq!(proto_since(Proto::String, "hasOwnProperty"), Some(1999));
        assert_eq!(global("JSON").unwrap().since, 2009);
        assert_eq!(edition_name(2009), "ES5");
        assert!(is_builtin_object("Date"));
        assert!(!is_builtin_object("parseInt"));
    }
}
