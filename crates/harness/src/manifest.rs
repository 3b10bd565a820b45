//! `manifest.tsv`: one test per row (suite, test, rom, model, seconds, expected, features).

use std::path::Path;

/// One row of the manifest.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ManifestRow {
    /// Suite folder (`blargg`, `mooneye`, `acid`, ...): decides how the result is judged.
    pub suite: String,
    /// Display name, unique within a manifest; the key in `known_failures.txt`.
    pub test: String,
    /// ROM path relative to the manifest's folder.
    pub rom: String,
    /// `DMG` or `CGB`: the model the row runs on (a CGB runs DMG cartridges in
    /// compatibility mode).
    pub model: String,
    /// Emulated seconds from power-on before judging.
    pub seconds: f64,
    /// Expected screenshot, relative to the manifest's folder.
    pub expected: Option<String>,
    pub features: Vec<String>,
}

/// How a row's outcome is decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Judge {
    /// `LD B,B` with B,C,D,E,H,L = 3,5,8,13,21,34.
    Mooneye,
    /// Serial "Passed"/"Failed", else the `$A000` status, else the screenshot.
    Blargg,
    /// The final screen against the expected PNG.
    Screenshot,
    /// The screen against the expected PNG, taken when the test executes `LD B,B`: the
    /// authors of Mealybug Tearoom and of AGE's screenshot tests define that breakpoint as
    /// "the picture is final" (their pictures then stay the same every frame). A test that
    /// never reaches it is judged on its final screen like [`Judge::Screenshot`].
    ScreenshotAtBreakpoint,
}

impl ManifestRow {
    pub fn judge(&self) -> Judge {
        match self.suite.as_str() {
            "mooneye" => Judge::Mooneye,
            "blargg" => Judge::Blargg,
            "mealybug" | "age" => Judge::ScreenshotAtBreakpoint,
            _ => Judge::Screenshot,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("cannot read manifest: {source}")]
    Read {
        #[source]
        source: std::io::Error,
    },
    #[error("manifest line {line}: {message}")]
    Line { line: usize, message: String },
    #[error("manifest has no header line")]
    Empty,
}

const COLUMNS: [&str; 7] = [
    "suite", "test", "rom", "model", "seconds", "expected", "features",
];

/// Parses manifest text. The header must name the seven columns in order; blank lines and
/// lines starting with `#` are skipped.
pub fn parse_manifest(text: &str) -> Result<Vec<ManifestRow>, ManifestError> {
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(index, line)| (index + 1, line.trim_end_matches('\r')))
        .filter(|(_, line)| !line.trim().is_empty() && !line.starts_with('#'));
    let (header_line, header) = lines.next().ok_or(ManifestError::Empty)?;
    let names: Vec<&str> = header.split('\t').map(str::trim).collect();
    if names != COLUMNS {
        return Err(ManifestError::Line {
            line: header_line,
            message: format!(
                "header should be `{}`, found `{}`",
                COLUMNS.join(" "),
                names.join(" ")
            ),
        });
    }
    let mut rows = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (line, text) in lines {
        let row = parse_row(text).map_err(|message| ManifestError::Line { line, message })?;
        if !seen.insert(row.test.clone()) {
            return Err(ManifestError::Line {
                line,
                message: format!("test `{}` appears twice", row.test),
            });
        }
        rows.push(row);
    }
    Ok(rows)
}

fn parse_row(text: &str) -> Result<ManifestRow, String> {
    let fields: Vec<&str> = text.split('\t').map(str::trim).collect();
    let [suite, test, rom, model, seconds, expected, features] = fields[..] else {
        return Err(format!(
            "expected 7 tab-separated fields, found {}",
            fields.len()
        ));
    };
    for (name, value) in [("suite", suite), ("test", test), ("rom", rom)] {
        if value.is_empty() || value == "-" {
            return Err(format!("{name} is empty"));
        }
    }
    if model != "DMG" && model != "CGB" {
        return Err(format!("model must be DMG or CGB, found `{model}`"));
    }
    let seconds: f64 = seconds
        .parse()
        .ok()
        .filter(|s: &f64| s.is_finite() && *s > 0.0 && *s <= 3600.0)
        .ok_or_else(|| format!("seconds must be a number in (0, 3600], found `{seconds}`"))?;
    let optional = |value: &str| (!value.is_empty() && value != "-").then(|| value.to_string());
    Ok(ManifestRow {
        suite: suite.to_string(),
        test: test.to_string(),
        rom: rom.to_string(),
        model: model.to_string(),
        seconds,
        expected: optional(expected),
        features: optional(features)
            .map(|list| list.split(',').map(|f| f.trim().to_string()).collect())
            .unwrap_or_default(),
    })
}

/// Reads and parses a manifest file.
pub fn load_manifest(path: &Path) -> Result<Vec<ManifestRow>, ManifestError> {
    let text = std::fs::read_to_string(path).map_err(|source| ManifestError::Read { source })?;
    parse_manifest(&text)
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = "suite\ttest\trom\tmodel\tseconds\texpected\tfeatures\n";

    #[test]
    fn parses_rows_and_optional_fields() {
        let text = format!(
            "{HEADER}blargg\tb/x.gb\tb/x.gb\tDMG\t7.5\tb/x.png\t-\n\n# comment\nacid\ta\ta.gb\tCGB\t6\t-\trtc,mbc3\n"
        );
        let rows = parse_manifest(&text).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].seconds, 7.5);
        assert_eq!(rows[0].expected.as_deref(), Some("b/x.png"));
        assert_eq!(rows[0].judge(), Judge::Blargg);
        assert!(rows[0].features.is_empty());
        assert_eq!(rows[1].expected, None);
        assert_eq!(rows[1].features, ["rtc", "mbc3"]);
        assert_eq!(rows[1].judge(), Judge::Screenshot);
    }

    #[test]
    fn errors_name_the_line() {
        let cases = [
            ("blargg\tx\tx.gb\tDMG\t7\n", "line 2: expected 7"),
            ("blargg\tx\tx.gb\tGBA\t7\t-\t-\n", "line 2: model"),
            ("blargg\tx\tx.gb\tDMG\tsoon\t-\t-\n", "line 2: seconds"),
            ("blargg\tx\tx.gb\tDMG\t-1\t-\t-\n", "line 2: seconds"),
            ("blargg\t\tx.gb\tDMG\t1\t-\t-\n", "line 2: test is empty"),
            (
                "m\tx\tx.gb\tDMG\t1\t-\t-\nm\tx\tx.gb\tDMG\t1\t-\t-\n",
                "line 3: test `x` appears twice",
            ),
        ];
        for (body, expected) in cases {
            let error = parse_manifest(&format!("{HEADER}{body}")).unwrap_err();
            assert!(error.to_string().contains(expected), "{error} / {expected}");
        }
        assert!(matches!(parse_manifest(""), Err(ManifestError::Empty)));
        let error = parse_manifest("a\tb\n").unwrap_err().to_string();
        assert!(error.contains("line 1: header"), "{error}");
    }

    #[test]
    fn shared_manifest_parses_when_present() {
        let Some(dir) = backspin_test_support::or_skip(crate::locate_test_roms()) else {
            return;
        };
        let rows = load_manifest(&dir.join("manifest.tsv")).unwrap();
        assert!(rows.len() > 100);
    }
}
