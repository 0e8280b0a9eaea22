use std::time::Instant;
use tree_sitter::Node;
fn script(lines: usize) -> String {
    let mut s = String::new();
    let mut i = 0;
    while s.lines().count() < lines {
        s.push_str(&format!(include_str!("/tmp/section.txt"), i = i));
        i += 1;
    }
    s
}
fn cursor_walk(root: Node) -> usize {
    let mut w = grounded::js::Preorder::new(root);
    let mut n = 0;
    while let Some((node, d)) = w.next() {
        n += node.kind_id() as usize + d;
        if node.kind() == "string" {
            w.skip_children();
        }
    }
    n
}
const KEEP: &[&str] = &[
    "binary_expression",
    "unary_expression",
    "augmented_assignment_expression",
    "lexical_declaration",
    "for_in_statement",
    "class_declaration",
    "class",
    "yield_expression",
    "import_statement",
    "export_statement",
    "await_expression",
    "function_declaration",
    "function_expression",
    "arrow_function",
    "method_definition",
    "generator_function",
    "generator_function_declaration",
    "program",
];
struct F<'t> {
    node: Node<'t>,
    count: usize,
    next: usize,
    all: bool,
    cursor: bool,
    cur: Option<tree_sitter::TreeCursor<'t>>,
}
fn frame<'t>(c: Node<'t>, keep: &[bool]) -> Option<F<'t>> {
    let all = keep[c.kind_id() as usize];
    let total = c.child_count();
    if total == 0 {
        return None;
    }
    if all || total > 12 {
        Some(F {
            node: c,
            count: total,
            next: 0,
            all,
            cursor: true,
            cur: None,
        })
    } else {
        let k = c.named_child_count();
        if k == 0 {
            return None;
        }
        Some(F {
            node: c,
            count: k,
            next: 0,
            all,
            cursor: false,
            cur: None,
        })
    }
}
fn hybrid_walk(root: Node, keep: &[bool]) -> usize {
    let mut n = root.kind_id() as usize;
    let mut stack: Vec<F> = Vec::new();
    if let Some(f) = frame(root, keep) {
        stack.push(f);
    }
    while let Some(top) = stack.last_mut() {
        if top.next >= top.count {
            stack.pop();
            continue;
        }
        let i = top.next;
        top.next += 1;
        let c = if top.cursor {
            let node = top.node;
            let cur = top.cur.get_or_insert_with(|| node.walk());
            let moved = if i == 0 {
                cur.goto_first_child()
            } else {
                cur.goto_next_sibling()
            };
            if !moved {
                top.next = top.count;
                continue;
            }
            let c = cur.node();
            if !top.all && !c.is_named() {
                continue;
            }
            c
        } else {
            top.node.named_child(i).unwrap()
        };
        let d = stack.len();
        n += c.kind_id() as usize + d;
        if c.kind() == "string" {
            continue;
        }
        if let Some(f) = frame(c, keep) {
            stack.push(f);
        }
    }
    n
}

fn main() {
    let text = script(10000);
    let lang: tree_sitter::Language = tree_sitter_javascript::LANGUAGE.into();
    let mut keep = vec![false; lang.node_kind_count()];
    for id in 0..keep.len() as u16 {
        if let Some(k) = lang.node_kind_for_id(id) {
            if KEEP.contains(&k) {
                keep[id as usize] = true;
            }
        }
    }
    let mut t = [0f64; 2];
    for _ in 0..15 {
        let tree = grounded::js::parse(&text);
        let s = Instant::now();
        std::hint::black_box(cursor_walk(tree.root_node()));
        t[0] += s.elapsed().as_secs_f64();
        drop(tree);
        let tree = grounded::js::parse(&text);
        let s = Instant::now();
        std::hint::black_box(hybrid_walk(tree.root_node(), &keep));
        t[1] += s.elapsed().as_secs_f64();
    }
    println!(
        "hot tree: cursor {:.2} ms, hybrid named {:.2} ms",
        t[0] / 15.0 * 1e3,
        t[1] / 15.0 * 1e3
    );
}
