//! What a DDL statement is about (Python `redo_lib/dictionary/ddl.py` `ddl_subject` and the
//! tokenizer it reads with): the verb, the object type and the object's owner and name, from the
//! first words. Never fails. The rest of `ddl.py` (applying a DDL to the dictionary) is not ported:
//! the emitter asks a [`super::DdlHandler`] for it.

use super::emit::DdlSubject;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Quoted,
    String,
    Word,
    Number,
    Op,
}

/// Python's `str.isspace` (and regex `\s`): Unicode White_Space plus the separators 0x1C-0x1F.
fn is_space(c: char) -> bool {
    c.is_whitespace() || ('\x1c'..='\x1f').contains(&c)
}

/// Where the quoted token opening at `i` closes (the longest match of `q(?:[^q]|qq)*q`).
fn closing(chars: &[char], i: usize, q: char) -> Option<usize> {
    let mut last = None;
    let mut j = i + 1;
    while j < chars.len() {
        if chars[j] != q {
            j += 1;
            continue;
        }
        let run = chars[j..].iter().take_while(|&&x| x == q).count();
        if run % 2 == 1 {
            return Some(j + run - 1);
        }
        last = Some(j + run - 2);
        j += run;
    }
    last
}

/// `_tokenize`: words upper-cased, quoted identifiers without their quotes; blanks and comments
/// dropped. (Python's `\d` takes any Unicode decimal digit into a number; here only ASCII digits
/// are, other digits are single operator tokens: neither is a word, so the subject is the same.)
fn tokenize(text: &str) -> Vec<(Kind, String)> {
    let text = text.trim_matches(is_space).trim_end_matches([';', '/']).trim_matches(is_space);
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let rest = &chars[i..];
        if is_space(c) {
            while i < chars.len() && is_space(chars[i]) {
                i += 1;
            }
        } else if rest.starts_with(&['-', '-']) {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if rest.starts_with(&['/', '*']) && rest[2..].windows(2).any(|w| w == ['*', '/']) {
            let end = rest[2..].windows(2).position(|w| w == ['*', '/']).map_or(rest.len(), |p| p + 4);
            i += end;
        } else if c == '"' || c == '\'' {
            // a quoted identifier or a string, doubled quotes inside: the regex's greedy match is
            // the longest, so an even run of quotes is taken whole (a close stays possible inside
            // it), an odd one closes; unterminated, the quote is an operator
            match closing(&chars, i, c) {
                Some(k) => {
                    let body: String = chars[i + 1..k].iter().collect();
                    if c == '"' {
                        out.push((Kind::Quoted, body.replace("\"\"", "\"")));
                    } else {
                        out.push((Kind::String, chars[i..=k].iter().collect()));
                    }
                    i = k + 1;
                }
                None => {
                    out.push((Kind::Op, c.to_string()));
                    i += 1;
                }
            }
        } else if c.is_ascii_alphabetic() {
            let mut j = i + 1;
            while j < chars.len() && (chars[j].is_ascii_alphanumeric() || matches!(chars[j], '_' | '$' | '#'))
            {
                j += 1;
            }
            out.push((Kind::Word, chars[i..j].iter().collect::<String>().to_ascii_uppercase()));
            i = j;
        } else if c.is_ascii_digit() {
            let mut j = i + 1;
            while j < chars.len() && chars[j].is_ascii_digit() {
                j += 1;
            }
            if chars.get(j) == Some(&'.') {
                j += 1;
                while j < chars.len() && chars[j].is_ascii_digit() {
                    j += 1;
                }
            }
            out.push((Kind::Number, chars[i..j].iter().collect()));
            i = j;
        } else {
            out.push((Kind::Op, c.to_string()));
            i += 1;
        }
    }
    out
}

const QUALIFIERS: [&str; 17] = [
    "OR",
    "REPLACE",
    "GLOBAL",
    "PRIVATE",
    "TEMPORARY",
    "UNIQUE",
    "BITMAP",
    "PUBLIC",
    "EDITIONABLE",
    "NONEDITIONABLE",
    "FORCE",
    "NO",
    "SHARDED",
    "DUPLICATED",
    "IMMUTABLE",
    "BLOCKCHAIN",
    "MULTIVALUE",
];
const TWO_WORD_TYPES: [(&str, &str); 4] =
    [("MATERIALIZED", "VIEW"), ("PACKAGE", "BODY"), ("TYPE", "BODY"), ("DATABASE", "LINK")];
const VERBS: [&str; 7] = ["CREATE", "ALTER", "DROP", "TRUNCATE", "RENAME", "PURGE", "FLASHBACK"];

/// `ddl_subject(text, schema)`: `schema` (the 24.1's) owns an unqualified name. `RENAME a TO b` is
/// about `a`, of type TABLE.
pub fn ddl_subject(text: &str, schema: &str) -> DdlSubject {
    let tokens = tokenize(text);
    let words: Vec<Option<&str>> =
        tokens.iter().map(|(k, t)| (*k == Kind::Word).then_some(t.as_str())).collect();
    let subject = |operation: &str, object_type: &str, owner: &str, name: &str| DdlSubject {
        operation: operation.into(),
        object_type: object_type.into(),
        owner: owner.into(),
        name: name.into(),
    };
    let Some(Some(operation)) = words.first().copied() else {
        return subject("", "", schema, "");
    };
    if !VERBS.contains(&operation) {
        return subject(operation, "", schema, ""); // GRANT, COMMENT, ...
    }
    let mut i = 1;
    let object_type: String = if operation == "RENAME" {
        "TABLE".into()
    } else {
        while i < words.len() && words[i].is_some_and(|w| QUALIFIERS.contains(&w)) {
            i += 1;
        }
        match (words.get(i).copied().flatten(), words.get(i + 1).copied().flatten()) {
            (Some(a), Some(b)) if TWO_WORD_TYPES.contains(&(a, b)) => {
                i += 2;
                format!("{a} {b}")
            }
            (Some(a), _) => {
                i += 1;
                a.into()
            }
            (None, _) => return subject(operation, "", schema, ""),
        }
    };
    // 23ai's `CREATE TABLE IF NOT EXISTS t`, `DROP TABLE IF EXISTS t`: the name comes after
    let word = |j: usize| words.get(j).copied().flatten();
    if word(i) == Some("IF") {
        match (word(i + 1), word(i + 2)) {
            (Some("NOT"), Some("EXISTS")) => i += 3,
            (Some("EXISTS"), _) => i += 2,
            _ => {}
        }
    }
    // `_Stream.qualified`: a name, or owner "." name (names are words or quoted identifiers)
    let ident =
        |j: usize| tokens.get(j).filter(|(k, _)| matches!(k, Kind::Word | Kind::Quoted)).map(|(_, t)| t);
    let Some(first) = ident(i) else {
        return subject(operation, &object_type, schema, "");
    };
    let dot = tokens.get(i + 1).is_some_and(|(k, t)| matches!(k, Kind::Word | Kind::Op) && t == ".");
    if !dot {
        return subject(operation, &object_type, schema, first);
    }
    match ident(i + 2) {
        Some(name) => subject(operation, &object_type, first, name),
        None => subject(operation, &object_type, schema, ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects() {
        let s = ddl_subject("create global temporary table \"Hr\".t1 (a number);", "APP");
        assert_eq!(
            (s.operation.as_str(), s.object_type.as_str(), s.owner.as_str(), s.name.as_str()),
            ("CREATE", "TABLE", "Hr", "T1")
        );
        let s = ddl_subject("RENAME a TO b", "APP");
        assert_eq!((s.object_type.as_str(), s.owner.as_str(), s.name.as_str()), ("TABLE", "APP", "A"));
        let s = ddl_subject("/* x */ DROP MATERIALIZED VIEW mv", "S");
        assert_eq!(
            (s.operation.as_str(), s.object_type.as_str(), s.name.as_str()),
            ("DROP", "MATERIALIZED VIEW", "MV")
        );
        assert_eq!(ddl_subject("grant select on t to u", "S").operation, "GRANT");
        let s = ddl_subject("CREATE TABLE IF NOT EXISTS app.newt (k number)", "S");
        assert_eq!((s.object_type.as_str(), s.owner.as_str(), s.name.as_str()), ("TABLE", "APP", "NEWT"));
        let s = ddl_subject("drop table if exists t purge", "S");
        assert_eq!((s.operation.as_str(), s.owner.as_str(), s.name.as_str()), ("DROP", "S", "T"));
        assert_eq!(ddl_subject("", "S").owner, "S");
    }
}
