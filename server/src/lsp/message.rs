//! What a frame's body holds: a JSON-RPC message to pass on to tower-lsp-server, or
//! the error to answer instead. The body is parsed with the transport's own types, so
//! whatever is passed on, the transport parses too (a body it cannot parse would end
//! its input, and the server with it).
//!
//! Lone surrogate escapes (`\ud800`–`\udfff` not forming a pair: what a JSON encoder
//! writes for a string holding half a UTF-16 pair, say a text cut in the middle of an
//! emoji) are not JSON text that serde_json accepts. Each is replaced with `\ufffd`,
//! U+FFFD REPLACEMENT CHARACTER, as a UTF-16 to UTF-8 decoder does; being one UTF-16
//! unit as well, it keeps every later position on the line where the client counts
//! it, so an edit with such text still applies where the client meant it.

use serde::Deserialize;
use std::borrow::Cow;
use tower_lsp_server::jsonrpc::{Error, ErrorCode, Request, Response};

/// A message from the client, as tower-lsp-server tells them apart (its own
/// `Message` is private): a response to one of the server's requests, or a request
/// or notification.
#[derive(Deserialize)]
#[serde(untagged)]
enum Incoming {
    Response(#[expect(dead_code, reason = "parsed to be validated, not read")] Response),
    Request(Request),
}

/// What a frame's body is.
pub enum Body {
    /// A message to pass on (the body, repaired), and the request or notification it
    /// is, if it is one.
    Message(Vec<u8>, Option<Request>),
    /// Not a message: the error to answer (with id null).
    Rejected(Error),
}

/// Checks (and repairs) a frame's body.
pub fn check(body: Vec<u8>) -> Body {
    let text = match String::from_utf8(body) {
        Ok(text) => text,
        Err(e) => return Body::Rejected(error(ErrorCode::ParseError, "not UTF-8", &e)),
    };
    let text = match replace_lone_surrogates(&text) {
        Cow::Borrowed(_) => text,
        Cow::Owned(repaired) => repaired,
    };
    match serde_json::from_str::<Incoming>(&text) {
        Ok(Incoming::Request(request)) => Body::Message(text.into_bytes(), Some(request)),
        Ok(Incoming::Response(_)) => Body::Message(text.into_bytes(), None),
        Err(e) if e.is_data() => Body::Rejected(error(
            ErrorCode::InvalidRequest,
            "not a JSON-RPC message",
            &e,
        )),
        Err(e) => Body::Rejected(error(ErrorCode::ParseError, "not JSON", &e)),
    }
}

/// A JSON-RPC error with `code`, saying `what` and why.
fn error(code: ErrorCode, what: &str, why: &dyn std::fmt::Display) -> Error {
    Error {
        code,
        message: format!("costline: the message is {what}: {why}").into(),
        data: None,
    }
}

/// `json` with every `\uXXXX` escape of a lone surrogate replaced with `\ufffd`
/// (borrowed when there is none).
fn replace_lone_surrogates(json: &str) -> Cow<'_, str> {
    let bytes = json.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut i = 0;
    while let Some(off) = bytes
        .get(i..)
        .and_then(|rest| rest.iter().position(|&b| b == b'\\'))
    {
        let at = i + off;
        let Some(unit) = escaped_unit(bytes, at) else {
            // Another escape (`\\` included): skip the escaped character.
            i = at + 2;
            continue;
        };
        i = at + 6;
        let lone = match unit {
            0xD800..=0xDBFF => match escaped_unit(bytes, i) {
                Some(0xDC00..=0xDFFF) => {
                    i += 6;
                    false
                }
                _ => true,
            },
            0xDC00..=0xDFFF => true,
            _ => false,
        };
        if lone {
            out.push_str(&json[copied..at]);
            out.push_str("\\ufffd");
            copied = i;
        }
    }
    if copied == 0 {
        return Cow::Borrowed(json);
    }
    out.push_str(&json[copied..]);
    Cow::Owned(out)
}

/// The UTF-16 unit of a `\uXXXX` escape at `at`, if there is one.
fn escaped_unit(bytes: &[u8], at: usize) -> Option<u32> {
    let hex = bytes.get(at..at + 6)?.strip_prefix(b"\\u")?;
    if !hex.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    u32::from_str_radix(std::str::from_utf8(hex).ok()?, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lone_surrogates_become_replacement_characters_and_pairs_stay() {
        let cases = [
            (r#"{"t":"a\udc00b"}"#, r#"{"t":"a\ufffdb"}"#),
            (r#"{"t":"\uD800"}"#, r#"{"t":"\ufffd"}"#),
            (
                r#"{"t":"\ud800\ud800\udc00"}"#,
                r#"{"t":"\ufffd\ud800\udc00"}"#,
            ),
            (r#"{"t":"\udc00\ud800"}"#, r#"{"t":"\ufffd\ufffd"}"#),
        ];
        for (input, repaired) in cases {
            assert_eq!(replace_lone_surrogates(input), repaired);
        }
        for intact in [
            r#"{"t":"\ud83d\ude00 \u00e9 \n"}"#,
            r#"{"t":"\\udc00"}"#,
            r#"{"t":"ends with \\"}"#,
            "\\",
            r#"{"t":"\u12"}"#,
        ] {
            assert!(matches!(replace_lone_surrogates(intact), Cow::Borrowed(_)));
        }
    }

    #[test]
    fn bodies_are_messages_or_errors() {
        let code = |body: &[u8]| match check(body.to_vec()) {
            Body::Message(..) => None,
            Body::Rejected(e) => Some(e.code),
        };
        let request = br#"{"jsonrpc":"2.0","id":1,"method":"hover","params":{"t":"\udc00"}}"#;
        match check(request.to_vec()) {
            Body::Message(body, Some(r)) => {
                assert_eq!(r.method(), "hover");
                assert_eq!(r.params().unwrap()["t"], "\u{fffd}");
                assert!(String::from_utf8(body).unwrap().contains(r"\ufffd"));
            }
            _ => panic!("not a request"),
        }
        let response = br#"{"jsonrpc":"2.0","id":1,"result":null}"#;
        assert!(matches!(check(response.to_vec()), Body::Message(_, None)));
        assert_eq!(code(b"{\"jsonrpc\": oops}"), Some(ErrorCode::ParseError));
        assert_eq!(code(b"\xff\xfe"), Some(ErrorCode::ParseError));
        assert_eq!(code(b""), Some(ErrorCode::ParseError));
        assert_eq!(code(b"[1, 2]"), Some(ErrorCode::InvalidRequest));
        assert_eq!(
            code(br#"{"jsonrpc":"1.0","method":"x"}"#),
            Some(ErrorCode::InvalidRequest)
        );
    }
}
