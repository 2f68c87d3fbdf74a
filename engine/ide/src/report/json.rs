//! The JSON report written as it is streamed ([`super::stream`]): byte for byte what
//! `serde_json::to_string_pretty` makes of the whole [`super::Report`] (and a final
//! newline), without holding it. Each unit is printed by serde and indented to its
//! depth; JSON strings hold no raw line break, so indenting after every line break of
//! a printed value is exact.

use super::sink::Output;
use super::{DiagnosticReport, ReportSink, UnitReport};
use serde::Serialize;
use std::collections::BTreeMap;
use std::io::Write;

/// A [`ReportSink`] writing the JSON report.
pub struct JsonReport<W: Write> {
    out: Output<W>,
    files: usize,
    units: usize,
}

impl<W: Write> JsonReport<W> {
    /// Starts the report on `out`: its version, machine and the user's bindings.
    pub fn new(out: W, machine: &str, params: &BTreeMap<String, i64>) -> JsonReport<W> {
        let mut out = Output::new(out);
        out.write(&format!(
            "{{\n  \"version\": 1,\n  \"machine\": {},\n  \"params\": {},\n  \"files\": ",
            printed(&machine, 2),
            printed(params, 2)
        ));
        JsonReport {
            out,
            files: 0,
            units: 0,
        }
    }

    /// Ends the report and hands back the writer, or the first write error.
    pub fn finish(mut self) -> Result<W, std::io::Error> {
        self.out.write(if self.files == 0 {
            "[]\n}\n"
        } else {
            "\n  ]\n}\n"
        });
        self.out.finish()
    }
}

impl<W: Write> ReportSink for JsonReport<W> {
    fn file(&mut self, path: &str, form: &'static str) {
        let open = if self.files == 0 { "[\n" } else { ",\n" };
        self.files += 1;
        self.units = 0;
        self.out.write(&format!(
            "{open}    {{\n      \"path\": {},\n      \"form\": {},\n      \"units\": ",
            printed(&path, 6),
            printed(&form, 6)
        ));
    }

    fn unit(&mut self, unit: UnitReport) {
        let open = if self.units == 0 { "[\n" } else { ",\n" };
        self.units += 1;
        self.out
            .write(&format!("{open}        {}", printed(&unit, 8)));
    }

    fn end_file(&mut self, diagnostics: Vec<DiagnosticReport>) {
        let close = if self.units == 0 { "[]" } else { "\n      ]" };
        self.out.write(&format!(
            "{close},\n      \"diagnostics\": {}\n    }}",
            printed(&diagnostics, 6)
        ));
    }
}

/// `value` as serde_json prints it pretty, each line after the first indented by
/// `indent` spaces: its place `indent` deep in the report.
fn printed<T: Serialize + ?Sized>(value: &T, indent: usize) -> String {
    let text = serde_json::to_string_pretty(value).expect("the report serializes");
    text.replace('\n', &format!("\n{}", " ".repeat(indent)))
}
