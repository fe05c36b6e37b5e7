//! The Python and JavaScript methods of the functions of `ajax.php`,
//! written from the catalogue: `python/erpdata/_functions.py`,
//! `js/src/functions.js` and `js/src/functions.d.ts`.
//!
//! This test renders them and fails when a file differs from what the
//! catalogue says, naming the file; `make generate` (this test with
//! `ERPDATA_GENERATE=1`) writes them. So adding a function of `ajax.php`
//! to the catalogue gives every binding its method, with its signature,
//! declared types and docs, and CI refuses a stale facade.

use erpdata::catalogue::{AnswerKind, Operation, Param, ParamKind, OPERATIONS};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

const HEADER: [&str; 3] = [
    "Generated from the core's catalogue (crates/erpdata/src/catalogue/entries.rs)",
    "by crates/erpdata/tests/facades.rs: do not edit. After changing the",
    "catalogue, run `make generate`; `make test` fails while this file is stale.",
];

/// Each language's docs wrap here (the line, indentation included).
const WIDTH: usize = 78;

#[test]
fn the_generated_facades_are_up_to_date() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let files: [(&str, String); 3] = [
        ("python/erpdata/_functions.py", python()),
        ("js/src/functions.js", javascript()),
        ("js/src/functions.d.ts", declarations()),
    ];
    let write = std::env::var_os("ERPDATA_GENERATE").is_some();
    let mut stale = Vec::new();
    for (path, text) in &files {
        let file: PathBuf = root.join(path);
        let current = std::fs::read_to_string(&file).unwrap_or_default();
        if current == *text {
            continue;
        }
        if write {
            std::fs::write(&file, text).unwrap_or_else(|e| panic!("cannot write {path}: {e}"));
            eprintln!("wrote {path}");
        } else {
            stale.push(*path);
        }
    }
    assert!(
        stale.is_empty(),
        "{} differ from the catalogue: run `make generate` and commit the result",
        stale.join(", ")
    );
}

/// The named functions of `ajax.php` (the generic `ajax` call and the
/// other operations have methods written by hand).
fn functions() -> impl Iterator<Item = &'static Operation> {
    OPERATIONS
        .iter()
        .filter(|op| op.answer == AnswerKind::Function && op.func.is_some())
}

/// The function's own parameters (positional in every language); the
/// options every function takes (`send_token`, `method`) follow them.
fn own_params(op: &Operation) -> Vec<&'static Param> {
    let (own, options): (Vec<&Param>, Vec<&Param>) = op.params.iter().partition(|p| p.required);
    let names: Vec<&str> = options.iter().map(|p| p.name).collect();
    assert_eq!(
        names,
        ["send_token", "method"],
        "{}: the facades know a function's options only as send_token and method",
        op.name
    );
    own
}

// -- Python --------------------------------------------------------------------

fn python_type(p: &Param) -> &'static str {
    match p.kind {
        ParamKind::AccountId | ParamKind::Id => "Id",
        ParamKind::Date => "datetime.date | str",
        ParamKind::Text | ParamKind::Name => "str",
        other => panic!("{}: no Python type for a {other:?} parameter", p.name),
    }
}

fn python_takes(p: &Param) -> Option<&'static str> {
    (p.kind == ParamKind::Date).then_some("Or a ``datetime.date``.")
}

/// Markdown's `code` as reStructuredText's ``code``.
fn rst(text: &str) -> String {
    text.replace('`', "``")
}

fn python() -> String {
    let mut out = String::new();
    for line in HEADER {
        writeln!(out, "# {line}").unwrap();
    }
    out.push_str(
        r#""""The functions of ``ajax.php`` as methods of ``Client`` and
``AsyncClient``: each one's signature, docstring and the work it asks for
(see :mod:`erpdata._work`), from the core's catalogue."""

from __future__ import annotations

import datetime
from typing import Any

from ._base import ClientBase
from ._models import AjaxAnswer, Id
from ._timeouts import TimeoutTypes
from ._typing import SchemaOverrides
from ._work import Work, awaiting, blocking

__all__ = ["AwaitingFunctions", "BlockingFunctions", "Functions"]


class Functions:
    """The functions' specifications (static: ``self`` is the client)."""
"#,
    );
    for op in functions() {
        let own = own_params(op);
        out.push_str("\n    @staticmethod\n");
        writeln!(out, "    def {}(", op.name).unwrap();
        out.push_str("        self: ClientBase[Any, Any, Any],\n");
        for p in &own {
            writeln!(out, "        {}: {},", p.name, python_type(p)).unwrap();
        }
        out.push_str(
            "        *,\n        send_token: bool | None = None,\n        \
             method: str | None = None,\n        timeout: TimeoutTypes = None,\n        \
             schema_overrides: SchemaOverrides = None,\n        infer_strings: bool = True,\n    \
             ) -> Work[AjaxAnswer]:\n",
        );
        out.push_str(&python_doc(op, &own));
        out.push_str("        args = {\n");
        for name in own.iter().map(|p| p.name).chain(["send_token", "method"]) {
            writeln!(out, "            \"{name}\": {name},").unwrap();
        }
        out.push_str("        }\n");
        writeln!(
            out,
            "        return self._one(\"{}\", args, timeout, schema_overrides, infer_strings)",
            op.name
        )
        .unwrap();
    }
    out.push_str("\n\nclass BlockingFunctions:\n    \"\"\"``Client``'s methods.\"\"\"\n\n");
    for op in functions() {
        writeln!(out, "    {0} = blocking(Functions.{0})", op.name).unwrap();
    }
    out.push_str("\n\nclass AwaitingFunctions:\n    \"\"\"``AsyncClient``'s methods.\"\"\"\n\n");
    for op in functions() {
        writeln!(out, "    {0} = awaiting(Functions.{0})", op.name).unwrap();
    }
    out
}

fn python_doc(op: &Operation, own: &[&Param]) -> String {
    let indent = "        ";
    let mut lines = wrap(&format!("\"\"\"{}", rst(op.doc)), indent, indent);
    lines.push(String::new());
    lines.extend(wrap(
        "Like every function of ``ajax.php``: ``send_token`` sends the access token \
         with this call (default: the client's ``ajax_token``), by POST unless \
         ``method=\"GET\"``; the answer is an :class:`AjaxAnswer` (rows, one object or \
         one value, typed as a table's values are); ``timeout``, ``schema_overrides`` \
         and ``infer_strings`` as for :meth:`table`. Every argument is checked before \
         anything is sent.",
        indent,
        indent,
    ));
    if !own.is_empty() {
        lines.push(String::new());
        lines.push(format!("{indent}Args:"));
        for p in own {
            let mut text = format!("{}: {}", p.name, rst(p.doc));
            if let Some(takes) = python_takes(p) {
                text = format!("{text} {takes}");
            }
            lines.extend(wrap(
                &text,
                &format!("{indent}    "),
                &format!("{indent}        "),
            ));
        }
    }
    let last = lines.len() - 1;
    lines[last].push_str("\"\"\"");
    lines.join("\n") + "\n"
}

// -- JavaScript ----------------------------------------------------------------

fn js_type(p: &Param) -> &'static str {
    match p.kind {
        ParamKind::AccountId | ParamKind::Id => "Id",
        ParamKind::Date => "DateArg",
        ParamKind::Text | ParamKind::Name => "string",
        other => panic!("{}: no TypeScript type for a {other:?} parameter", p.name),
    }
}

fn js_takes(p: &Param) -> Option<&'static str> {
    (p.kind == ParamKind::Date).then_some("Or a Date at midnight UTC.")
}

/// An operation's JSDoc, indented by `indent`.
fn js_doc(op: &Operation, own: &[&Param], indent: &str) -> String {
    let star = format!("{indent} * ");
    let mut lines = vec![format!("{indent}/**")];
    lines.extend(wrap(op.doc, &star, &star));
    lines.push(format!("{indent} *"));
    lines.extend(wrap(
        "Like every function of ajax.php: `sendToken` sends the access token with \
         this call (default: the client's `ajaxToken`), by POST unless `method: \"GET\"`; \
         the answer is an AjaxAnswer (rows, one object or one value). Every argument \
         is checked before anything is sent.",
        &star,
        &star,
    ));
    if !own.is_empty() {
        lines.push(format!("{indent} *"));
    }
    for p in own {
        let mut text = format!("@param {} {}", p.js_name, p.doc);
        if let Some(takes) = js_takes(p) {
            text = format!("{text} {takes}");
        }
        lines.extend(wrap(&text, &star, &format!("{star}  ")));
    }
    lines.push(format!("{indent} */"));
    lines
        .iter()
        .map(|l| l.trim_end().to_string() + "\n")
        .collect()
}

fn javascript() -> String {
    let mut out = String::new();
    for line in HEADER {
        writeln!(out, "// {line}").unwrap();
    }
    out.push_str(
        "\n/** The method through which a client starts an operation of the catalogue. */\n\
         export const invoke = Symbol(\"erpdata.invoke\");\n\n\
         /** The functions of ajax.php as methods; `ErpClient` extends this class. */\n\
         export class AjaxFunctions {\n",
    );
    let mut first = true;
    for op in functions() {
        let own = own_params(op);
        if !first {
            out.push('\n');
        }
        first = false;
        out.push_str(&js_doc(op, &own, "  "));
        let names: Vec<&str> = own.iter().map(|p| p.js_name).collect();
        let mut params = names.clone();
        params.push("options");
        let args = if names.is_empty() {
            "{}".to_string()
        } else {
            format!("{{ {} }}", names.join(", "))
        };
        writeln!(out, "  {}({}) {{", op.js_name, params.join(", ")).unwrap();
        writeln!(
            out,
            "    return this[invoke](\"{}\", {args}, options);",
            op.js_name
        )
        .unwrap();
        out.push_str("  }\n");
    }
    out.push_str("}\n");
    out
}

fn declarations() -> String {
    let mut out = String::new();
    for line in HEADER {
        writeln!(out, "// {line}").unwrap();
    }
    out.push_str(
        "\nimport type { AjaxAnswer, DateArg, FunctionOptions, Id } from \"./index.js\";\n\n\
         /** The functions of ajax.php, as methods of `ErpClient`. */\n\
         export interface AjaxFunctions {\n",
    );
    let mut first = true;
    for op in functions() {
        let own = own_params(op);
        if !first {
            out.push('\n');
        }
        first = false;
        out.push_str(&js_doc(op, &own, "  "));
        let mut params: Vec<String> = own
            .iter()
            .map(|p| format!("{}: {}", p.js_name, js_type(p)))
            .collect();
        params.push("options?: FunctionOptions".to_string());
        let one_line = format!(
            "  {}({}): Promise<AjaxAnswer>;",
            op.js_name,
            params.join(", ")
        );
        if one_line.len() <= 100 {
            writeln!(out, "{one_line}").unwrap();
        } else {
            writeln!(out, "  {}(", op.js_name).unwrap();
            for p in &params {
                writeln!(out, "    {p},").unwrap();
            }
            out.push_str("  ): Promise<AjaxAnswer>;\n");
        }
    }
    out.push_str("}\n");
    out
}

// -- text ------------------------------------------------------------------------

/// `text` in lines of at most `WIDTH` characters, the first starting with
/// `first`, the others with `rest` (a word longer than a line stays whole).
fn wrap(text: &str, first: &str, rest: &str) -> Vec<String> {
    let mut lines = Vec::new();
    let mut line = first.to_string();
    let mut empty = true;
    for word in text.split_whitespace() {
        if !empty && line.chars().count() + 1 + word.chars().count() > WIDTH {
            lines.push(std::mem::replace(&mut line, rest.to_string()));
            empty = true;
        }
        if !empty {
            line.push(' ');
        }
        line.push_str(word);
        empty = false;
    }
    lines.push(line);
    lines
}
