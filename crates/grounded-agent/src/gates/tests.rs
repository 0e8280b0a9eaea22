//! The gates' unit tests: each push, its budget and the verbatim-repeat rule, with
//! the drafts that must pass untouched.

use super::*;

fn facts(changed: &[&str]) -> TurnFacts {
    TurnFacts {
        request: "split the file".into(),
        asks_change: true,
        changed: changed.iter().map(|s| s.to_string()).collect(),
        writes: WriteCounts {
            attempted: changed.len(),
            landed: changed.len(),
            refused: 0,
        },
        ..TurnFacts::default()
    }
}

#[test]
fn claims_are_past_tense_per_line() {
    let a = "Created:\n- lib/a.js\n- I will update template.js next.\n- template.js already imports lib/a.js.\nUpdated `template.js` to load them.";
    let c = claims(a, &FileNames::default());
    assert_eq!(c.len(), 2, "{c:?}");
    assert_eq!(c[0].1, Vec::<String>::new());
    assert_eq!(c[1].1, vec!["template.js".to_string()]);
    assert!(claims("I will update template.js", &FileNames::default()).is_empty());
    assert!(claims("I'll create lib/x.js", &FileNames::default()).is_empty());
    assert!(claims(
        "template.js already imports lib/x.js",
        &FileNames::default()
    )
    .is_empty());
    assert!(claims(
        "Calls `layout.tableStart` correctly.",
        &FileNames::default()
    )
    .is_empty());
    assert_eq!(
        claims("main.js was updated.", &FileNames::default())[0].1,
        vec!["main.js".to_string()]
    );
    assert_eq!(
        claims(
            "1. **Removed** the table from `main.js`",
            &FileNames::default()
        )[0]
        .1,
        vec!["main.js".to_string()]
    );
}

#[test]
fn claim_gate_pushes_a_false_claim_and_not_a_true_one() {
    let t = facts(&["lib/a.js", "lib/b.js"]);
    let mut g = Claim;
    assert!(g.gate("Created lib/a.js and lib/b.js.", &t).is_none());
    let p = g
        .gate("Created lib/a.js.\nUpdated template.js to load it.", &t)
        .unwrap();
    assert!(p.contains("`template.js`"), "{p}");
    assert!(p.contains("`lib/a.js`"), "{p}");
    assert!(g.gate("I will update template.js next.", &t).is_none());
    assert!(g
        .gate("template.js already imports lib/a.js.", &t)
        .is_none());
    // A claim with no file named is false only when nothing changed.
    assert!(g.gate("Updated the footer.", &t).is_none());
    assert!(g.gate("Updated the footer.", &facts(&[])).is_some());
}

#[test]
fn bail_needs_work_remaining() {
    let mut g = Bail;
    let draft = "I added the table. You may need to adjust the column widths yourself.";
    assert!(g.gate(draft, &facts(&["main.js"])).is_none());
    let mut t = facts(&[]);
    assert!(g.gate(draft, &t).unwrap().contains("no file changed"));
    t.asks_change = false;
    assert!(g.gate(draft, &t).is_none());
    assert!(g.gate("Done: added the table.", &facts(&[])).is_none());
}

#[test]
fn verify_lists_outstanding_findings() {
    let mut t = facts(&["main.js"]);
    assert!(Verify.gate("done", &t).is_none());
    t.outstanding
        .push("main.js:3:8 member: `Layout` has no member `tableCellEnd`".into());
    let p = Verify.gate("done", &t).unwrap();
    assert!(p.contains("- main.js:3:8 member:"));
    assert!(p.contains("Do not re-run the lookup"));
}

#[test]
fn checklist_catches_the_item_left_undone() {
    let mut t = facts(&["a.js", "b.js"]);
    t.plan = vec![
        PlanItem {
            title: "add header".into(),
            landed: vec!["a.js".into()],
            answered: false,
        },
        PlanItem {
            title: "add footer".into(),
            landed: vec!["b.js".into()],
            answered: false,
        },
        PlanItem {
            title: "add page numbers".into(),
            landed: vec![],
            answered: false,
        },
    ];
    let p = Checklist.gate("Added header and footer.", &t).unwrap();
    assert!(p.contains("\"add page numbers\""), "{p}");
    assert!(!p.contains("add header"));
    assert!(Checklist
        .gate(
            "Added header and footer. add page numbers was not done: no docs.",
            &t
        )
        .is_none());
    t.plan[2].landed.push("c.js".into());
    assert!(Checklist.gate("Added all three.", &t).is_none());
}

#[test]
fn runner_wraps_escalates_and_respects_the_shared_budget() {
    let mut r = GateRunner::new(AgentConfig::default(), standard());
    let t = facts(&["lib/a.js"]);
    let d1 = "Created lib/a.js.\nUpdated template.js.";
    let Decision::Push { gate, text } = r.judge(d1, &t) else {
        panic!()
    };
    assert_eq!(gate, "claim");
    assert!(text.starts_with(wording::ENVELOPE));
    assert!(text.ends_with(wording::SILENCE_TRAILER));
    // A second, reworded false claim: escalated, from the reserve.
    let d2 = "Created lib/a.js and updated template.js.\nUpdated template.js to import it.";
    let Decision::Push { gate, text } = r.judge(d2, &t) else {
        panic!()
    };
    assert_eq!(gate, "claim");
    assert!(text.contains("Second correction"), "{text}");
    assert!(text.contains("Make the change now"));
    // The verbatim repeat of the escalated draft ends the turn, honestly.
    let Decision::EndRepeat { unresolved } = r.judge(d2, &t) else {
        panic!()
    };
    assert_eq!(unresolved.len(), 1, "{unresolved:?}");
    assert!(unresolved[0].contains("`template.js`"), "{unresolved:?}");
}

#[test]
fn shared_budget_caps_pushes_across_gates() {
    let cfg = AgentConfig {
        reserve_final: 0,
        ..AgentConfig::default()
    };
    let mut r = GateRunner::new(cfg, standard());
    let mut t = facts(&[]);
    t.outstanding.push("a.js:1:1 member: m".into());
    t.plan = vec![PlanItem {
        title: "x".into(),
        landed: vec![],
        answered: false,
    }];
    let mut gates = Vec::new();
    for i in 0..6 {
        let draft = format!("Updated a.js. You may need to finish it. v{i}");
        match r.judge(&draft, &t) {
            Decision::Push { gate, .. } => gates.push(gate),
            Decision::Send => break,
            Decision::EndRepeat { .. } => panic!(),
        }
    }
    assert_eq!(gates, vec!["verify", "verify", "bail"]);
    assert_eq!(r.pushes(), 3);
}

#[test]
fn reserve_only_for_a_changed_draft_or_new_deeds() {
    let cfg = AgentConfig {
        gate_budget: 1,
        ..AgentConfig::default()
    };
    let mut r = GateRunner::new(cfg, standard());
    let mut t = facts(&[]);
    t.writes.attempted = 0;
    assert!(matches!(
        r.judge("Updated main.js.", &t),
        Decision::Push { gate: "claim", .. }
    ));
    // Same words, but a write was attempted since: not a repeat, reserve allowed.
    t.writes.attempted = 1;
    assert!(matches!(
        r.judge("Updated main.js.", &t),
        Decision::Push { gate: "claim", .. }
    ));
    assert!(matches!(
        r.judge("Updated main.js.", &t),
        Decision::EndRepeat { .. }
    ));
}

#[test]
fn a_verbatim_repeat_after_a_claim_push_gets_the_firmer_push_first() {
    let mut r = GateRunner::new(AgentConfig::default(), standard());
    let t = facts(&["lib/a.js"]);
    let d = "Created lib/a.js.\nUpdated template.js.";
    let Decision::Push { text: first, .. } = r.judge(d, &t) else {
        panic!()
    };
    assert!(!first.contains("Second correction"), "{first}");
    // Word for word again: the escalated wording, in the envelope, from the shared
    // budget (not the reserve).
    let Decision::Push { gate, text } = r.judge(d, &t) else {
        panic!("a verbatim repeat must get one firmer push first")
    };
    assert_eq!(gate, "claim");
    assert!(text.starts_with(wording::ENVELOPE), "{text}");
    assert!(text.ends_with(wording::SILENCE_TRAILER), "{text}");
    assert!(text.contains("Second correction"), "{text}");
    assert_eq!((r.used, r.reserve_used), (2, 0));
    // And only then the end, with the false claim named for the user.
    let Decision::EndRepeat { unresolved } = r.judge(d, &t) else {
        panic!()
    };
    assert!(unresolved[0].contains("`template.js`"), "{unresolved:?}");
    // A true answer after the pushes is sent as it is.
    assert_eq!(r.judge("Created lib/a.js.", &t), Decision::Send);
}

#[test]
fn no_firmer_push_beyond_the_shared_budget() {
    let cfg = AgentConfig {
        gate_budget: 1,
        ..AgentConfig::default()
    };
    let mut r = GateRunner::new(cfg, standard());
    let t = facts(&[]);
    assert!(matches!(
        r.judge("Updated main.js.", &t),
        Decision::Push { gate: "claim", .. }
    ));
    let Decision::EndRepeat { unresolved } = r.judge("Updated main.js.", &t) else {
        panic!("the shared budget is spent: the repeat ends the turn")
    };
    assert!(unresolved[0].contains("`main.js`"), "{unresolved:?}");
    assert_eq!(r.pushes(), 1);
}

#[test]
fn a_gate_without_an_escalated_wording_ends_on_a_repeat() {
    let mut r = GateRunner::new(AgentConfig::default(), standard());
    let mut t = facts(&["main.js"]);
    t.outstanding.push("main.js:3:8 member: m".into());
    assert!(matches!(
        r.judge("Done.", &t),
        Decision::Push { gate: "verify", .. }
    ));
    let Decision::EndRepeat { unresolved } = r.judge("Done.", &t) else {
        panic!()
    };
    assert_eq!(unresolved.len(), 1);
    assert!(unresolved[0].contains("1 finding(s)"), "{unresolved:?}");
}

#[test]
fn a_dotted_name_of_code_is_not_a_file() {
    let names = FileNames {
        paths: vec!["main.js".into(), "data/prices.json".into()],
        extensions: vec!["js".into(), "json".into()],
        code: vec!["layout".into(), "t".into(), "BlockStyle".into()],
    };
    let files =
        |a: &str| -> Vec<String> { claims(a, &names).into_iter().flat_map(|(_, f)| f).collect() };
    assert_eq!(
        files("Added a second `layout.text` call to main.js."),
        vec!["main.js"]
    );
    assert_eq!(
        files("Set t.width and BlockStyle.align."),
        Vec::<String>::new()
    );
    // A file named for the first time with a script extension is still a file, and so
    // is an existing data file.
    assert_eq!(files("Updated lib/invoice.js."), vec!["lib/invoice.js"]);
    assert_eq!(files("Updated prices.json."), vec!["prices.json"]);
    // An extension the project has no file of, on an unknown head: not a file.
    assert_eq!(files("Updated totals.sum."), Vec::<String>::new());
}

#[test]
fn the_reserve_is_kept_for_the_draft_after_the_shared_budget() {
    let mut r = GateRunner::new(AgentConfig::default(), standard());
    let t = facts(&[]);
    let drafts = [
        "Updated template.js.",
        "I updated template.js to load main.js.",
        "Updated template.js and main.js.",
        "Updated lib/invoice.js with the totals.",
    ];
    for d in drafts {
        assert!(
            matches!(r.judge(d, &t), Decision::Push { gate: "claim", .. }),
            "{d}"
        );
    }
    assert_eq!((r.used, r.reserve_used), (3, 1));
}

#[test]
fn a_denial_in_the_passive_is_not_a_claim() {
    let none = FileNames::default();
    assert!(claims("No file was written: the totals are missing.", &none).is_empty());
    assert!(claims("main.js was not changed.", &none).is_empty());
    assert_eq!(claims("main.js was changed.", &none).len(), 1);
}

#[test]
fn a_questions_false_claim_is_not_told_to_make_the_change() {
    // A question may not write: the push asks for the truth, never for the edit.
    let mut t = facts(&[]);
    t.asks_change = false;
    let draft = "Updated main.js to close the table.";
    let first = Claim.gate(draft, &t).unwrap();
    assert!(first.contains("this request is a question"), "{first}");
    assert!(!first.contains("edit_file"), "{first}");
    let second = Claim.escalated(draft, &t).unwrap();
    assert!(second.starts_with("Second correction"), "{second}");
    assert!(!second.contains("Make the change now"), "{second}");
    assert!(Claim
        .gate("I would change main.js to close the table.", &t)
        .is_none());
}
