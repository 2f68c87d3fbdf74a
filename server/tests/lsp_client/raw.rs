//! Raw input for the protocol tests: frames written by hand (their bodies need not be
//! JSON), and the errors the server sent without an id (to what was not a message).

use super::Client;
use serde_json::Value;

impl Client {
    /// Writes `body` as is, in a frame of its own.
    pub fn write_frame(&mut self, body: &[u8]) {
        let mut frame = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
        frame.extend_from_slice(body);
        self.write_raw(&frame);
    }

    /// The error responses with id null received so far, taken out of the backlog.
    pub fn take_errors_without_id(&mut self) -> Vec<Value> {
        // Moves what arrived into the backlog (answering the server's requests).
        self.received("");
        let (errors, rest) = std::mem::take(&mut self.backlog)
            .into_iter()
            .partition(|m: &Value| m["id"].is_null() && m.get("error").is_some());
        self.backlog = rest;
        errors
    }
}
