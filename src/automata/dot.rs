//! Graphviz DOT export of pattern automata.
//!
//! Each pattern is drawn from `Dfa::graph`: only useful states (the dead state and
//! states that cannot reach acceptance are trimmed), accepting states double-circled,
//! parallel symbol classes merged into one edge labelled in the rules syntax. The whole
//! rule system is one digraph with a cluster per pattern. Written by hand rather than
//! with `petgraph::dot`, which has no clusters.

use super::rule_system::RuleSystem;
use crate::syntax::PatternId;
use petgraph::visit::EdgeRef;
use std::fmt::Write;

/// The DOT graph of one pattern.
pub fn pattern_dot(system: &RuleSystem, pattern: PatternId) -> String {
    let mut out = String::from("digraph {\n  rankdir=LR;\n  node [shape=circle];\n");
    write_pattern(&mut out, system, pattern, "", "  ");
    out.push_str("}\n");
    out
}

/// The DOT graph of every pattern, one cluster each.
pub fn system_dot(system: &RuleSystem) -> String {
    let mut out = String::from("digraph rules {\n  rankdir=LR;\n  node [shape=circle];\n");
    for i in 0..system.patterns.len() {
        let compiled = &system.patterns[i];
        let _ = writeln!(out, "  subgraph cluster_{i} {{");
        let _ = writeln!(
            out,
            "    label=\"{} (line {})\";",
            escape(&compiled.name),
            compiled.line
        );
        write_pattern(
            &mut out,
            system,
            PatternId(i as u32),
            &format!("p{i}_"),
            "    ",
        );
        out.push_str("  }\n");
    }
    out.push_str("}\n");
    out
}

fn write_pattern(
    out: &mut String,
    system: &RuleSystem,
    pattern: PatternId,
    prefix: &str,
    indent: &str,
) {
    let Some(dfa) = &system.patterns[pattern.index()].dfa else {
        let _ = writeln!(
            out,
            "{indent}{prefix}too_large [shape=box, label=\"automaton too large\"];"
        );
        return;
    };
    let graph = dfa.graph();
    let _ = writeln!(out, "{indent}{prefix}start [shape=point];");
    if graph.node_count() == 0 {
        let _ = writeln!(
            out,
            "{indent}{prefix}empty [shape=box, label=\"matches nothing\"];"
        );
        let _ = writeln!(out, "{indent}{prefix}start -> {prefix}empty;");
        return;
    }
    for node in graph.node_indices() {
        let state = graph[node];
        let shape = if dfa.is_accepting(state) {
            ", shape=doublecircle"
        } else {
            ""
        };
        let _ = writeln!(
            out,
            "{indent}{prefix}s{} [label=\"{}\"{shape}];",
            state.0, state.0
        );
    }
    let _ = writeln!(out, "{indent}{prefix}start -> {prefix}s{};", dfa.start().0);
    for edge in graph.edge_references() {
        let (from, to) = (graph[edge.source()], graph[edge.target()]);
        let label = dfa.describe_classes(edge.weight(), &system.alphabet);
        let _ = writeln!(
            out,
            "{indent}{prefix}s{} -> {prefix}s{} [label=\"{}\"];",
            from.0,
            to.0,
            escape(&label)
        );
    }
}

fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace('"', "\\\"")
}
