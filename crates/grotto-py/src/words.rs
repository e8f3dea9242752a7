//! grotto's messages in Python's words: the core names its options as the
//! command line does (`--source 7`, `convert with --undirected`), and a
//! Python user passes them as keyword arguments (`source=7`,
//! `undirected=True`). Every error raised into Python goes through
//! [`python_words`]. (Checked by tests/python/test_package.py, as this
//! crate has no Rust test binary.)

/// Command-line switches that are `name=True` in Python.
const SWITCHES: &[&str] = &[
    "undirected",
    "reverse",
    "weighted",
    "keep-self-loops",
    "keep-duplicates",
    "allow-empty",
    "per-vertex",
    "ignore-weights",
    "normalized",
    "endpoints",
    "verify",
];

/// Options whose values are words (`--ids string` is `ids="string"`).
const WORD_VALUED: &[&str] = &[
    "ids",
    "format",
    "engine",
    "io",
    "merge",
    "order",
    "mode",
    "compress",
    "semantics",
    "contributions",
];

/// Options with another name in Python.
const RENAMED: &[(&str, &str)] = &[("sources", "k")];

/// Whole phrases said otherwise in Python, replaced before the options.
const PHRASES: &[(&str, &str)] = &[
    (
        "`grotto convert INPUT GRAPH.grotto`",
        "`grotto.convert(source, \"graph.grotto\")`",
    ),
    ("--columns SRC,DST[,WEIGHT]", "columns=(src, dst[, weight])"),
    ("--columns SRC,DST", "columns=(src, dst)"),
];

/// `msg` with each command-line option written as the keyword argument
/// it is in Python.
pub(crate) fn python_words(msg: &str) -> String {
    let mut text = msg.to_string();
    for (cli, py) in PHRASES {
        text = text.replace(cli, py);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(at) = rest.find("--") {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let after = &from[2..];
        let name_len = after
            .find(|c: char| !(c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'))
            .unwrap_or(after.len());
        let name = &after[..name_len];
        let starts_word = before
            .chars()
            .next_back()
            .is_none_or(|c| !(c.is_alphanumeric() || c == '-' || c == '_'));
        if !starts_word || !name.starts_with(|c: char| c.is_ascii_lowercase()) {
            out.push_str("--");
            rest = after;
            continue;
        }
        let py = RENAMED
            .iter()
            .find(|(cli, _)| *cli == name)
            .map_or_else(|| name.replace('-', "_"), |(_, py)| py.to_string());
        rest = &after[name_len..];
        if SWITCHES.contains(&name) {
            out.push_str(&format!("{py}=True"));
            continue;
        }
        match value(rest, WORD_VALUED.contains(&name)) {
            Some((shown, used)) => {
                out.push_str(&format!("{py}={shown}"));
                rest = &rest[used..];
            }
            None => out.push_str(&py),
        }
    }
    out.push_str(rest);
    out
}

/// The value after an option (`rest` starts right after its name), as
/// Python shows it, and the bytes it took; `None` when what follows is
/// not a value.
fn value(rest: &str, words: bool) -> Option<(String, usize)> {
    let body = rest.strip_prefix(' ')?;
    if let Some(quoted) = body.strip_prefix('"') {
        // A Rust `{:?}` string: up to the first unescaped quote.
        let mut escaped = false;
        for (i, c) in quoted.char_indices() {
            match c {
                '\\' if !escaped => escaped = true,
                '"' if !escaped => return Some((body[..i + 2].to_string(), i + 3)),
                _ => escaped = false,
            }
        }
        return None;
    }
    let end = body
        .find(|c: char| c.is_whitespace() || matches!(c, ':' | ',' | ';' | ')' | '('))
        .unwrap_or(body.len());
    let token = body[..end].trim_end_matches('.');
    if token.is_empty() {
        return None;
    }
    let first = token.chars().next()?;
    let numeric = first.is_ascii_digit()
        || (first == '-' && token[1..].starts_with(|c: char| c.is_ascii_digit()))
        || token == "inf";
    let placeholder = token.chars().all(|c| c.is_ascii_uppercase() || c == '_');
    let word = words
        && token
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == '-');
    if numeric || placeholder {
        Some((token.to_string(), token.len() + 1))
    } else if word {
        Some((format!("\"{token}\""), token.len() + 1))
    } else {
        None
    }
}
