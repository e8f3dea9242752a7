//! How the command line words what it prints: counts with their nouns in
//! the right number, and summary values as a reader expects them rather
//! than as JSON.

use serde_json::Value;

/// `n` and the noun, singular for one: `count(1, "self loop")` is
/// "1 self loop", `count(2, "vertex")` "2 vertices".
pub(crate) fn count(n: u64, one: &str) -> String {
    if n == 1 {
        format!("1 {one}")
    } else {
        format!("{n} {}", plural(one))
    }
}

/// The plural of one of the nouns the command line counts.
fn plural(one: &str) -> String {
    if let Some(head) = one.strip_suffix("vertex") {
        return format!("{head}vertices");
    }
    if one.ends_with("ss") {
        return format!("{one}es");
    }
    // entry -> entries (but day -> days).
    if let Some(head) = one.strip_suffix('y') {
        if !head.ends_with(['a', 'e', 'i', 'o', 'u']) {
            return format!("{head}ies");
        }
    }
    format!("{one}s")
}

/// A number as a person reads it: integers whole, other values to four
/// significant digits (all of the integer part) with trailing zeros cut,
/// and very large or small ones in scientific notation (`8.55e-7`).
pub(crate) fn number(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return if x.is_nan() {
            "nan".into()
        } else if x.is_infinite() {
            if x > 0.0 { "inf" } else { "-inf" }.into()
        } else {
            "0".into()
        };
    }
    let a = x.abs();
    if (1e-3..1e9).contains(&a) {
        let digits = (3 - a.log10().floor() as i32).max(0) as usize;
        let s = format!("{x:.digits$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    } else {
        let s = format!("{x:.2e}");
        // 8.50e-7 -> 8.5e-7
        match s.split_once('e') {
            Some((m, e)) if m.contains('.') => {
                format!("{}e{e}", m.trim_end_matches('0').trim_end_matches('.'))
            }
            _ => s,
        }
    }
}

/// A summary or config value in words: strings without quotes, numbers
/// by [`number`], a list in brackets with its items separated by spaces,
/// an `[id, value]` pair as `id (value)`.
pub(crate) fn value(v: &Value) -> String {
    match v {
        Value::Null => "none".into(),
        Value::Bool(b) => if *b { "yes" } else { "no" }.into(),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => u.to_string(),
            (None, Some(i)) => i.to_string(),
            _ => number(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => s.clone(),
        Value::Array(items) => {
            let parts: Vec<String> = items
                .iter()
                .map(|item| match item.as_array().map(Vec::as_slice) {
                    Some([id, x]) => format!("{} ({})", value(id), value(x)),
                    _ => value(item),
                })
                .collect();
            format!("[{}]", parts.join(" "))
        }
        Value::Object(o) => o
            .iter()
            .map(|(k, v)| format!("{k} {}", value(v)))
            .collect::<Vec<_>>()
            .join(", "),
    }
}

/// An object's entries as `key value, key value`; a null entry (a
/// setting that does not apply) is left out.
pub(crate) fn entries(v: &Value) -> String {
    v.as_object()
        .map(|o| {
            o.iter()
                .filter(|(_, v)| !v.is_null())
                .map(|(k, v)| format!("{k} {}", value(v)))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counts_agree_with_their_nouns() {
        assert_eq!(count(1, "self loop"), "1 self loop");
        assert_eq!(count(0, "self loop"), "0 self loops");
        assert_eq!(count(1, "vertex"), "1 vertex");
        assert_eq!(count(3, "vertex"), "3 vertices");
        assert_eq!(count(2, "pass"), "2 passes");
        assert_eq!(count(7, "level"), "7 levels");
        assert_eq!(count(2, "entry"), "2 entries");
        assert_eq!(count(1, "entry"), "1 entry");
    }

    #[test]
    fn numbers_read_as_numbers() {
        assert_eq!(number(1.000000000000876), "1");
        assert_eq!(number(0.00513498330519495), "0.005135");
        assert_eq!(number(8.554513968052501e-7), "8.55e-7");
        assert_eq!(number(0.85), "0.85");
        assert_eq!(number(1e-6), "1e-6");
        assert_eq!(number(123456.789), "123457");
        assert_eq!(number(-2.5), "-2.5");
        assert_eq!(number(0.0), "0");
        assert_eq!(number(f64::INFINITY), "inf");
    }

    #[test]
    fn summaries_read_without_json_punctuation() {
        let s = json!({
            "contributions": "f32",
            "converged": true,
            "top": [[35370, 0.00513498330519495], [54661, 0.002238903388128776]],
            "largest": [46748, 3, 2],
            "delta": null,
        });
        let text = entries(&s);
        assert_eq!(
            text,
            "contributions f32, converged yes, largest [46748 3 2], top [35370 (0.005135) 54661 (0.002239)]"
        );
        assert!(!text.contains('"') && !text.contains("null"));
    }
}
