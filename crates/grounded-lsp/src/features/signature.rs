//! Signature help inside the parentheses of a documented call, and an options literal's
//! keys as the active parameter's documentation.
//!
//! Owns the signature shown; finds the callee through the parent `features`. May import
//! `features`, `lsp::typing`, `lsp::scan` and `docs`; never the server's state.

use super::*;

/// Signature help inside the parentheses of a documented method's or function's call;
/// inside an object literal argument, the active parameter's documentation lists the
/// option interface's keys.
pub fn signature_help(
    corpus: &Corpus,
    text: &str,
    tree: &Tree,
    offset: usize,
    seed: Option<&Seed>,
) -> Option<SignatureHelp> {
    let narrowed = request_seed(seed, text, tree, offset);
    let ctx = FileCtx::at(corpus, text, tree, offset, narrowed.as_ref());
    let (open, inside) = open_brackets(text, Some(tree), offset);
    if inside {
        return None;
    }
    let k = open.iter().rposition(|o| o.bracket == b'(')?;
    let call = open[k];
    let active = call.commas;
    let m = open_callee(&ctx, call.at)?;
    let keys = match open.get(k + 1) {
        Some(lit) if lit.bracket == b'{' => open_literal_interface(&ctx, call, *lit).map(|i| {
            let names: Vec<String> = corpus
                .members_of(i)
                .into_iter()
                .filter(|m| m.kind != MemberKind::Method)
                .map(|m| match m.signature() {
                    Some(s) => format!("- `{}`", s.text),
                    None => format!("- `{}`", m.name),
                })
                .collect();
            format!("`{i}` keys:\n{}", names.join("\n"))
        }),
        _ => None,
    };
    let doc = corpus
        .member_doc(m)
        .map(|d| Documentation::MarkupContent(markdown(d.trim().to_string())));
    let signatures: Vec<SignatureInformation> = m
        .overloads
        .iter()
        .filter(|o| o.is_method())
        .map(|o| SignatureInformation {
            label: o.text.clone(),
            documentation: doc.clone(),
            parameters: o.params.as_ref().map(|ps| {
                ps.iter()
                    .enumerate()
                    .map(|(i, p)| ParameterInformation {
                        label: ParameterLabel::Simple(p.name.clone()),
                        documentation: Some(match (&keys, i == active) {
                            (Some(k), true) => Documentation::MarkupContent(markdown(format!(
                                "{}: {}\n\n{k}",
                                p.name, p.ty
                            ))),
                            _ => Documentation::String(format!("{}: {}", p.name, p.ty)),
                        }),
                    })
                    .collect()
            }),
            active_parameter: None,
        })
        .collect();
    if signatures.is_empty() {
        return None;
    }
    let active_signature = m
        .overloads
        .iter()
        .filter(|o| o.is_method())
        .position(|o| {
            o.params
                .as_ref()
                .is_some_and(|p| p.len() > active || p.last().is_some_and(|l| l.rest))
        })
        .unwrap_or(0);
    Some(SignatureHelp {
        signatures,
        active_signature: Some(active_signature as u32),
        active_parameter: Some(active as u32),
    })
}
